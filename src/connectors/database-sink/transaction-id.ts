import { createHash } from 'node:crypto';

/**
 * The stable part of a sink's transaction ids: the same on every resume (the job id changes on
 * each), so a restored job finds what a killed run prepared. By default it is made from the job's
 * name and the sink's uid; two sinks writing the same database need different ones.
 */
export type TransactionIdPrefix = string;

/** An XA gtrid holds 64 bytes (PostgreSQL's gid 200): prefix, subtask (≤ 5 digits) and checkpoint id (≤ 16) fit. */
const MAX_ID_BYTES = 64;
const MAX_PREFIX_BYTES = MAX_ID_BYTES - 1 - 5 - 1 - 16;
/** Characters that need no quoting in SQL literals nor escaping in LIKE patterns. */
const PLAIN = /^[A-Za-z0-9.:]+$/;

/** The default prefix: a hash of the job's name and the sink's uid. */
export function defaultTransactionIdPrefix(jobName: string, sinkUid: string): TransactionIdPrefix {
  return `weir${hash(`${jobName}\0${sinkUid}`)}`;
}

/** A user's prefix as it is, when it is short and plain; hashed to fit otherwise. */
export function transactionIdPrefix(setting: string): TransactionIdPrefix {
  if (setting.length === 0) throw new TypeError('transactionIdPrefix must not be empty');
  return setting.length <= MAX_PREFIX_BYTES && PLAIN.test(setting) ? setting : `weir${hash(setting)}`;
}

/** A sink's prefix: its `transactionIdPrefix` setting, or the default for its job and uid. */
export function sinkTransactionIdPrefix(setting: string | undefined, sink: { readonly jobName: string; readonly operatorUid: string }): TransactionIdPrefix {
  return setting !== undefined ? transactionIdPrefix(setting) : defaultTransactionIdPrefix(sink.jobName, sink.operatorUid);
}

/** The id of one subtask's transaction of one checkpoint. */
export function transactionId(prefix: TransactionIdPrefix, subtask: number, checkpointId: number): string {
  return `${prefix}-${subtask}-${checkpointId}`;
}

/** The subtask and checkpoint of an id with this prefix; undefined for any other id. */
export function parseTransactionId(prefix: TransactionIdPrefix, id: string): { subtask: number; checkpointId: number } | undefined {
  const m = /^(\d+)-(\d+)$/.exec(id.startsWith(`${prefix}-`) ? id.slice(prefix.length + 1) : '');
  return m ? { subtask: Number(m[1]), checkpointId: Number(m[2]) } : undefined;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 24);
}
