// The change formats through NATS JetStream: MySQL- and PostgreSQL-shaped change records written
// by JetStreamSink as debezium-json (one subject per table) and canal-json, read back by
// JetStreamSource with the same format, equal the originals, per subject in order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { defineJob, executeJob } from '../../../src/index.ts';
import { CollectSink } from '../../../src/connectors/collect/index.ts';
import { CollectionSource } from '../../../src/connectors/collection/index.ts';
import { canalJson, debeziumJson, JetStreamSink, JetStreamSource, type ChangeLike } from '../../../src/connectors/jetstream/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { startNatsCluster, type NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, createStream } from '../../fixtures/jetstream-streams.ts';
import { canonical, mysqlChanges, postgresChanges } from '../../formats/cdc-samples.ts';

describe('JetStream with the change formats', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  before(async () => {
    nats = await startNatsCluster({ nodes: 1 });
    nc = await connectTo(nats.servers);
  });
  after(async () => {
    await nc?.close().catch(() => {});
    await nats?.stop();
  });

  async function roundTrip(stream: string, changes: readonly ChangeLike[], serialize: (c: ChangeLike) => Uint8Array, deserialize: (b: Uint8Array) => unknown): Promise<string[]> {
    await createStream(nc, stream, [`${stream}.>`]);
    const write = defineJob((e) => {
      e.fromSource(new CollectionSource(changes), { uid: 'changes' }).sinkTo(new JetStreamSink<ChangeLike>({ connection: { servers: nats.servers }, stream, subject: (c) => `${stream}.${c.source.table}`, serializer: serialize, guarantee: 'at-least-once' }), { uid: 'js-sink' });
    });
    const written = await executeJob({ job: write, config: { 'restart-strategy.type': 'none' } });
    assert.equal(written.status, 'FINISHED', written.error?.message);
    const id = uniqueId();
    const read = defineJob((e) => {
      e.fromSource(new JetStreamSource({ connection: { servers: nats.servers }, stream, bounded: true, deserializer: (data) => canonical(deserialize(data)) }), { uid: 'js' }).sinkTo(new CollectSink<string>(id));
    });
    const { result, records } = await runCollecting<string>(id, () => executeJob({ job: read, config: { 'restart-strategy.type': 'none' } }));
    assert.equal(result.status, 'FINISHED', result.error?.message);
    return records;
  }

  test('debezium-json with the schema: every change back equal, each table in order', { timeout: 60_000 }, async () => {
    const f = debeziumJson({ schemaInclude: true });
    const changes = [...mysqlChanges, ...postgresChanges];
    const got = await roundTrip('dbz', changes, f.serialize, f.deserialize);
    assert.deepEqual([...got].sort(), changes.map(canonical).sort());
    for (const table of ['orders', 'posts']) {
      const inOrder = changes.filter((c) => c.source.table === table).map(canonical);
      assert.deepEqual(got.filter((g) => inOrder.includes(g)), inOrder, `${table} in order`);
    }
  });

  test('canal-json: every MySQL change back equal (a snapshot read as an insert)', { timeout: 60_000 }, async () => {
    const f = canalJson();
    const got = await roundTrip('canal', mysqlChanges, f.serialize, f.deserialize);
    assert.deepEqual(got, mysqlChanges.map((c) => canonical([{ op: c.op === 'r' ? 'c' : c.op, before: c.before, after: c.after, source: { db: c.source.db, table: c.source.table, ts: c.source.ts, snapshot: false } }])));
  });
});
