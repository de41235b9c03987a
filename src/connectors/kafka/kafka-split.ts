/**
 * One partition of a topic, read by one reader: `nextOffset` is the offset to go on from
 * (everything before it was emitted), kept in checkpoints. `endOffset` (bounded sources) is the
 * partition's end offset when the job started: the split ends there.
 */
export interface KafkaSplit {
  readonly topic: string;
  readonly partition: number;
  readonly nextOffset: number;
  readonly endOffset?: number;
}

export function splitId(s: { readonly topic: string; readonly partition: number }): string {
  return `${s.topic}-${s.partition}`;
}
