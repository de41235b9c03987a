import type { MySqlCdcOptions, StartupMode } from '../connectors/mysql/mysql-cdc-options.ts';
import type { PostgresCdcOptions, PostgresStartupMode } from '../connectors/postgres/postgres-cdc-options.ts';
import type { SourceDefinition } from './pipeline-definition.ts';
import { isLiteral, selectionRegExp } from './table-selector.ts';

/**
 * The options of weir's MySQL/MariaDB CDC source for a checked `source` block (Flink CDC key ->
 * weir option: hostname -> host, username -> user, server-id -> serverId, scan.startup.* ->
 * startup, scan.incremental.snapshot.chunk.size -> chunkSize, schema-change.enabled ->
 * includeSchemaChanges, ...). The tables become one RegExp over 'db.table', so the source's catalog
 * looks at every database the patterns may name; `database` (the connection's) is the first
 * database named literally, else information_schema (always there, never captured).
 */
export function mySqlCdcOptionsOf(s: SourceDefinition): MySqlCdcOptions {
  const o = s.options;
  const database = s.tables.parts.map((p) => p[0]!).find(isLiteral) ?? 'information_schema';
  return {
    host: String(o['hostname']),
    port: num(o['port']) ?? 3306,
    user: String(o['username']),
    password: String(o['password'] ?? ''),
    database,
    tables: [selectionRegExp(s.tables, s.excludedTables)],
    ...(o['server-id'] === undefined ? {} : { serverId: String(o['server-id']).replace(/\s/g, '') }),
    startup: mySqlStartup(o),
    ...common(o),
  };
}

/** The options of weir's PostgreSQL CDC source (slot.name -> slotName, publication.name -> publicationName, scan.lsn-commit.checkpoints-num-delay -> lsnCommitCheckpointsDelay, ...); tables are one RegExp over 'schema.table'. */
export function postgresCdcOptionsOf(s: SourceDefinition): PostgresCdcOptions {
  const o = s.options;
  const startup: Record<string, PostgresStartupMode> = {
    initial: { mode: 'initial' },
    'latest-offset': { mode: 'latest' },
    'committed-offset': { mode: 'committed-offset' },
    snapshot: { mode: 'snapshot-only' },
  };
  return {
    host: String(o['hostname']),
    port: num(o['port']) ?? 5432,
    user: String(o['username']),
    password: String(o['password'] ?? ''),
    database: String(o['database']),
    tables: [selectionRegExp(s.tables, s.excludedTables)],
    startup: startup[String(o['scan.startup.mode'] ?? 'initial')]!,
    ...(o['slot.name'] === undefined ? {} : { slotName: String(o['slot.name']) }),
    ...(o['publication.name'] === undefined ? {} : { publicationName: String(o['publication.name']) }),
    ...(o['scan.lsn-commit.checkpoints-num-delay'] === undefined ? {} : { lsnCommitCheckpointsDelay: num(o['scan.lsn-commit.checkpoints-num-delay'])! }),
    ...(o['connect.timeout'] === undefined ? {} : { connectTimeoutMs: num(o['connect.timeout'])! }),
    ...common(o),
  };
}

function mySqlStartup(o: Readonly<Record<string, unknown>>): StartupMode {
  switch (o['scan.startup.mode'] ?? 'initial') {
    case 'snapshot':
      return { mode: 'snapshot-only' };
    case 'earliest-offset':
      return { mode: 'earliest' };
    case 'latest-offset':
      return { mode: 'latest' };
    case 'timestamp':
      return { mode: 'timestamp', timestampMs: num(o['scan.startup.timestamp-millis'])! };
    case 'specific-offset':
      return o['scan.startup.specific-offset.gtid-set'] !== undefined
        ? { mode: 'specific', gtid: String(o['scan.startup.specific-offset.gtid-set']) }
        : { mode: 'specific', file: String(o['scan.startup.specific-offset.file']), pos: num(o['scan.startup.specific-offset.pos'])! };
    default:
      return { mode: 'initial' };
  }
}

/** What both sources name alike. Pipelines carry schema changes (Flink CDC's schema-change.enabled is true) and tables added later by default. */
function common(o: Readonly<Record<string, unknown>>): { chunkSize?: number; distributionFactorUpper?: number; distributionFactorLower?: number; connectTimeoutMs?: number; includeSchemaChanges: boolean; scanNewlyAddedTables: boolean } {
  return {
    ...(o['scan.incremental.snapshot.chunk.size'] === undefined ? {} : { chunkSize: num(o['scan.incremental.snapshot.chunk.size'])! }),
    ...(o['chunk-key.even-distribution.factor.upper-bound'] === undefined ? {} : { distributionFactorUpper: num(o['chunk-key.even-distribution.factor.upper-bound'])! }),
    ...(o['chunk-key.even-distribution.factor.lower-bound'] === undefined ? {} : { distributionFactorLower: num(o['chunk-key.even-distribution.factor.lower-bound'])! }),
    ...(o['connect.timeout'] === undefined ? {} : { connectTimeoutMs: num(o['connect.timeout'])! }),
    includeSchemaChanges: o['schema-change.enabled'] !== false,
    // A pipeline follows the whole database: tables created later too, unless the file says not.
    scanNewlyAddedTables: o['scan.newly-added-table.enabled'] !== false,
  };
}

function num(v: unknown): number | undefined {
  return v === undefined ? undefined : Number(v);
}
