import type { RowOpBuilder } from '../database-sink/row-op-builder.ts';
import type { RowOp } from '../database-sink/row-op.ts';
import { CopyIn } from './copy-in.ts';
import { copyField } from './copy-text.ts';
import { pgArrayText } from './pg-array-text.ts';
import type { Statement } from './postgres-statements.ts';
import { quoteIdent, type PostgresTable } from './postgres-table.ts';

/**
 * A COPY carries rows until it holds this much data, then the next one starts: its records are
 * kept until it ends (to name a refused one), so this bounds what a COPY holds in memory.
 */
const SEGMENT_BYTES = 4 * 1024 * 1024;

/** One COPY of the stream and the records it carries, one a line. */
interface Segment {
  readonly copy: CopyIn;
  readonly records: unknown[];
  bytes: number;
}

/**
 * An insert-mode writer's rows, streamed into COPYs that stay open across batches: a round trip
 * per batch leaves the server idle while it waits for the next, and each row goes straight from
 * its record to COPY's text (no intermediate row change). Batches of encoded rows are handed to
 * the open COPY; a new one is opened (by `start`, queued behind the connection's other
 * statements) for the first batch of a transaction and after SEGMENT_BYTES.
 */
export class CopyInsertStream {
  readonly #table: PostgresTable;
  readonly #builder: RowOpBuilder;
  readonly #start: (copy: CopyIn, statement: () => Statement) => void;
  readonly #text: string;
  /** Per column: whether it is an array column (its values go as PostgreSQL's array text). */
  readonly #arrays: boolean[];
  #batch = '';
  #batchRecords: unknown[] = [];
  #segment: Segment | undefined;

  constructor(table: PostgresTable, builder: RowOpBuilder, start: (copy: CopyIn, statement: () => Statement) => void) {
    this.#table = table;
    this.#builder = builder;
    this.#start = start;
    this.#arrays = table.columns.map((c) => c.type.endsWith('[]'));
    this.#text = `COPY ${table.sqlName} (${table.columns.map((c) => quoteIdent(c.column)).join(', ')}) FROM STDIN`;
  }

  /** Rows encoded and not yet handed to a COPY. */
  get batched(): number {
    return this.#batchRecords.length;
  }

  add(record: unknown): void {
    const row = record as Record<string, unknown>;
    const n = this.#table.columns.length;
    let line = this.#field(row, 0);
    for (let i = 1; i < n; i++) line += '\t' + this.#field(row, i);
    this.#batch += line + '\n';
    this.#batchRecords.push(record);
  }

  #field(row: Record<string, unknown>, i: number): string {
    const v = this.#builder.valueOf(row, i);
    return copyField(this.#arrays[i] && Array.isArray(v) ? pgArrayText(v) : v);
  }

  /** Hands the batch to the open COPY, opening one when there is none or it is full. */
  flush(): void {
    if (this.#batchRecords.length === 0) return;
    if (this.#segment && this.#segment.bytes >= SEGMENT_BYTES) this.end();
    const segment = (this.#segment ??= this.#open());
    const data = Buffer.from(this.#batch);
    segment.bytes += data.length;
    for (const r of this.#batchRecords) segment.records.push(r);
    this.#batch = '';
    this.#batchRecords = [];
    segment.copy.write(data);
  }

  /** Ends the open COPY (CopyDone once its data is out): the transaction's next statement may follow. */
  end(): void {
    this.#segment?.copy.end();
    this.#segment = undefined;
  }

  /** Undefined while little waits for the socket; else a promise for when it has drained. */
  drained(highWater: number): Promise<void> | undefined {
    return this.#segment?.copy.drained(highWater);
  }

  #open(): Segment {
    const segment: Segment = { copy: new CopyIn(this.#text), records: [], bytes: 0 };
    // The row changes are made again only when the server refused one, to name it.
    const statement = (): Statement => {
      const ops: RowOp[] = [];
      for (const r of segment.records) this.#builder.opsOf(r, ops);
      return { text: this.#text, values: [], ops };
    };
    this.#start(segment.copy, statement);
    return segment;
  }
}
