import type { DataStream } from '../api/data-stream.ts';
import { FileSink } from '../connectors/file/file-sink.ts';
import { onCheckpointRollingPolicy } from '../connectors/file/rolling-policy.ts';
import { JetStreamSink } from '../connectors/jetstream/jetstream-sink.ts';
import { KafkaSink } from '../connectors/kafka/kafka-sink.ts';
import type { KafkaDeliveryGuarantee, KafkaPartitioner } from '../connectors/kafka/kafka-sink-options.ts';
import { PrintSink } from '../connectors/print/print-sink.ts';
import { canalJson } from '../formats/canal-json.ts';
import { debeziumJson } from '../formats/debezium-json.ts';
import type { TwoPhaseCommittingSink } from '../api/two-phase-committing-sink.ts';
import type { SchemaChangeBehavior } from '../connectors/database-sink/schema-change-behavior.ts';
import { mysqlPipelineSink } from '../connectors/mysql/mysql-pipeline-sink.ts';
import { postgresPipelineSink } from '../connectors/postgres/postgres-pipeline-sink.ts';
import type { PipelineSettings, SinkDefinition } from './pipeline-definition.ts';
import { asFormatChange, changeLine, type PipelineChange } from './pipeline-change.ts';

/** A database sink's `sink.mode` the pipeline sinks do not write: they mirror the source by key. */
export class PipelineSinkModeError extends Error {
  readonly unrecoverable = true;
  readonly mode: string;
  constructor(mode: string) {
    super(`sink.mode '${mode}' is not supported by a pipeline's database sink: it writes rows as upserts and deletes by the sink table's primary key ('changelog', the default, or 'upsert')`);
    this.name = 'PipelineSinkModeError';
    this.mode = mode;
  }
}

/** How the sink joins the job: the stream is the pipeline's, keyed by sink table. */
export type AttachSink = (stream: DataStream<PipelineChange>) => void;

/** Row changes as text or bytes of the sink's `value.format` (debezium-json by default); the sink table is the change's db and table. */
function rowFormat(sink: SinkDefinition, primaryKeys: Map<string, readonly string[]>): (c: PipelineChange) => Uint8Array {
  if (sink.options['value.format'] === 'canal-json') {
    const f = canalJson({ pkNames: (table, db) => primaryKeys.get(`${db}.${table}`) ?? null });
    return (c) => f.serialize(asFormatChange(c));
  }
  const f = debeziumJson();
  return (c) => f.serialize(asFormatChange(c));
}

/**
 * Notes each sink table's primary key from its schema changes (canal-json's pkNames, the Kafka
 * key). The sink is keyed by sink table, so a table's create.table reaches the subtask that
 * writes its rows before them.
 */
function keyTracker(): { keys: Map<string, readonly string[]>; note: (c: PipelineChange) => void } {
  const keys = new Map<string, readonly string[]>();
  return {
    keys,
    note: (c) => {
      if (c.schemaChange) keys.set(`${c.table.namespace}.${c.table.table}`, c.schemaChange.schema.primaryKey);
    },
  };
}

const decoder = new TextDecoder();

/** The sink of a pipeline's `sink` block; a database sink follows the pipeline's schema.change.behavior. */
export function pipelineSink(sink: SinkDefinition, pipeline: Pick<PipelineSettings, 'schemaChangeBehavior'> = { schemaChangeBehavior: 'lenient' }): AttachSink {
  const o = sink.options;
  const name = sink.name ?? `Sink: ${sink.type}`;
  const settings = { name, uid: 'pipeline-sink' };
  switch (sink.type) {
    case 'print':
    case 'files': {
      // Every change a line: rows in the value format, schema changes as weir's own JSON (no such Debezium or Canal row exists).
      // Files roll at every checkpoint: a pipeline's output is visible as each checkpoint completes. One directory for all sink tables (each line names its table).
      const { keys, note } = keyTracker();
      const rows = rowFormat(sink, keys);
      const line = (c: PipelineChange) => {
        note(c);
        return c.op === 'ddl' ? changeLine(c) : decoder.decode(rows(c));
      };
      // The schema changes the pipeline's schema.change.behavior and include/exclude keep (a table's create.table always: it says what the rows are).
      const kept = new Set<string>([...sink.schemaChanges, 'create.table']);
      return (stream) =>
        void stream
          .filter((c) => c.op !== 'ddl' || kept.has(c.schemaChange!.change.kind), { name: 'Schema changes kept' })
          .sinkTo(sink.type === 'print' ? new PrintSink<PipelineChange>({ format: line }) : new FileSink<PipelineChange>(String(o['path']), { format: line, rollingPolicy: onCheckpointRollingPolicy() }), settings);
    }
    case 'kafka':
      return kafkaSink(sink, settings);
    case 'jetstream':
      return jetStreamSink(sink, settings);
    case 'postgres':
    case 'mysql':
      return databaseSink(sink, pipeline.schemaChangeBehavior, settings);
  }
}

