/**
 * One subtask's transaction of one checkpoint (exactly-once), kept in the checkpoint until it
 * completes and then committed: by the producer that wrote it if it still runs, else through
 * its transactional id, producer id and epoch (a restore). `slot` numbers the subtask's
 * transactions: its id is `<prefix>-<subtask>-<slot>`. `records` 0: nothing to commit.
 */
export interface KafkaCommittable {
  readonly subtask: number;
  readonly slot: number;
  readonly checkpointId: number;
  readonly transactionalId: string;
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly records: number;
}

/** What the sink's transactions go through, posted on the sink's `transactionEvents` channel. */
export type KafkaTransactionEvent =
  | { readonly type: 'pre-committed'; readonly committable: KafkaCommittable }
  | { readonly type: 'committed'; readonly committable: KafkaCommittable; readonly resumed: boolean }
  | { readonly type: 'aborted'; readonly transactionalId: string; readonly producerId?: string; readonly producerEpoch?: number }
  | { readonly type: 'fenced'; readonly transactionalId: string; readonly producerId: string; readonly producerEpoch: number };
