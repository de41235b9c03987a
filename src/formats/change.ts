/** A row as column name -> value. */
export type ChangeRow = Record<string, unknown>;

/**
 * A change record as weir's CDC sources emit it (CdcChangeRecord, structurally): what the change
 * formats write. `ddl` records are refused: schema changes are not rows of these formats.
 */
export interface ChangeLike {
  readonly op: string;
  readonly before: ChangeRow | null;
  readonly after: ChangeRow | null;
  readonly source: ChangeSourceLike;
}

/** The fields every dialect's `source` has; the others (db, file, pos, lsn...) are carried as they are. */
export interface ChangeSourceLike {
  readonly table: string;
  /** Milliseconds since the epoch: the commit time, or when a snapshot chunk was read. */
  readonly ts: number;
  readonly snapshot: boolean;
}

/** A change as a format reads it back: the shape of weir's CDC records ('r' snapshot read, 'c', 'u', 'd'). */
export interface DecodedChange {
  readonly op: 'r' | 'c' | 'u' | 'd';
  readonly before: ChangeRow | null;
  readonly after: ChangeRow | null;
  readonly source: DecodedSource;
}

export interface DecodedSource extends ChangeSourceLike {
  readonly db?: string;
  readonly [field: string]: unknown;
}
