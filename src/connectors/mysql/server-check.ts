import { BinlogConfigError } from './binlog-error.ts';
import { queryRecords, type QueryRunner } from './query-runner.ts';

const PERSIST = "(and in the server's configuration, so that it survives a restart; sessions already open keep their old value until they reconnect)";

/**
 * Refuses a server whose binlog cannot give faithful row changes: binary logging off, a format
 * other than ROW, row images other than FULL, or compressed events. The error names the setting
 * and how to fix it.
 */
export async function checkBinlogSettings(conn: QueryRunner, server: { readonly host: string; readonly port: number }): Promise<void> {
  const site = { host: server.host, port: server.port };
  const [row] = await queryRecords(
    conn,
    'SELECT VERSION() AS version, @@global.log_bin AS log_bin, @@global.binlog_format AS binlog_format, @@global.binlog_row_image AS binlog_row_image',
  );
  const value = (name: string) => setting(row?.[name]);
  if (!['1', 'ON'].includes(value('log_bin'))) {
    throw new BinlogConfigError(site, 'log_bin', value('log_bin') || 'OFF', 'ON', 'start the server with --log-bin (binary logging cannot be switched on while it runs)');
  }
  if (value('binlog_format') !== 'ROW') {
    throw new BinlogConfigError(site, 'binlog_format', value('binlog_format'), 'ROW', `SET GLOBAL binlog_format = 'ROW' ${PERSIST}`);
  }
  if (value('binlog_row_image') !== 'FULL') {
    throw new BinlogConfigError(site, 'binlog_row_image', value('binlog_row_image'), 'FULL', `SET GLOBAL binlog_row_image = 'FULL' ${PERSIST}`);
  }
  if (/mariadb/i.test(value('version'))) {
    const compress = await optional(conn, '@@global.log_bin_compress');
    if (compress !== undefined && ['1', 'ON'].includes(compress)) {
      throw new BinlogConfigError(site, 'log_bin_compress', compress, 'OFF', `SET GLOBAL log_bin_compress = OFF ${PERSIST}`);
    }
    return;
  }
  const compression = await optional(conn, '@@global.binlog_transaction_compression');
  if (compression !== undefined && ['1', 'ON'].includes(compression)) {
    throw new BinlogConfigError(site, 'binlog_transaction_compression', compression, 'OFF', `SET GLOBAL binlog_transaction_compression = OFF ${PERSIST}`);
  }
  const valueOptions = await optional(conn, '@@global.binlog_row_value_options');
  if (valueOptions) {
    throw new BinlogConfigError(site, 'binlog_row_value_options', valueOptions, "''", `SET GLOBAL binlog_row_value_options = '' ${PERSIST}`);
  }
}

/** The global binlog checksum algorithm ('CRC32' or 'NONE'). */
export async function binlogChecksum(conn: QueryRunner): Promise<string> {
  const [row] = await queryRecords(conn, 'SELECT @@global.binlog_checksum AS checksum');
  return setting(row?.checksum);
}

/** A variable that older versions lack: undefined then. */
async function optional(conn: QueryRunner, variable: string): Promise<string | undefined> {
  try {
    const [row] = await queryRecords(conn, `SELECT ${variable} AS v`);
    return setting(row?.v);
  } catch {
    return undefined;
  }
}

// Whatever typeCast the connection uses: 1n, 1, '1', 'ON', Buffer.
function setting(v: unknown): string {
  if (v === null || v === undefined) return '';
  return (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)).toUpperCase();
}
