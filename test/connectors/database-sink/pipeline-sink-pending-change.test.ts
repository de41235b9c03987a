// A schema change that reaches a pipeline database sink while the sink's prepared transaction
// holds rows of its table: through the CommittingSinkOperator (its SchemaChangeHold) on a real
// PostgreSQL and MariaDB. The change is not run while the transaction is prepared (an ALTER from
// outside shows the lock it would wait for), it runs once the transaction has committed, the rows
// after it follow in the new shape, and nothing waits for a timeout. The sink's figures (the
// pipeline view's) say the change is held, then applied, named by its source time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TwoPhaseCommittingSink } from '../../../src/api/two-phase-committing-sink.ts';
import type { RoutedChange } from '../../../src/connectors/database-sink/routed-change.ts';
import type { SinkSchemaChange, SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { evolveSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { CommittingSinkOperator } from '../../../src/worker/operators/committing-sink-operator.ts';
import { OperatorHarness } from '../../fixtures/operator-harness.ts';
import { describeOnTargets, type PipelineTarget } from './pipeline-sink-targets.ts';

const SCHEMA: SinkTableSchema = {
  columns: [
    { name: 'id', type: { kind: 'INT' }, nullable: false },
    { name: 'name', type: { kind: 'VARCHAR', length: 20 }, nullable: true },
  ],
  primaryKey: ['id'],
};
const ADD: SinkSchemaChange = { kind: 'add.column', column: { name: 'note', type: { kind: 'VARCHAR', length: 20 }, nullable: true } };

/** Runs the harness's mails until `done` holds; fails after `ms` (a change waiting on a lock would never get there). */
async function until(h: OperatorHarness, what: string, done: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    h.runMails();
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describeOnTargets('pipeline database sinks: a schema change while a prepared transaction holds its table', (targetName, target) => {
    test(`${targetName}: applied after the commit, once, with no lock wait`, async () => {
      const t: PipelineTarget = target();
      const table = { namespace: t.namespace, table: 'pending' };
      const rec = (op: RoutedChange['op'], after: Record<string, unknown> | null, change?: SinkSchemaChange, id?: string): RoutedChange => ({
        table,
        sourceTable: 'src.pending',
        op,
        before: null,
        after,
        ts: 1000 + Number(id?.split('@')[1] ?? 9),
        ...(change ? { schemaChange: { change, schema: change.kind === 'create.table' ? change.schema : evolveSchema(SCHEMA, change)!, id: id! } } : {}),
      });
      const op = new CommittingSinkOperator(t.sink({ schemaChangeBehavior: 'evolve', transactionIdPrefix: 'pend' }) as TwoPhaseCommittingSink<unknown, unknown>);
      const h = new OperatorHarness(op);
      await h.open();
      const checkpoint = async (id: number) => {
        op.prepareSnapshot(id, 'checkpoint');
        await op.snapshotAsync(id);
      };
      try {
        h.element(rec('ddl', null, { kind: 'create.table', schema: SCHEMA }, 'pending@0'));
        await checkpoint(1);
        op.notifyCheckpointComplete(1);
        await until(h, 'the table is created', async () => (await t.readSchema('pending')) !== undefined);

        h.element(rec('c', { id: 1, name: 'a' }));
        h.element(rec('c', { id: 2, name: 'b' }));
        await checkpoint(2);
        assert.equal((await t.prepared()).length, 1, 'checkpoint 2 is prepared and not committed');
        h.element(rec('ddl', null, ADD, 'pending@1'));
        h.element(rec('u', { id: 2, name: 'b', note: 'after' }));
        h.element(rec('c', { id: 3, name: 'c', note: 'new' }));
        h.runMails();
        const key = `${t.namespace}.pending`;
        assert.deepEqual(h.metrics.figures?.(), { [`schema_changes_held:${key}`]: 1, schema_change_outcomes: 1, 'schema_change_applied:src.pending': 1000 }, 'held; the create.table applied');

        // What the change would meet if it ran now: the prepared transaction's lock on the table.
        const blocked = (await t.alterWithLockTimeout(`ALTER TABLE ${t.namespace}.pending ADD COLUMN probe int`)) as { code?: string; errno?: number } | undefined;
        assert.ok(blocked && (blocked.code === '55P03' || blocked.errno === 1205), `an ALTER waits for the prepared transaction: ${String(blocked)}`);
        assert.deepEqual((await t.readSchema('pending'))!.columns.map((c) => c.name), ['id', 'name'], 'the change waits');

        // The change waits for the checkpoint after it (3); its completion commits 2 and 3, then releases it.
        await checkpoint(3);
        const started = Date.now();
        op.notifyCheckpointComplete(3);
        await until(h, 'the column is added', async () => (await t.readSchema('pending'))!.columns.some((c) => c.name === 'note'));
        const waited = Date.now() - started;
        // The writer notes the outcome once its DDL statement has answered (another connection may see the column a moment before).
        await until(h, 'the change reported applied', async () => h.metrics.figures?.()['schema_change_applied:src.pending'] === 1001);
        assert.deepEqual(h.metrics.figures?.(), { schema_change_outcomes: 1, 'schema_change_applied:src.pending': 1001 }, 'applied, nothing held');
        await checkpoint(4);
        op.notifyCheckpointComplete(4);
        await until(h, 'the rows after the change are committed', async () => (await t.rows('pending', ['id'])).length === 3);
        assert.deepEqual(await t.rows('pending', ['id', 'name', 'note']), ['1,a,null', '2,b,after', '3,c,new']);
        assert.deepEqual(await t.recordedChanges('pending'), ['pending@0', 'pending@1']);
        assert.deepEqual(await t.prepared(), []);
        assert.ok(waited < 5_000, `the change ran ${waited} ms after the commit was due`);
      } finally {
        await op.close();
      }
    });
});
