/**
 * A JS array as PostgreSQL's array input ('{1,NULL,"a \"b\"",{2,3}}'), for array columns: COPY
 * takes it as the field's text and statements pass it as text cast to the column's type (an
 * array of arrays cannot go through unnest, which flattens every dimension). Elements are quoted
 * unless they are numbers or booleans; dates go as ISO timestamps, bytes as `\x` hex, other
 * objects as JSON (json[] and jsonb[]).
 */
export function pgArrayText(value: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out += ',';
    out += element(value[i]);
  }
  return `${out}}`;
}

function element(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (Array.isArray(v)) return pgArrayText(v);
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'string':
      return quoted(v);
    default:
      if (v instanceof Date) return quoted(v.toISOString());
      if (v instanceof Uint8Array) return quoted(`\\x${Buffer.from(v).toString('hex')}`);
      return quoted(JSON.stringify(v));
  }
}

function quoted(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
