/**
 * A schema change that makes a captured table impossible to follow: e.g. its chunk key dropped
 * while the log still merges changes with the snapshot's chunks by that key.
 */
export class CdcSchemaChangeError extends Error {
  readonly db: string;
  readonly table: string;
  /** Where in the log (the dialect's formatted position). */
  readonly position: string;
  /** 'stale-schema': a row decoded with other columns than the checkpoint's schema of its table at that point. */
  readonly reason: 'chunk-key-dropped' | 'primary-key-dropped' | 'stale-schema';
  readonly unrecoverable = true;
  constructor(db: string, table: string, position: string, reason: CdcSchemaChangeError['reason'], detail: string) {
    super(`table ${db}.${table} cannot be followed past ${position}: ${detail}`);
    this.name = 'CdcSchemaChangeError';
    this.db = db;
    this.table = table;
    this.position = position;
    this.reason = reason;
  }
}
