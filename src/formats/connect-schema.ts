/**
 * Kafka Connect's JSON schemas (what Debezium writes with `schemas.enable=true`), inferred from
 * the values of one record, and the conversions they allow on read: int64 to bigint, bytes from
 * base64. A column that is null in the record has no type to infer: it is an optional string.
 */
export interface ConnectField {
  readonly type: string;
  readonly optional: boolean;
  readonly field: string;
  readonly name?: string;
  readonly fields?: readonly ConnectField[];
}

export function fieldSchema(field: string, value: unknown): ConnectField {
  return { type: connectType(value), optional: true, field };
}

export function structSchema(field: string, name: string, rows: readonly (Record<string, unknown> | null)[]): ConnectField {
  const fields = new Map<string, ConnectField>();
  for (const row of rows) {
    if (row === null) continue;
    for (const [k, v] of Object.entries(row)) if (v !== null && v !== undefined) fields.set(k, fieldSchema(k, v));
    for (const k of Object.keys(row)) if (!fields.has(k)) fields.set(k, fieldSchema(k, null));
  }
  return { type: 'struct', fields: [...fields.values()], optional: true, name, field };
}

function connectType(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return 'int64';
    case 'number':
      return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 ? 'int32' : 'double';
    case 'boolean':
      return 'boolean';
    default:
      return value instanceof Uint8Array ? 'bytes' : 'string';
  }
}

/** A struct's values as its schema says: int64 as bigint, bytes decoded from base64; fields the schema does not name as they are. */
export function applySchema(schema: ConnectField | undefined, row: Record<string, unknown>): Record<string, unknown> {
  if (schema?.fields === undefined) return row;
  const types = new Map(schema.fields.map((f) => [f.field, f.type]));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    const t = types.get(k);
    if (v === null || t === undefined) out[k] = v;
    else if (t === 'int64' && (typeof v === 'number' || typeof v === 'string')) out[k] = BigInt(v);
    else if (t === 'bytes' && typeof v === 'string') out[k] = Buffer.from(v, 'base64');
    else out[k] = v;
  }
  return out;
}
