import type { ChangeLike, ChangeRow, DecodedChange } from './change.ts';
import { parseExact, stringifyExact } from './exact-json.ts';
import type { ValueFormat } from './format.ts';
import { FormatError } from './format-error.ts';

const NAME = 'canal-json';
const TYPES = { r: 'INSERT', c: 'INSERT', u: 'UPDATE', d: 'DELETE' } as const;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
// Canal writes binary columns as ISO-8859-1 text: one char per byte.
const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

export interface CanalJsonOptions {
  /** The primary key columns of a table (`pkNames`). Unset: null. */
  readonly pkNames?: (table: string, database: string) => readonly string[] | null;
}

/**
 * Canal's (and Flink's canal-json) message for a change: `data` (the row after an insert or
 * update, before a delete), `old` (the previous values of the columns an update changed), `type`
 * INSERT/UPDATE/DELETE, `database`, `table`, `pkNames`, `es` (commit time) and `ts`, and
 * `mysqlType` by column (inferred from the values: bigint, blob, double, bit(1), varchar).
 * A snapshot read ('r') is written as an INSERT, as Canal has no other kind: it reads back as
 * 'c'. Reading converts text values by `mysqlType` as weir's MySQL source types them (int to
 * number, bigint to bigint, blobs to bytes) and returns every row of a message (Canal batches
 * rows of one statement); `ddl` records and messages with isDdl are refused.
 */
export function canalJson(options: CanalJsonOptions = {}): ValueFormat<ChangeLike, DecodedChange[]> {
  return {
    name: NAME,
    serialize: (change) => encoder.encode(stringifyExact(NAME, message(change, options), latin1)),
    deserialize: (bytes) => decode(bytes),
  };
}

function message(change: ChangeLike, o: CanalJsonOptions): unknown {
  const type = TYPES[change.op as keyof typeof TYPES];
  if (type === undefined) throw new FormatError(NAME, 'UNKNOWN_OP', 'op', `'${change.op}' (schema changes are not Canal row messages: filter them out or leave includeSchemaChanges unset)`);
  const data = change.op === 'd' ? change.before : change.after;
  if (data === null) throw new FormatError(NAME, 'NOT_REPRESENTABLE', change.op === 'd' ? 'before' : 'after', `a '${change.op}' change without its row image`);
  const database = String((change.source as unknown as Record<string, unknown>).db ?? '');
  const old = change.op === 'u' && change.before !== null ? [changed(change.before, data)] : null;
  return {
    data: [data],
    database,
    es: change.source.ts,
    isDdl: false,
    mysqlType: mysqlTypes(change.before, data),
    old,
    pkNames: o.pkNames?.(change.source.table, database) ?? null,
    table: change.source.table,
    ts: change.source.ts,
    type,
  };
}

/** The previous values of the columns an update changed (Canal's `old`). */
function changed(before: ChangeRow, after: ChangeRow): ChangeRow {
  const old: ChangeRow = {};
  for (const [k, v] of Object.entries(before)) if (!sameValue(v, after[k]) || !(k in after)) old[k] = v;
  return old;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  return Object.is(a, b);
}

function mysqlTypes(before: ChangeRow | null, data: ChangeRow): Record<string, string> {
  const types: Record<string, string> = {};
  for (const row of [before ?? {}, data]) for (const [k, v] of Object.entries(row)) if (v !== null || types[k] === undefined) types[k] = mysqlType(v);
  return types;
}

function mysqlType(v: unknown): string {
  if (typeof v === 'bigint') return 'bigint';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'boolean') return 'bit(1)';
  if (v instanceof Uint8Array) return 'blob';
  return 'varchar';
}

function decode(bytes: Uint8Array): DecodedChange[] {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (e) {
    throw new FormatError(NAME, 'NOT_JSON', '', 'not UTF-8 text', e);
  }
  const m = parseExact(NAME, text) as Record<string, unknown>;
  if (typeof m !== 'object' || m === null || !Array.isArray(m.data) || typeof m.table !== 'string') throw new FormatError(NAME, 'NOT_AN_ENVELOPE', '', `no data array and table: ${text.slice(0, 80)}`);
  if (m.isDdl === true) throw new FormatError(NAME, 'UNKNOWN_OP', 'isDdl', 'a DDL message (weir reads row changes)');
  const types = (typeof m.mysqlType === 'object' && m.mysqlType !== null ? m.mysqlType : {}) as Record<string, string>;
  const ts = Number(m.es ?? m.ts);
  const source = { db: String(m.database ?? ''), table: m.table, ts, snapshot: false };
  const olds = Array.isArray(m.old) ? (m.old as ChangeRow[]) : [];
  return (m.data as ChangeRow[]).map((raw, i): DecodedChange => {
    const row = typed(raw, types);
    switch (m.type) {
      case 'INSERT':
        return { op: 'c', before: null, after: row, source };
      case 'UPDATE':
        return { op: 'u', before: { ...row, ...typed(olds[i] ?? {}, types) }, after: row, source };
      case 'DELETE':
        return { op: 'd', before: row, after: null, source };
      default:
        throw new FormatError(NAME, 'UNKNOWN_OP', 'type', `${JSON.stringify(m.type)} (weir reads INSERT, UPDATE and DELETE)`);
    }
  });
}

/** Values as weir's MySQL source types them, by Canal's mysqlType; values of other types as they are. */
function typed(row: ChangeRow, types: Record<string, string>): ChangeRow {
  const out: ChangeRow = {};
  for (const [k, v] of Object.entries(row)) out[k] = v === null ? null : convert(v, (types[k] ?? '').toLowerCase());
  return out;
}

function convert(v: unknown, type: string): unknown {
  const base = type.replace(/\(.*$/, '').replace(/ unsigned$/, '').trim();
  if (base === 'bigint') return typeof v === 'bigint' ? v : BigInt(v as string | number);
  if (typeof v !== 'string') return v;
  if (['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'year', 'float', 'double', 'real'].includes(base)) return Number(v);
  if (type === 'bit(1)') return v === '1' || v === 'true';
  if (['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'].includes(base)) return Buffer.from(v, 'latin1');
  return v;
}
