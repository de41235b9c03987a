/** A row image: column name -> value, the values as column-codec.ts defines them. */
export type Row = Record<string, unknown>;

/**
 * What BinlogClient.next() returns. Positions are byte offsets in `file`; `nextPos` is where the
 * following event starts (the header's log_pos). A transaction's rows events share `txnStart`,
 * the offset of the event that began it (GTID event, or BEGIN where there is none), so a reader
 * that restarts there replays the whole transaction.
 */
export type BinlogEvent = RowsEvent | CommitEvent | DdlEvent | RotateEvent;

export interface RowsEvent {
  readonly type: 'rows';
  readonly op: 'c' | 'u' | 'd';
  readonly db: string;
  readonly table: string;
  /** `before` is null for inserts, `after` is null for deletes. */
  readonly rows: Array<{ before: Row | null; after: Row | null }>;
  readonly file: string;
  /** Start of this event. */
  readonly pos: number;
  /** End of this event. */
  readonly nextPos: number;
  readonly txnStart: number;
  readonly gtid?: string;
  /** Milliseconds since the epoch, from the event header (second resolution). */
  readonly ts: number;
}

/** The end of a transaction: an XID event, or a COMMIT query (non-transactional tables). */
export interface CommitEvent {
  readonly type: 'commit';
  readonly file: string;
  readonly nextPos: number;
  readonly gtid?: string;
  readonly ts: number;
}

/** A QUERY event other than BEGIN/COMMIT: DDL (and any statement logged as text). */
export interface DdlEvent {
  readonly type: 'ddl';
  /** The session's default database when the statement ran (may be empty). */
  readonly db: string;
  readonly query: string;
  readonly file: string;
  /** Start of this event. */
  readonly pos: number;
  readonly nextPos: number;
  readonly ts: number;
}

/** The log continues in another file (or, at the start of a GTID dump, tells which file). */
export interface RotateEvent {
  readonly type: 'rotate';
  readonly file: string;
  readonly pos: number;
}
