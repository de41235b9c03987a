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

/** Per `topic/partition`, the offset of a transaction's first record there. */
export type FirstOffsets = Readonly<Record<string, number>>;

/**
 * What the sink's transactions go through, posted on the sink's `transactionEvents` channel.
 * `firstOffsets` tell a transaction's records from another's where two share a producer id and
 * epoch (a test broker that draws ids at random; real brokers never repeat one).
 */
export type KafkaTransactionEvent =
  | { readonly type: 'pre-committed'; readonly committable: KafkaCommittable; readonly firstOffsets?: FirstOffsets }
  | { readonly type: 'committed'; readonly committable: KafkaCommittable; readonly resumed: boolean }
  | { readonly type: 'aborted'; readonly transactionalId: string; readonly producerId?: string; readonly producerEpoch?: number; readonly firstOffsets?: FirstOffsets }
  | { readonly type: 'fenced'; readonly transactionalId: string; readonly producerId: string; readonly producerEpoch: number };
