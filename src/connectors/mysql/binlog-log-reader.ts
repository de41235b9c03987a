import type { CdcLogEvent, CdcLogReader } from '../cdc/cdc-dialect.ts';
import type { BinlogClient } from './binlog-client.ts';
import type { RowsEvent } from './binlog-event.ts';
import type { MySqlLogPosition } from './cdc-split.ts';
import type { ChangeSource, RowImage } from './change-record.ts';

/**
 * A BinlogClient as the CDC core reads a log: rows events with their transaction's start and
 * their own place as positions, commits and DDL statements as boundaries; rotations are the
 * client's own business.
 */
export class BinlogLogReader implements CdcLogReader<MySqlLogPosition, ChangeSource> {
  readonly #client: BinlogClient;

  constructor(client: BinlogClient) {
    this.#client = client;
  }

  next(): CdcLogEvent<MySqlLogPosition, ChangeSource> | undefined {
    for (;;) {
      const ev = this.#client.next();
      if (!ev) return undefined;
      switch (ev.type) {
        case 'rows':
          return rowsEvent(ev);
        case 'commit':
          return { type: 'boundary', next: ev.gtid !== undefined ? { file: ev.file, pos: ev.nextPos, gtid: ev.gtid } : { file: ev.file, pos: ev.nextPos } };
        case 'ddl':
          // A DDL statement is its own transaction only when no rows event of an open one came before it.
          return { type: 'boundary', next: { file: ev.file, pos: ev.nextPos }, betweenTransactionsOnly: true };
        default:
          continue;
      }
    }
  }

  available(): Promise<void> {
    return this.#client.available();
  }

  get position(): MySqlLogPosition {
    return this.#client.position;
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

function rowsEvent(ev: RowsEvent): CdcLogEvent<MySqlLogPosition, ChangeSource> {
  const { db, table, file, pos, gtid, ts } = ev;
  return {
    type: 'rows',
    op: ev.op,
    db,
    table,
    rows: ev.rows as Array<{ before: RowImage | null; after: RowImage | null }>,
    txnStart: { file, pos: ev.txnStart },
    at: { file, pos: ev.nextPos },
    ts,
    source: (row) => (gtid !== undefined ? { db, table, file, pos, row, gtid, ts, snapshot: false } : { db, table, file, pos, row, ts, snapshot: false }),
  };
}
