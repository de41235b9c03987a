/**
 * A change of a table whose schema the pipeline does not know: the catalog did not list it when
 * the pipeline opened and no schema change announced it. The source announces every table it adds
 * while running (its log's CREATE, or a create.table read from the catalog before the table's
 * first chunk), so this is left for a table created in the moment between the catalog read at
 * open and the source's own look at the catalog as it starts. The task fails; its restart reads
 * the catalog again, which has it.
 */
export class UnknownSourceTableError extends Error {
  readonly table: string;
  readonly known: readonly string[];
  constructor(table: string, known: readonly string[]) {
    super(`a change of source table ${table}, whose schema the pipeline did not read at start (tables known: ${known.slice(0, 20).join(', ') || 'none'}${known.length > 20 ? ', ...' : ''}); a restart reads the catalog again`);
    this.name = 'UnknownSourceTableError';
    this.table = table;
    this.known = known;
  }
}
