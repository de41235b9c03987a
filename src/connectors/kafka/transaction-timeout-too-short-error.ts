/** The sink's transaction timeout does not cover a checkpoint's interval plus its timeout: a transaction could be aborted by the brokers before its checkpoint completes. */
export class TransactionTimeoutTooShortError extends Error {
  readonly transactionTimeoutMs: number;
  readonly checkpointIntervalMs: number;
  readonly checkpointTimeoutMs: number;
  readonly unrecoverable = true;

  constructor(transactionTimeoutMs: number, checkpointIntervalMs: number, checkpointTimeoutMs: number) {
    super(
      `KafkaSink: transactionTimeoutMs (Kafka's transaction.timeout.ms) ${transactionTimeoutMs} ms is shorter than execution.checkpointing.interval (${checkpointIntervalMs} ms) plus execution.checkpointing.timeout (${checkpointTimeoutMs} ms): raise transactionTimeoutMs or shorten the checkpoints`,
    );
    this.name = 'TransactionTimeoutTooShortError';
    this.transactionTimeoutMs = transactionTimeoutMs;
    this.checkpointIntervalMs = checkpointIntervalMs;
    this.checkpointTimeoutMs = checkpointTimeoutMs;
  }
}
