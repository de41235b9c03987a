/** An identifier, double-quoted (case and any character kept). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal, single-quoted (standard_conforming_strings is on since PostgreSQL 9.1). */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** 'schema.table' with each part quoted. */
export function quoteTable(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

/**
 * A table name as a user or a pipeline writes it: `name` or `schema.name`, each part as stored in
 * the catalog, or double-quoted when it holds a dot or a quote (`shop."odd.name"`, `""` for a
 * quote). A name without a schema is in `public`.
 */
export function parseTableName(text: string): { schema: string; table: string } {
  const parts: string[] = [];
  let i = 0;
  for (;;) {
    let part = '';
    if (text[i] === '"') {
      for (i++; ; i++) {
        if (i >= text.length) throw new TypeError(`table name ${text}: a quoted part is not closed`);
        if (text[i] === '"' && text[i + 1] === '"') part += text[i++];
        else if (text[i] === '"') break;
        else part += text[i];
      }
      i++;
    } else {
      const end = text.indexOf('.', i);
      part = text.slice(i, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    }
    parts.push(part);
    if (i >= text.length) break;
    if (text[i] !== '.') throw new TypeError(`table name ${text}: '.' expected after a quoted part at ${i}`);
    i++;
  }
  if (parts.length > 2 || parts.some((p) => p === '')) throw new TypeError(`table name ${text}: not name nor schema.name (quote a part that holds a dot: schema."a.b")`);
  return parts.length === 2 ? { schema: parts[0]!, table: parts[1]! } : { schema: 'public', table: parts[0]! };
}
