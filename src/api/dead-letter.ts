/**
 * A record the sink's target refused (a constraint, a type, a length), as a two-phase-commit
 * sink's dead-letter side output carries it. A replay would be refused again, so instead of
 * failing the job the sink leaves the record out of its transaction and emits it here, with
 * the reason; it reaches the side output when the checkpoint whose transaction refused it
 * completes (or when the input ends), exactly once like the sink's own output.
 */
export interface DeadLetter<T = unknown> {
  readonly record: T;
  /** Where it was refused: server, database and table. */
  readonly target: string;
  /** The table, as the sink names it in errors. */
  readonly table: string;
  /** The constraint that refused it; absent when the database named none (a type, a length). */
  readonly constraint?: string;
  /** The database's error code (SQLSTATE), when it gave one. */
  readonly code?: string;
  /** MySQL's and MariaDB's error number (their SQLSTATEs are coarse: 23000 is any key or check). */
  readonly errno?: number;
  /** The database's message, with its detail. */
  readonly reason: string;
}
