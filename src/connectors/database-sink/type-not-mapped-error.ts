/** A column type schema evolution has no logical type for: the sink cannot create or change a column of it. */
export class TypeNotMappedError extends Error {
  readonly unrecoverable = true;
  readonly dialect: string;
  readonly type: string;
  /** The column, where known (the caller adds it). */
  readonly column: string | undefined;

  constructor(dialect: string, type: string, column?: string) {
    super(`${dialect} type '${type}'${column ? ` of column ${column}` : ''} has no mapping to another database's type (see docs/pipeline-types.md); create the sink table yourself, or cast the column in a transform`);
    this.name = 'TypeNotMappedError';
    this.dialect = dialect;
    this.type = type;
    this.column = column;
  }
}
