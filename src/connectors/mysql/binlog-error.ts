/** Where a binlog reader was when something went wrong. */
export interface BinlogErrorSite {
  readonly host: string;
  readonly port: number;
  /** The binlog file and offset being read, when known. */
  readonly file?: string;
  readonly pos?: number;
}

/** A binlog reader failed; the message names the server, the position and what went wrong. */
export class BinlogError extends Error {
  readonly host: string;
  readonly port: number;
  readonly file: string | undefined;
  readonly pos: number | undefined;
  readonly problem: string;
  constructor(site: BinlogErrorSite, problem: string, options?: { cause?: unknown }) {
    const at = site.file ? ` at ${site.file}:${site.pos ?? '?'}` : '';
    super(`binlog reader for ${site.host}:${site.port}${at}: ${problem}`, options);
    this.name = 'BinlogError';
    this.host = site.host;
    this.port = site.port;
    this.file = site.file;
    this.pos = site.pos;
    this.problem = problem;
  }
}

/** The server is not configured so that row changes can be read faithfully from its binlog. */
export class BinlogConfigError extends BinlogError {
  readonly setting: string;
  readonly actual: string;
  readonly required: string;
  constructor(site: BinlogErrorSite, setting: string, actual: string, required: string, fix: string) {
    super(site, `the server's ${setting} is ${actual}, it must be ${required}: ${fix}`);
    this.name = 'BinlogConfigError';
    this.setting = setting;
    this.actual = actual;
    this.required = required;
  }
}

/** The server answered with an error packet (bad position, unknown GTID, lost privileges, ...). */
export class BinlogServerError extends BinlogError {
  readonly errno: number | undefined;
  readonly code: string | undefined;
  readonly sqlState: string | undefined;
  constructor(site: BinlogErrorSite, err: { message: string; errno?: number; code?: string; sqlState?: string }) {
    super(site, `server error ${err.errno ?? ''}${err.code ? ` (${err.code})` : ''}: ${err.message}`, { cause: err });
    this.name = 'BinlogServerError';
    this.errno = err.errno;
    this.code = err.code;
    this.sqlState = err.sqlState;
  }
}

/** A table's row events do not match what information_schema says about the table. */
export class BinlogSchemaError extends BinlogError {
  readonly db: string;
  readonly table: string;
  constructor(site: BinlogErrorSite, db: string, table: string, problem: string) {
    super(site, `table ${db}.${table}: ${problem}`);
    this.name = 'BinlogSchemaError';
    this.db = db;
    this.table = table;
  }
}

/** An event could not be decoded, or is of a kind this reader refuses (compressed events, ...). */
export class BinlogDecodeError extends BinlogError {
  readonly eventType: number;
  constructor(site: BinlogErrorSite, eventType: number, problem: string, options?: { cause?: unknown }) {
    super(site, `event type ${eventType}: ${problem}`, options);
    this.name = 'BinlogDecodeError';
    this.eventType = eventType;
  }
}