/** PostgreSQL or MySQL: every sink table in one transaction per checkpoint, schema changes applied once (the sinks hold them back until the commits before them). */
function databaseSink(sink: SinkDefinition, behavior: SchemaChangeBehavior, settings: { name: string; uid: string }): AttachSink {
  const o = sink.options;
  const mode = String(o['sink.mode'] ?? 'changelog');
  if (mode !== 'changelog' && mode !== 'upsert') throw new PipelineSinkModeError(mode);
  const list = (v: unknown) => (v === undefined ? undefined : (v as string[]));
  const include = list(o['include.schema.changes']);
  const exclude = list(o['exclude.schema.changes']);
  const common = {
    schemaChangeBehavior: behavior,
    ...(include || exclude ? { schemaChangeFilter: { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) } } : {}),
    ...(o['sink.transaction-id-prefix'] !== undefined ? { transactionIdPrefix: String(o['sink.transaction-id-prefix']) } : {}),
    ...(o['sink.batch-size'] !== undefined ? { batchSize: Number(o['sink.batch-size']) } : {}),
    name: settings.name,
  };
  const host = String(o['hostname']);
  const user = String(o['username']);
  const password = String(o['password'] ?? '');
  const target =
    sink.type === 'postgres'
      ? postgresPipelineSink({ ...common, connection: { host, port: Number(o['port'] ?? 5432), user, password, database: String(o['database']) } })
      : mysqlPipelineSink({ ...common, connection: { host, port: Number(o['port'] ?? 3306), user, password, ...(o['database'] !== undefined ? { database: String(o['database']) } : {}) } });
  return (stream) => void stream.sinkTo(target as TwoPhaseCommittingSink<PipelineChange, unknown>, settings);
}

/** Schema changes are not Kafka or JetStream messages (Flink CDC's Kafka sink writes none either): they update the key tracker and stop here. */
function rowsOnly(stream: DataStream<PipelineChange>, note: (c: PipelineChange) => void): DataStream<PipelineChange> {
  return stream.filter(
    (c) => {
      note(c);
      return c.op !== 'ddl';
    },
    { name: 'Rows only' },
  );
}

function kafkaSink(sink: SinkDefinition, settings: { name: string; uid: string }): AttachSink {
  const o = sink.options;
  const mapping = topicMapping(o['sink.tableId-to-topic.mapping']);
  const fixed = o['topic'] as string | undefined;
  const { keys, note } = keyTracker();
  const rows = rowFormat(sink, keys);
  const keyOf = (c: PipelineChange): string | null => {
    const pk = keys.get(tableKey(c));
    const row = c.after ?? c.before;
    if (!pk || pk.length === 0 || !row) return null;
    return JSON.stringify(Object.fromEntries(pk.map((k) => [k, row[k]])), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  };
  const allToZero: KafkaPartitioner<PipelineChange> = () => 0;
  const headers = o['sink.add-tableId-to-header-enabled'] === true;
  const custom = Object.fromEntries(String(o['sink.custom-header'] ?? '').split(',').filter((h) => h.includes(':')).map((h) => [h.slice(0, h.indexOf(':')).trim(), h.slice(h.indexOf(':') + 1).trim()]));
  const kafka = new KafkaSink<PipelineChange>({
    connection: { bootstrapServers: o['properties.bootstrap.servers'] as string[] },
    topic: (c) => mapping.get(tableKey(c)) ?? fixed ?? tableKey(c),
    serializer: rows,
    key: keyOf,
    partitioner: o['partition.strategy'] === 'hash-by-key' ? 'key-hash' : allToZero,
    ...(headers || Object.keys(custom).length > 0 ? { headers: (c: PipelineChange) => ({ ...custom, ...(headers ? { namespace: '', schemaName: c.table.namespace, tableName: c.table.table } : {}) }) } : {}),
    guarantee: (o['sink.delivery-guarantee'] as KafkaDeliveryGuarantee | undefined) ?? 'exactly-once',
    ...(o['sink.transaction-id-prefix'] !== undefined ? { transactionIdPrefix: String(o['sink.transaction-id-prefix']) } : {}),
    ...(o['sink.transaction-timeout'] !== undefined ? { transactionTimeoutMs: Number(o['sink.transaction-timeout']) } : {}),
  });
  return (stream) => void rowsOnly(stream, note).sinkTo(kafka, settings);
}

function jetStreamSink(sink: SinkDefinition, settings: { name: string; uid: string }): AttachSink {
  const o = sink.options;
  const stream = String(o['stream']);
  const fixed = o['subject'] as string | undefined;
  const { keys, note } = keyTracker();
  const rows = rowFormat(sink, keys);
  const js = new JetStreamSink<PipelineChange>({
    connection: {
      servers: o['servers'] as string[],
      ...(o['username'] !== undefined ? { user: String(o['username']) } : {}),
      ...(o['password'] !== undefined ? { password: String(o['password']) } : {}),
      ...(o['token'] !== undefined ? { token: String(o['token']) } : {}),
    },
    stream,
    subject: fixed ?? ((c) => `${stream}.${tableKey(c)}`),
    serializer: rows,
    guarantee: (o['sink.delivery-guarantee'] as 'exactly-once' | 'at-least-once' | undefined) ?? 'exactly-once',
    ...(o['create-stream'] === true ? { createStream: true } : {}),
  });
  return (s) => void rowsOnly(s, note).sinkTo(js, settings);
}

function tableKey(c: PipelineChange): string {
  return `${c.table.namespace}.${c.table.table}`;
}

/** 'db.t1:topic1;db.t2:topic2' (checked by the validator). */
function topicMapping(text: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of String(text ?? '').split(';')) {
    const [table, topic] = entry.split(':').map((s) => s.trim());
    if (table && topic) out.set(table, topic);
  }
  return out;
}
