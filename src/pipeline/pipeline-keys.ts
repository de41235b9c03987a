import { UPPER_BOUND_MAX_PARALLELISM } from '../config/parallelism-bounds.ts';

/**
 * The keys of each block of a pipeline file, declared once: the validator reads blocks by these,
 * and the JSON Schema shipped with the package is made from them, so the two agree. Names are Flink
 * CDC 3's where the concept is the same; `weir` says which option of weir's connector a key sets.
 */

export type KeyKind =
  | 'string'
  | 'int'
  | 'number'
  | 'boolean'
  | 'duration'
  /** A comma-separated text or a list of texts. */
  | 'string-list'
  | { readonly oneOf: readonly string[] };

export interface KeySpec {
  readonly key: string;
  readonly kind: KeyKind;
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** A rule on a text value, with the words of its error. */
  readonly pattern?: { readonly regex: string; readonly hint: string };
  readonly doc: string;
  /** The option of weir's connector it sets. */
  readonly weir?: string;
}

/** Upper-case spellings are accepted too (Flink CDC reads its enums either way). */
export function choices(...values: string[]): { oneOf: readonly string[] } {
  return { oneOf: [...values, ...values.map((v) => v.toUpperCase()).filter((u) => !values.includes(u))] };
}

/** The canonical (first-declared) spelling of a choice. */
export function canonicalChoice(kind: { oneOf: readonly string[] }, value: string): string {
  return kind.oneOf.find((v) => v.toLowerCase() === value.toLowerCase()) ?? value;
}

const k = (key: string, kind: KeyKind, doc: string, more: Omit<KeySpec, 'key' | 'kind' | 'doc'> = {}): KeySpec => ({ key, kind, doc, ...more });

/** The blocks of a pipeline file. */
export const TOP_LEVEL_BLOCKS = ['source', 'sink', 'route', 'transform', 'pipeline'] as const;

