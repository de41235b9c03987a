/**
 * One subject filter of a stream, read by one reader: `nextSequence` is the stream sequence to go
 * on from (everything before it that matches was emitted), kept in checkpoints. `endSequence`
 * (bounded sources) is the stream's last sequence when the job started: the split ends there.
 */
export interface JetStreamSplit {
  readonly filter: string;
  readonly nextSequence: number;
  readonly endSequence?: number;
}
