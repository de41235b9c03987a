/** One message of a checkpoint: its subject and payload (text as is, bytes in base64, so that committables stay plain JSON). */
export interface StagedMessage {
  readonly subject: string;
  readonly text?: string;
  readonly base64?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * What one subtask of a JetStreamSink wrote in one checkpoint, kept in the checkpoint until it
 * completes and then published: message i gets the id `<prefix>-<subtask>-<checkpoint>-<i>`.
 * `createdAt` (ms since the epoch, at the pre-commit) bounds when the first publication of these
 * ids can have happened, which tells the committer whether the server still remembers them.
 */
export interface JetStreamCommittable {
  readonly subtask: number;
  readonly checkpointId: number;
  readonly createdAt: number;
  readonly messages: readonly StagedMessage[];
}