export const SOURCE_TYPES = ['mysql', 'mariadb', 'postgres'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

const STARTUP_MYSQL = choices('initial', 'snapshot', 'earliest-offset', 'latest-offset', 'specific-offset', 'timestamp');
const STARTUP_POSTGRES = choices('initial', 'latest-offset', 'committed-offset', 'snapshot');

const SOURCE_COMMON: readonly KeySpec[] = [
  k('type', { oneOf: SOURCE_TYPES }, 'The database: mysql, mariadb or postgres.', { required: true }),
  k('name', 'string', "The source's name in the job graph and the dashboard."),
  k('hostname', 'string', "The database server's host.", { required: true, weir: 'host' }),
  k('username', 'string', 'The user to connect as.', { required: true, weir: 'user' }),
  k('password', 'string', "The user's password.", { weir: 'password' }),
  k('tables', 'string-list', "The captured tables: comma-separated regular expressions over table ids, '.' between database (schema) and table, '\\.' for any character (Flink CDC's syntax).", { required: true, weir: 'tables' }),
  k('tables.exclude', 'string-list', "Tables matched by 'tables' but not captured, in the same syntax.", { weir: 'tables' }),
  k('scan.incremental.snapshot.chunk.size', 'int', 'Rows per snapshot chunk.', { min: 1, weir: 'chunkSize' }),
  k('chunk-key.even-distribution.factor.upper-bound', 'number', 'Keys spread at most this sparsely are split by arithmetic, not queries.', { min: 0, weir: 'distributionFactorUpper' }),
  k('chunk-key.even-distribution.factor.lower-bound', 'number', 'Keys spread at least this densely are split by arithmetic, not queries.', { min: 0, weir: 'distributionFactorLower' }),
  k('connect.timeout', 'duration', 'How long to wait for a connection.', { weir: 'connectTimeoutMs' }),
  k('schema-change.enabled', 'boolean', 'Send schema changes down the pipeline (default true).', { weir: 'includeSchemaChanges' }),
  k('scan.newly-added-table.enabled', 'boolean', "Tables that come to match 'tables' while the pipeline runs or when it resumes are snapshotted in chunks, then followed (default true in weir pipelines, which follow the whole database; Flink CDC's default is false). False: such a table is followed from its CREATE in the log only (MySQL), or not at all (PostgreSQL: it is not in the publication).", { weir: 'scanNewlyAddedTables' }),
  k('server-time-zone', 'string', "The database session's time zone (an IANA zone such as UTC or Asia/Shanghai)."),
];

export const SOURCE_KEYS: Readonly<Record<SourceType, readonly KeySpec[]>> = {
  mysql: mysqlKeys(),
  mariadb: mysqlKeys(),
  postgres: [
    ...SOURCE_COMMON,
    k('port', 'int', 'The server port (default 5432).', { min: 1, max: 65535, weir: 'port' }),
    k('database', 'string', "The database whose tables are captured, when 'tables' names schema.table (Flink CDC's three-part database.schema.table names it too).", { weir: 'database' }),
    k('slot.name', 'string', "The logical replication slot (default 'weir').", { pattern: { regex: '^[a-z0-9_]{1,56}$', hint: 'lower-case letters, digits and underscores, at most 56 characters' }, weir: 'slotName' }),
    k('publication.name', 'string', "The publication listing the captured tables (default 'weir_publication'; weir's key).", { weir: 'publicationName' }),
    k('decoding.plugin.name', choices('pgoutput'), 'The logical decoding plug-in: weir reads pgoutput.'),
    k('scan.startup.mode', STARTUP_POSTGRES, "Where reading starts: 'initial' (snapshot, then the WAL), 'latest-offset', 'committed-offset' (the slot's position) or 'snapshot' (the snapshot only).", { weir: 'startup' }),
    k('scan.lsn-commit.checkpoints-num-delay', 'int', 'The slot is confirmed this many completed checkpoints late, so that as many older checkpoints stay restorable.', { min: 0, weir: 'lsnCommitCheckpointsDelay' }),
  ],
};

function mysqlKeys(): KeySpec[] {
  return [
    ...SOURCE_COMMON,
    k('port', 'int', 'The server port (default 3306).', { min: 1, max: 65535, weir: 'port' }),
    k('server-id', 'string', "A replication server id or a range '5400-5404', one id per parallel reader.", { pattern: { regex: '^\\s*\\d+\\s*(-\\s*\\d+\\s*)?$', hint: "a number or a range such as '5400-5404'" }, weir: 'serverId' }),
    k('scan.startup.mode', STARTUP_MYSQL, "Where reading starts: 'initial' (snapshot, then the binlog), 'snapshot' (the snapshot only, then the pipeline ends), 'earliest-offset', 'latest-offset', 'specific-offset' or 'timestamp'.", { weir: 'startup' }),
    k('scan.startup.specific-offset.file', 'string', "The binlog file of 'specific-offset'."),
    k('scan.startup.specific-offset.pos', 'int', "The binlog position of 'specific-offset'.", { min: 0 }),
    k('scan.startup.specific-offset.gtid-set', 'string', "The GTID set of 'specific-offset'."),
    k('scan.startup.timestamp-millis', 'int', "The start of 'timestamp', ms since the epoch.", { min: 0 }),
  ];
}

export const SINK_TYPES = ['postgres', 'mysql', 'kafka', 'jetstream', 'files', 'print'] as const;
export type SinkType = (typeof SINK_TYPES)[number];

// The database sinks' schema evolution owns the names; the file's keys take them from there.
export { SCHEMA_CHANGE_KINDS as SCHEMA_CHANGE_TYPES, type SinkSchemaChangeKind as SchemaChangeType } from '../connectors/database-sink/sink-table-schema.ts';
import { SCHEMA_CHANGE_KINDS as SCHEMA_CHANGE_TYPES } from '../connectors/database-sink/sink-table-schema.ts';

const VALUE_FORMAT = k('value.format', choices('debezium-json', 'canal-json'), "How a change is written: 'debezium-json' (default) or 'canal-json'.");

const SINK_COMMON: readonly KeySpec[] = [
  k('type', { oneOf: SINK_TYPES }, 'Where changes go: postgres, mysql, kafka, jetstream, files or print.', { required: true }),
  k('name', 'string', "The sink's name in the job graph and the dashboard."),
  k('include.schema.changes', 'string-list', `Schema change types applied (default all): ${SCHEMA_CHANGE_TYPES.join(', ')}; a prefix such as 'drop' or 'column' names several.`),
  k('exclude.schema.changes', 'string-list', "Schema change types not applied; wins over 'include.schema.changes'."),
];

const DATABASE_SINK: readonly KeySpec[] = [
  ...SINK_COMMON,
  k('hostname', 'string', "The database server's host.", { required: true, weir: 'connection.host' }),
  k('username', 'string', 'The user to connect as.', { required: true, weir: 'connection.user' }),
  k('password', 'string', "The user's password.", { weir: 'connection.password' }),
  k('sink.mode', choices('changelog', 'upsert', 'insert'), "How rows are applied: 'changelog' (default: inserts, updates and deletes by key, the table mirrors the source's), 'upsert' or 'insert'.", { weir: 'mode' }),
  k('sink.batch-size', 'int', 'Rows per statement (default 1000).', { min: 1, weir: 'batchSize' }),
  k('sink.transaction-id-prefix', 'string', "The stable part of the sink's transaction ids (default: from the pipeline's name).", { weir: 'transactionIdPrefix' }),
];

export const SINK_KEYS: Readonly<Record<SinkType, readonly KeySpec[]>> = {
  postgres: [
    ...DATABASE_SINK,
    k('port', 'int', 'The server port (default 5432).', { min: 1, max: 65535, weir: 'connection.port' }),
    k('database', 'string', 'The database the sink tables are in (a sink table id is schema.table).', { required: true, weir: 'connection.database' }),
  ],
  mysql: [
    ...DATABASE_SINK,
    k('port', 'int', 'The server port (default 3306).', { min: 1, max: 65535, weir: 'connection.port' }),
    k('database', 'string', "The connection's database: where weir keeps the schema changes it applied (weir_schema_changes), and that of sink tables whose id names none (a sink table id is database.table).", { required: true, weir: 'connection.database' }),
  ],
  kafka: [
    ...SINK_COMMON,
    k('properties.bootstrap.servers', 'string-list', 'The brokers, host:port, comma-separated.', { required: true, weir: 'connection.bootstrapServers' }),
    k('topic', 'string', 'One topic for every table (default: a topic per sink table, named by its id).'),
    k('sink.tableId-to-topic.mapping', 'string', "Topics of given tables: 'db.t1:topic1;db.t2:topic2'."),
    VALUE_FORMAT,
    k('key.format', choices('json', 'csv'), "How a record's key (the primary key) is written (default json)."),
    k('partition.strategy', choices('all-to-zero', 'hash-by-key'), "'all-to-zero' (default) or 'hash-by-key' (by the primary key)."),
    k('sink.delivery-guarantee', choices('exactly-once', 'at-least-once', 'none'), "Default 'exactly-once' (a transaction per checkpoint).", { weir: 'guarantee' }),
    k('sink.add-tableId-to-header-enabled', 'boolean', "Headers 'namespace', 'schemaName' and 'tableName' on every record."),
    k('sink.custom-header', 'string', "Headers on every record: 'key1:value1,key2:value2'."),
    k('sink.transaction-id-prefix', 'string', 'The stable part of the transactional ids.', { weir: 'transactionIdPrefix' }),
    k('sink.transaction-timeout', 'duration', "Kafka's transaction.timeout.ms for the sink's transactions (default 15 min).", { weir: 'transactionTimeoutMs' }),
  ],
  jetstream: [
    ...SINK_COMMON,
    k('servers', 'string-list', 'The NATS servers, nats://host:4222, comma-separated.', { required: true, weir: 'connection.servers' }),
    k('username', 'string', 'The NATS user.', { weir: 'connection.user' }),
    k('password', 'string', "The user's password.", { weir: 'connection.password' }),
    k('token', 'string', 'A NATS token instead of user and password.', { weir: 'connection.token' }),
    k('stream', 'string', 'The stream that captures the subjects written.', { required: true, weir: 'stream' }),
    k('subject', 'string', 'The subject of every change (default: <stream>.<sink table id>).', { weir: 'subject' }),
    VALUE_FORMAT,
    k('sink.delivery-guarantee', choices('exactly-once', 'at-least-once'), "Default 'exactly-once' (message ids the server deduplicates).", { weir: 'guarantee' }),
    k('create-stream', 'boolean', 'Create the stream when it is missing (default false).', { weir: 'createStream' }),
  ],
  files: [
    ...SINK_COMMON,
    k('path', 'string', 'The directory the part files go to (one for every sink table: each line names its table).', { required: true, weir: 'directory' }),
    VALUE_FORMAT,
  ],
  print: [...SINK_COMMON, VALUE_FORMAT],
};

export const ROUTE_KEYS: readonly KeySpec[] = [
  k('source-table', 'string', "The source tables: a regular expression over table ids ('.' between parts, '\\.' for any character).", { required: true }),
  k('sink-table', 'string', "The sink table: a table id; '$1'... are the source pattern's groups, or the replace-symbol the source table's name.", { required: true }),
  k('replace-symbol', 'string', "A text in 'sink-table' replaced by the source table's name (such as '<>')."),
  k('description', 'string', 'What the rule is for.'),
];

export const TRANSFORM_KEYS: readonly KeySpec[] = [
  k('source-table', 'string', 'The source tables: comma-separated regular expressions over table ids, as in the source\'s tables.', { required: true }),
  k('projection', 'string', "The columns of the sink table, like a SELECT list ('\\*' or '*' for all, computed columns with AS)."),
  k('filter', 'string', 'Which rows pass, like a WHERE clause.'),
  k('primary-keys', 'string-list', "The sink table's primary key columns, comma-separated."),
  k('partition-keys', 'string-list', "The sink table's partition key columns, comma-separated."),
  k('description', 'string', 'What the rule is for.'),
];

export { SCHEMA_CHANGE_BEHAVIORS, type SchemaChangeBehavior } from '../connectors/database-sink/schema-change-behavior.ts';
import { SCHEMA_CHANGE_BEHAVIORS } from '../connectors/database-sink/schema-change-behavior.ts';

/** The pipeline block's own keys; every weir configuration key is accepted besides, by its name. */
export const PIPELINE_KEYS: readonly KeySpec[] = [
  k('name', 'string', "The pipeline's (job's) name; sets weir's pipeline.name.", { weir: 'pipeline.name' }),
  k('parallelism', 'int', 'The parallelism of every operator (default 1); sets weir\'s parallelism.default.', { min: 1, max: UPPER_BOUND_MAX_PARALLELISM, weir: 'parallelism.default' }),
  k('local-time-zone', 'string', 'The time zone of time functions in expressions (an IANA zone such as UTC or Europe/Paris); default the machine\'s.'),
  k('schema.change.behavior', choices(...SCHEMA_CHANGE_BEHAVIORS), "How schema changes reach the sink: 'exception', 'evolve', 'try_evolve', 'lenient' (default) or 'ignore'."),
  k('route-mode', { oneOf: ['ALL_MATCH', 'FIRST_MATCH', 'all_match', 'first_match'] }, "'ALL_MATCH' (default: a table goes to every matching route's sink table) or 'FIRST_MATCH'."),
];
