import type { SourceOutput } from '../../api/source.ts';
import type { BinlogClient } from './binlog-client.ts';
import type { BinlogEvent } from './binlog-event.ts';
import { compareBinlogPositions } from './binlog-position.ts';
import type { BinlogSplit, FinishedTable, LogPosition } from './cdc-split.ts';
import type { ChangeRecord, RowImage } from './change-record.ts';
import { compareChunkKeys } from './chunk-key.ts';

type RowsEvent = Extract<BinlogEvent, { type: 'rows' }>;

/**
 * The binlog phase: turns row events into change records and knows, at every point between two
 * polls, where to resume so that nothing is emitted twice: the transaction's start and how many of
 * its row events were already emitted. Until the binlog passes the highest HIGH watermark, a change
 * is dropped when the snapshot chunk of its key was read at or after it.
 */
export class BinlogFollower {
  readonly #client: BinlogClient;
  #split: BinlogSplit;
  /** Row events of the current transaction still to skip (emitted before the restored checkpoint). */
  #skip: number;
  #txn: { file: string; pos: number; events: number } | undefined;
  #tables: Map<string, FinishedTable>;
  events = 0;
  changes = 0;
  dropped = 0;
  lastEventTs = 0;
  /** Nothing buffered at the last poll: the reader has read all the server has written. */
  caughtUp = false;

  constructor(client: BinlogClient, split: BinlogSplit) {
    this.#client = client;
    this.#split = split;
    this.#skip = split.skipEvents;
    this.#tables = new Map(split.tables.map((t) => [`${t.db}.${t.table}`, t]));
  }

  available(): Promise<void> {
    return this.#client.available();
  }

  /** Emits the changes of at most one row event; 'nothing' when none is buffered. */
  poll(out: SourceOutput<ChangeRecord>): 'more' | 'nothing' {
    for (;;) {
      const ev = this.#client.next();
      this.caughtUp = ev === undefined;
      if (!ev) return 'nothing';
      // A DDL statement is its own transaction (when no row event of an open one came before it): a
      // restore must not go back before it, where rows have the old shape but would be decoded
      // with the table's schema as it is now.
      if (ev.type === 'commit' || (ev.type === 'ddl' && this.#txn === undefined)) {
        this.#commit({ file: ev.file, pos: ev.nextPos, ...(ev.type === 'commit' && ev.gtid !== undefined ? { gtid: ev.gtid } : {}) });
        continue;
      }
      if (ev.type !== 'rows') continue;
      if (this.#txn === undefined || this.#txn.pos !== ev.txnStart || this.#txn.file !== ev.file) this.#txn = { file: ev.file, pos: ev.txnStart, events: 0 };
      this.#txn.events++;
      if (this.#skip > 0) {
        this.#skip--;
        continue;
      }
      this.events++;
      this.lastEventTs = ev.ts;
      this.#emit(ev, out);
      return 'more';
    }
  }

  #commit(at: LogPosition): void {
    this.#txn = undefined;
    this.#skip = 0;
    const passed = this.#split.maxHigh !== null && compareBinlogPositions(at, this.#split.maxHigh) >= 0;
    // Past every chunk's HIGH: no change can be in a chunk any more, the chunk table is dropped.
    if (passed) this.#tables = new Map();
    this.#split = { ...this.#split, start: at, skipEvents: 0, ...(passed ? { tables: [], maxHigh: null } : {}) };
  }

  /** Where to resume: the current transaction's start and how many of its row events are out. */
  snapshot(): BinlogSplit {
    if (!this.#txn) return this.#split;
    return { ...this.#split, start: { file: this.#txn.file, pos: this.#txn.pos }, skipEvents: this.#txn.events };
  }

  get position(): BinlogSplit['start'] {
    return this.#split.start;
  }

  #emit(ev: RowsEvent, out: SourceOutput<ChangeRecord>): void {
    const from = this.#split.fromTimestamp;
    if (from !== undefined && Math.floor(ev.ts / 1000) < Math.floor(from / 1000)) return;
    const table = this.#tables.get(`${ev.db}.${ev.table}`);
    const at: LogPosition = { file: ev.file, pos: ev.nextPos };
    ev.rows.forEach((r, row) => {
      const before = (r.before ?? null) as RowImage | null;
      const after = (r.after ?? null) as RowImage | null;
      let op = ev.op;
      // Halves of the change that the snapshot already holds are dropped.
      const beforeSeen = before !== null && table !== undefined && this.#seen(table, before, at);
      const afterSeen = after !== null && table !== undefined && this.#seen(table, after, at);
      let b = before;
      let a = after;
      if (op === 'u' && beforeSeen !== afterSeen) {
        if (beforeSeen) [op, b] = ['c', null];
        else [op, a] = ['d', null];
      } else if ((op === 'c' && afterSeen) || (op === 'd' && beforeSeen) || (op === 'u' && beforeSeen && afterSeen)) {
        this.dropped++;
        return;
      }
      this.changes++;
      // The commit time is the record's event time (a WatermarkStrategy makes watermarks from it).
      out.collect(
        {
          op,
          before: b,
          after: a,
          source: { db: ev.db, table: ev.table, file: ev.file, pos: ev.pos, row, ...(ev.gtid !== undefined ? { gtid: ev.gtid } : {}), ts: ev.ts, snapshot: false },
        },
        ev.ts,
      );
    });
  }

  /** Whether the finished chunk holding this row's key was read at or after the event. */
  #seen(table: FinishedTable, row: RowImage, at: LogPosition): boolean {
    const key = row[table.keyColumn];
    const chunks = table.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = chunks[mid]!;
      if (c.start !== null && compareChunkKeys(table.keyKind, key, c.start) < 0) hi = mid - 1;
      else if (c.end !== null && compareChunkKeys(table.keyKind, key, c.end) >= 0) lo = mid + 1;
      else return compareBinlogPositions(at, c.high) <= 0;
    }
    return false;
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}
