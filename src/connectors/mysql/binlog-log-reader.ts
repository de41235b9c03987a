import type { CdcLogEvent, CdcLogReader } from '../cdc/cdc-dialect.ts';
import type { CdcColumn, CdcSchemaEvent } from '../cdc/schema-change.ts';
import type { BinlogClient } from './binlog-client.ts';
import type { DdlEvent, RowsEvent } from './binlog-event.ts';
import type { MySqlLogPosition } from './cdc-split.ts';
import type { ChangeSource, RowImage } from './change-record.ts';
import { parseDdl } from './ddl-statement.ts';
import type { TrackedColumns } from './tracked-columns.ts';

/**
 * A BinlogClient as the CDC core reads a log: rows events with their transaction's start and
 * their own place as positions, commits and DDL statements as boundaries; rotations are the
 * client's own business. A DDL statement is a boundary carrying its schema changes of captured
 * tables (parsed by ddl-statement.ts; one the parser does not understand as an `unrecognized` one). Rows still decode by the binlog's TABLE_MAP, whatever the parse said.
 */
export class BinlogLogReader implements CdcLogReader<MySqlLogPosition, ChangeSource> {
  readonly #client: BinlogClient;
  readonly #include: (db: string, table: string) => boolean;
  #unrecognized = 0;

  readonly #tracked: TrackedColumns | undefined;

  constructor(client: BinlogClient, include: (db: string, table: string) => boolean = () => true, tracked?: TrackedColumns) {
    this.#client = client;
    this.#tracked = tracked;
    this.#include = include;
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
        case 'ddl': {
          const schemaChanges = this.#schemaEvents(ev);
          // A DDL statement is its own transaction only when no rows event of an open one came before it.
          const boundary = { type: 'boundary' as const, next: { file: ev.file, pos: ev.nextPos }, betweenTransactionsOnly: true };
          return schemaChanges.length > 0 ? { ...boundary, schemaChanges } : boundary;
        }
        default:
          continue;
      }
    }
  }

  #schemaEvents(ev: DdlEvent): CdcSchemaEvent<MySqlLogPosition, ChangeSource>[] {
    const { file, pos, ts } = ev;
    const at = { file, pos: ev.nextPos };
    const source = (db: string, table: string): ChangeSource => ({ db, table, file, pos, row: 0, ts, snapshot: false });
    const parsed = parseDdl(ev.query, ev.db);
    if (parsed.kind === 'unrecognized') {
      this.#unrecognized++;
      return [{ db: ev.db, table: '', unrecognized: parsed.reason, statement: ev.query, at, ts, source: source(ev.db, '') }];
    }
    return parsed.tables
      .filter((t) => this.#include(t.db, t.table))
      .map((t) => ({
        db: t.db,
        table: t.table,
        changes: t.changes,
        ...(t.columns ? { columns: t.columns } : {}),
        ...(t.primaryKeyDropped ? { primaryKeyDropped: true } : {}),
        statement: ev.query,
        at,
        ts,
        source: source(t.db, t.table),
      }));
  }

  useTrackedColumns(columnsOf: (db: string, table: string) => readonly CdcColumn[] | undefined): void {
    this.#tracked?.use(columnsOf);
  }

  available(): Promise<void> {
    return this.#client.available();
  }

  get position(): MySqlLogPosition {
    return this.#client.position;
  }

  /** `binlog_ddl_unrecognized`: DDL statements the parser could not read (each logged with its text and position). */
  metrics(): Record<string, number> {
    return { binlog_ddl_unrecognized: this.#unrecognized };
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
