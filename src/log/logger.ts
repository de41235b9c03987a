/**
 * Structured logging: JSON lines when stderr is not a terminal (for log shippers), a readable
 * line when it is. Every line carries the context it was made with (job id, vertex, subtask).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /** Whether lines of this level are written (TaskManagers do not send the others). */
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  readonly level?: LogLevel;
  readonly json?: boolean;
  readonly write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}, context: LogFields = {}): Logger {
  const level = options.level ?? ((process.env.WEIR_LOG_LEVEL as LogLevel | undefined) ?? 'info');
  const json = options.json ?? !process.stderr.isTTY;
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const emit = (lvl: LogLevel, message: string, fields?: LogFields) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const all = { ...context, ...fields };
    if (json) {
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg: message, ...all }, jsonSafe));
    } else {
      const extras = Object.entries(all)
        .filter(([k]) => k !== 'jobId')
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, jsonSafe)}`)
        .join(' ');
      write(`${new Date().toISOString().slice(11, 23)} ${lvl.toUpperCase().padEnd(5)} ${message}${extras ? `  ${extras}` : ''}`);
    }
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level, json, write }, { ...context, ...fields }),
    enabled: (lvl) => ORDER[lvl] >= ORDER[level],
  };
}

function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  enabled: () => false,
};

/** The least level a logger writes, or undefined if it writes nothing. */
export function lowestLevel(log: Logger): LogLevel | undefined {
  return (['debug', 'info', 'warn', 'error'] as const).find((l) => log.enabled(l));
}

/**
 * A logger whose lines are sent elsewhere as data (a TaskManager's lines go to the JobMaster,
 * which writes them with its own logger, so every line of a job has one format and destination).
 */
export function forwardingLogger(send: (level: LogLevel, message: string, fields: LogFields) => void, level: LogLevel | undefined, context: LogFields = {}): Logger {
  const on = (l: LogLevel) => level !== undefined && ORDER[l] >= ORDER[level];
  const emit = (l: LogLevel) => (message: string, fields?: LogFields) => {
    if (on(l)) send(l, message, { ...context, ...fields });
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => forwardingLogger(send, level, { ...context, ...fields }),
    enabled: on,
  };
}
