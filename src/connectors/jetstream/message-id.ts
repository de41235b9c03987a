import type { TransactionIdPrefix } from '../database-sink/transaction-id.ts';

/** The Nats-Msg-Id of message `index` of a subtask's checkpoint: stable across replays, so the server drops a replayed one. */
export function messageId(prefix: TransactionIdPrefix, subtask: number, checkpointId: number, index: number): string {
  return `${messageIdPrefix(prefix, subtask, checkpointId)}${index}`;
}

/** What every message id of one subtask's checkpoint starts with. */
export function messageIdPrefix(prefix: TransactionIdPrefix, subtask: number, checkpointId: number): string {
  return `${prefix}-${subtask}-${checkpointId}-`;
}
