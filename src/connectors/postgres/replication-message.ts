import type { Lsn } from './lsn.ts';

/*
 * The streaming replication sub-protocol carried in CopyData messages once START_REPLICATION has
 * switched the connection to CopyBoth (PostgreSQL docs, "Streaming Replication Protocol").
 * Times on the wire are microseconds since 2000-01-01 UTC.
 */

/** Milliseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01 UTC. */
const PG_EPOCH_MS = 946_684_800_000n;

export function pgMicrosToUnixMs(micros: bigint): number {
  return Number(micros / 1000n + PG_EPOCH_MS);
}

export function unixMsToPgMicros(ms: number): bigint {
  return (BigInt(Math.trunc(ms)) - PG_EPOCH_MS) * 1000n;
}

/** 'w': a piece of WAL; for logical replication, one message of the output plugin. */
export interface XLogData {
  readonly kind: 'xlog';
  readonly walStart: Lsn;
  readonly walEnd: Lsn;
  readonly sendTime: number;
  readonly data: Buffer;
}

/** 'k': the server's position; `replyRequested` asks for a status update at once. */
export interface PrimaryKeepalive {
  readonly kind: 'keepalive';
  readonly walEnd: Lsn;
  readonly sendTime: number;
  readonly replyRequested: boolean;
}

export type ReplicationMessage = XLogData | PrimaryKeepalive;

/** A CopyData payload the replication protocol does not define. */
export class ReplicationProtocolError extends Error {
  readonly tag: number;
  constructor(tag: number, length: number) {
    super(`unexpected replication message '${String.fromCharCode(tag)}' (0x${tag.toString(16)}, ${length} bytes) from the server`);
    this.name = 'ReplicationProtocolError';
    this.tag = tag;
  }
}

export function parseReplicationMessage(chunk: Buffer): ReplicationMessage {
  const tag = chunk[0]!;
  if (tag === 0x77 && chunk.length >= 25) {
    return {
      kind: 'xlog',
      walStart: chunk.readBigUInt64BE(1),
      walEnd: chunk.readBigUInt64BE(9),
      sendTime: pgMicrosToUnixMs(chunk.readBigInt64BE(17)),
      data: chunk.subarray(25),
    };
  }
  if (tag === 0x6b && chunk.length >= 18) {
    return { kind: 'keepalive', walEnd: chunk.readBigUInt64BE(1), sendTime: pgMicrosToUnixMs(chunk.readBigInt64BE(9)), replyRequested: chunk[17] === 1 };
  }
  throw new ReplicationProtocolError(tag, chunk.length);
}

/** What the client reports: WAL up to `flush` may be recycled and is the slot's confirmed_flush_lsn. */
export interface StandbyStatus {
  readonly write: Lsn;
  readonly flush: Lsn;
  readonly apply: Lsn;
}

/** 'r': the standby status update. */
export function standbyStatusUpdate(status: StandbyStatus, nowMs: number, replyRequested = false): Buffer {
  const b = Buffer.alloc(34);
  b[0] = 0x72;
  b.writeBigUInt64BE(status.write, 1);
  b.writeBigUInt64BE(status.flush, 9);
  b.writeBigUInt64BE(status.apply, 17);
  b.writeBigInt64BE(unixMsToPgMicros(nowMs), 25);
  b[33] = replyRequested ? 1 : 0;
  return b;
}
