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
