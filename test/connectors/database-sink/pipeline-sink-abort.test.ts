// A pipeline database sink's writer aborted (a failover) while batches are queued behind a running
// one: nothing queued may run after the abort. On MariaDB a batch that ran then began an XA
// transaction on a new session that nobody ended, holding its rows' locks against every later
// attempt (the exactly-once soak's hang: each attempt's statements waited innodb_lock_wait_timeout
// on them and failed, for ever). Afterwards the server holds no transaction of the writer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RoutedChange } from '../../../src/connectors/database-sink/routed-change.ts';
import type { SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { sinkContext } from '../../fixtures/sink-commit-idempotence.ts';
import { describeOnTargets } from './pipeline-sink-targets.ts';

const SCHEMA: SinkTableSchema = {
  columns: [
    { name: 'id', type: { kind: 'INT' }, nullable: false },
    { name: 'name', type: { kind: 'VARCHAR', length: 20 }, nullable: true },
  ],
  primaryKey: ['id'],
};

describeOnTargets('pipeline database sinks: abort with batches queued', (targetName, target) => {
    test(`${targetName}: no batch runs after the abort; no transaction of the writer is left open`, async () => {
      const t = target();
      const table = { namespace: t.namespace, table: 'aborted' };
      const rec = (op: RoutedChange['op'], after: Record<string, unknown> | null, schemaChange?: RoutedChange['schemaChange']): RoutedChange => ({ table, sourceTable: 'src.aborted', op, before: null, after, ...(schemaChange ? { schemaChange } : {}) });
      const openTransactions = async () =>
        targetName === 'mariadb'
          ? ((await t.sql.query('SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX')) as Array<{ n: number }>)[0]!.n
          : ((await t.sql.query("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'weir %' AND state LIKE 'idle in transaction%'")) as Array<{ n: number }>)[0]!.n;
      const sink = t.sink({ schemaChangeBehavior: 'evolve', transactionIdPrefix: 'abrt', batchSize: 1, maxInFlightBatches: 100 });
      let writer = await sink.createWriter(sinkContext({ uid: 'abort-test' }));
      writer.write(rec('ddl', null, { change: { kind: 'create.table', schema: SCHEMA }, schema: SCHEMA, id: 'aborted@0' }));
      assert.deepEqual(await writer.prepareCommit(1), [], 'the create commits nothing of its own');
      for (let round = 0; round < 5; round++) {
        // Batches of one row each, queued one behind the other; the abort comes while the first runs.
        for (let id = 1; id <= 30; id++) writer.write(rec('c', { id: round * 100 + id, name: `r${round}` }));
        await new Promise((r) => setImmediate(r));
        await writer.abort!();
        assert.equal(await openTransactions(), 0, `round ${round}: a transaction of the aborted writer is still open`);
        if (round < 4) writer = await sink.createWriter(sinkContext({ uid: 'abort-test' }));
      }
      assert.deepEqual(await t.rows('aborted', ['id']), [], 'nothing was committed');
    });
});
