import { applySchema, fieldSchema, structSchema, type ConnectField } from './connect-schema.ts';
import type { ChangeLike, ChangeRow, DecodedChange } from './change.ts';
import { parseExact, stringifyExact } from './exact-json.ts';
import type { ValueFormat } from './format.ts';
import { FormatError } from './format-error.ts';

const NAME = 'debezium-json';
/** Debezium's unavailable.value.placeholder: a column the change did not carry (PostgreSQL's unchanged TOASTed values). */
export const UNAVAILABLE_VALUE = '__debezium_unavailable_value';
const OPS = new Set(['r', 'c', 'u', 'd']);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
const base64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

export interface DebeziumJsonOptions {
  /**
   * Write Kafka Connect's schema with each record (`{schema, payload}`, Debezium's JSON converter
   * with schemas.enable=true; Flink's debezium-json.schema-include), inferred from the record's
   * values. It makes the round trip exact: int64 columns read back as bigints and bytes as bytes.
   * Without it bigints are exact JSON integers (read back as numbers where they are safe
   * integers) and bytes are base64 text. Reading accepts both. Unset: false.
   */
  readonly schemaInclude?: boolean;
  /** `source.connector` ('mysql', 'postgresql'). Unset: not written. */
  readonly connector?: string;
}

/** A change with the columns its update did not carry (Debezium's placeholder) named. */
export type DebeziumChange = DecodedChange & { readonly unchangedColumns?: readonly string[] };

/**
 * Debezium's change event envelope (Flink's debezium-json format): `before`, `after`, `source`
 * (with `ts_ms`, `snapshot` as "true"/"false", and the dialect's position fields as weir's CDC
 * sources have them), `op` (r, c, u, d) and `ts_ms` (the change's commit time, not the time it
 * was written: a replay writes the same bytes). Schema changes (`op: 'ddl'`) are refused.
 */
export function debeziumJson(options: DebeziumJsonOptions = {}): ValueFormat<ChangeLike, DebeziumChange> {
  return {
    name: NAME,
    serialize: (change) => encoder.encode(stringifyExact(NAME, envelope(change, options), base64)),
    deserialize: (bytes) => decode(bytes),
  };
}

function envelope(change: ChangeLike, o: DebeziumJsonOptions): unknown {
  if (!OPS.has(change.op)) throw new FormatError(NAME, 'UNKNOWN_OP', 'op', `'${change.op}' (schema changes are not Debezium row events: filter them out or leave includeSchemaChanges unset)`);
  const { ts, snapshot, ...position } = change.source as unknown as Record<string, unknown>;
  const source = { ...(o.connector === undefined ? {} : { connector: o.connector }), ts_ms: ts, snapshot: snapshot ? 'true' : 'false', ...position };
  const unchanged = (change as { unchangedColumns?: readonly string[] }).unchangedColumns;
  let after = change.after;
  if (after !== null && unchanged !== undefined && unchanged.length > 0) {
    after = { ...after };
    for (const c of unchanged) after[c] = UNAVAILABLE_VALUE;
  }
  const payload = { before: change.before, after, source, op: change.op, ts_ms: ts, transaction: null };
  if (!o.schemaInclude) return payload;
  const row = `${String(position.db ?? '')}.${change.source.table}`.replace(/^\./, '');
  const schema = {
    type: 'struct',
    fields: [
      structSchema('before', `${row}.Value`, [change.before, after]),
      structSchema('after', `${row}.Value`, [change.before, after]),
      { ...structSchema('source', 'io.debezium.connector.source.Source', [source]), optional: false },
      { type: 'string', optional: false, field: 'op' },
      fieldSchema('ts_ms', 0n),
      { type: 'struct', optional: true, field: 'transaction', fields: [] },
    ],
    optional: false,
    name: `${row}.Envelope`,
  };
  return { schema, payload };
}

function decode(bytes: Uint8Array): DebeziumChange {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (e) {
    throw new FormatError(NAME, 'NOT_JSON', '', 'not UTF-8 text', e);
  }
  let doc = parseExact(NAME, text) as Record<string, unknown> | null;
  let schema: ConnectField | undefined;
  if (isObject(doc) && isObject(doc.payload) && isObject(doc.schema)) {
    schema = doc.schema as unknown as ConnectField;
    doc = doc.payload;
  }
  if (!isObject(doc)) throw new FormatError(NAME, 'NOT_AN_ENVELOPE', '', `${text.slice(0, 80)}`);
  const op = doc.op;
  if (typeof op !== 'string' || !OPS.has(op)) throw new FormatError(NAME, 'UNKNOWN_OP', 'op', `${JSON.stringify(op)} (weir reads r, c, u and d)`);
  const field = (name: string): ConnectField | undefined => schema?.fields?.find((f) => f.field === name);
  const before = row(doc, 'before', field('before'));
  let after = row(doc, 'after', field('after'));
  const src = doc.source;
  if (!isObject(src) || typeof src.table !== 'string') throw new FormatError(NAME, 'NOT_AN_ENVELOPE', 'source', 'no source with a table');
  const { ts_ms, snapshot, ...position } = applySchema(field('source'), src);
  const ts = Number(ts_ms ?? doc.ts_ms);
  const source = { ts, snapshot: snapshot === true || snapshot === 'true' || snapshot === 'last', ...position } as DecodedChange['source'];
  const unchanged = after === null ? [] : Object.keys(after).filter((k) => after![k] === UNAVAILABLE_VALUE);
  if (unchanged.length > 0) after = Object.fromEntries(Object.entries(after!).filter(([, v]) => v !== UNAVAILABLE_VALUE));
  const change = { op: op as DecodedChange['op'], before, after, source };
  return unchanged.length > 0 ? { ...change, unchangedColumns: unchanged } : change;
}

function row(doc: Record<string, unknown>, name: string, schema: ConnectField | undefined): ChangeRow | null {
  const v = doc[name];
  if (v === null || v === undefined) return null;
  if (!isObject(v)) throw new FormatError(NAME, 'NOT_AN_ENVELOPE', name, 'not an object or null');
  return applySchema(schema, v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
