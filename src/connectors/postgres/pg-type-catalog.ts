import type { PgSqlClient } from './pg-sql-client.ts';
import { parserForType, type PgTypeInfo, type PgValueParser } from './pg-value-codec.ts';

/**
 * The types of captured columns as pg_type describes them (enums, domains and arrays have OIDs
 * of their own), loaded before the rows that use them are parsed, since parsing is synchronous.
 */
export class PgTypeCatalog {
  readonly #types = new Map<number, PgTypeInfo>();
  readonly #parsers = new Map<number, PgValueParser>();

  has(oid: number): boolean {
    return this.#types.has(oid);
  }

  /** Loads the given types and those they are made of (array elements, domain bases). */
  async load(sql: PgSqlClient, oids: readonly number[]): Promise<void> {
    const missing = [...new Set(oids)].filter((o) => !this.#types.has(o));
    if (missing.length === 0) return;
    const rows = await sql.query<{ oid: number; nspname: string; typname: string; typtype: string; typcategory: string; typelem: number; typbasetype: number; typdelim: string }>(
      `WITH RECURSIVE ts(oid) AS (
         SELECT unnest($1::oid[])
         UNION SELECT x.oid FROM pg_type t JOIN ts ON t.oid = ts.oid JOIN pg_type x ON x.oid IN (t.typelem, t.typbasetype)
       )
       SELECT t.oid::int8 AS oid, n.nspname, t.typname, t.typtype, t.typcategory, t.typelem::int8 AS typelem, t.typbasetype::int8 AS typbasetype, t.typdelim
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid IN (SELECT oid FROM ts)`,
      [missing],
    );
    for (const r of rows) {
      this.#types.set(Number(r.oid), {
        oid: Number(r.oid),
        schema: r.nspname,
        name: r.typname,
        typtype: r.typtype,
        category: r.typcategory,
        elementOid: Number(r.typelem),
        baseOid: Number(r.typbasetype),
        delimiter: r.typdelim,
      });
    }
    this.#parsers.clear(); // a parser built before may have read an element type as text
  }

  /** A column's type as text: the type's name, with its modifier's length or precision ('varchar(20)', 'numeric(10,2)', 'int4'). */
  typeName(oid: number, typeMod: number): string {
    const t = this.#types.get(oid);
    const name = t ? (t.schema === 'pg_catalog' ? t.name : `${t.schema}.${t.name}`) : `oid ${oid}`;
    if (typeMod < 0) return name;
    if (t?.name === 'numeric') return `${name}(${((typeMod - 4) >> 16) & 0xffff},${(typeMod - 4) & 0xffff})`;
    if (t?.name === 'varchar' || t?.name === 'bpchar') return `${name}(${typeMod - 4})`;
    return `${name}(${typeMod})`;
  }

  /** The parser of a type's text output (text itself for a type not loaded). */
  parser(oid: number): PgValueParser {
    let p = this.#parsers.get(oid);
    if (!p) {
      p = parserForType(oid, (o) => this.#types.get(o));
      this.#parsers.set(oid, p);
    }
    return p;
  }
}
