/**
 * Rows in COPY's text format: tab-separated, `\N` for NULL, backslash escapes for backslash,
 * tab, newline and carriage return; dates as ISO timestamps, objects as JSON, bytes as `\x` hex.
 */
export function copyText(rows: ReadonlyArray<readonly unknown[]>): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out += '\t';
      out += field(row[i]);
    }
    out += '\n';
  }
  return out;
}

function field(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'string':
      return escape(v);
    default:
      if (v instanceof Date) return v.toISOString();
      if (v instanceof Uint8Array) return `\\\\x${Buffer.from(v).toString('hex')}`;
      return escape(JSON.stringify(v));
  }
}

function escape(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}
