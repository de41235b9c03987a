// Sink table names that hold a dot or a quote (a source table `odd.name` routed by its own name):
// the pipeline database sinks create them, read them back from the catalog and write their rows.
// PostgreSQL's describeTable split `public.odd.name` at its first dot and looked for table `odd`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TwoPhaseCommittingSink } from '../../../src/api/two-phase-committing-sink.ts';
import type { RoutedChange } from '../../../src/connectors/database-sink/routed-change.ts';
import type { SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { parseTableName } from '../../../src/connectors/postgres/pg-quote.ts';
import { CommittingSinkOperator } from '../../../src/worker/operators/committing-sink-operator.ts';
import { OperatorHarness } from '../../fixtures/operator-harness.ts';
import { describeOnTargets } from './pipeline-sink-targets.ts';

const SCHEMA: SinkTableSchema = {
  columns: [
    { name: 'id', type: { kind: 'INT' }, nullable: false },
    { name: 'name', type: { kind: 'VARCHAR', length: 20 }, nullable: true },
  ],
  primaryKey: ['id'],
};

test('parseTableName: plain and quoted parts, a dot or a quote inside quotes', () => {
  assert.deepEqual(parseTableName('orders'), { schema: 'public', table: 'orders' });
  assert.deepEqual(parseTableName('shop.orders'), { schema: 'shop', table: 'orders' });
  assert.deepEqual(parseTableName('shop."odd.name"'), { schema: 'shop', table: 'odd.name' });
  assert.deepEqual(parseTableName('"my.shop"."say ""hi"""'), { schema: 'my.shop', table: 'say "hi"' });
  assert.deepEqual(parseTableName('"Mixed"'), { schema: 'public', table: 'Mixed' });
  assert.throws(() => parseTableName('a.b.c'), /quote a part that holds a dot/);
  assert.throws(() => parseTableName('shop."odd'), /not closed/);
});

describeOnTargets('pipeline database sinks: table names with a dot or a quote', (targetName, target) => {
    for (const tableName of ['odd.name', 'say "hi"']) {
      test(`${targetName}: ${tableName} is created, described and written`, async () => {
        const t = target();
        const table = { namespace: t.namespace, table: tableName };
        const rec = (op: RoutedChange['op'], after: Record<string, unknown> | null, schemaChange?: RoutedChange['schemaChange']): RoutedChange => ({ table, sourceTable: `src.${tableName}`, op, before: null, after, ...(schemaChange ? { schemaChange } : {}) });
        const op = new CommittingSinkOperator(t.sink({ schemaChangeBehavior: 'evolve', transactionIdPrefix: `names${tableName.length}` }) as TwoPhaseCommittingSink<unknown, unknown>);
        const h = new OperatorHarness(op);
        await h.open();
        try {
          h.element(rec('ddl', null, { change: { kind: 'create.table', schema: SCHEMA }, schema: SCHEMA, id: `${tableName}@0` }));
          h.element(rec('c', { id: 1, name: 'a' }));
          h.element(rec('c', { id: 2, name: 'b' }));
          // A bounded input's end: the held create and its rows are written and committed at finish.
          await op.endInput();
          await op.finish();
          assert.deepEqual(await t.rows(tableName, ['id', 'name']), ['1,a', '2,b']);
          assert.deepEqual(await t.prepared(), []);
        } finally {
          await op.close();
        }
      });
    }
});
