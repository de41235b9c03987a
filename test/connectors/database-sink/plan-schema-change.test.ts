// Schema-change planning without a database: behaviours, include/exclude tags, lenient rewriting,
// and planning against the table as it is (shards bringing the same change, replays).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptedSchemaChanges, unknownSchemaChangeTags } from '../../../src/connectors/database-sink/schema-change-behavior.ts';
import { planSchemaChange, type SchemaChangeContext } from '../../../src/connectors/database-sink/plan-schema-change.ts';
import { SchemaChangeRefusedError } from '../../../src/connectors/database-sink/schema-change-refused-error.ts';
import { evolveSchema, type SinkSchemaChange, type SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';

const INT = { kind: 'INT' } as const;
const TEXT = { kind: 'STRING' } as const;
const table: SinkTableSchema = {
  columns: [
    { name: 'id', type: INT, nullable: false },
    { name: 'name', type: TEXT, nullable: false },
    { name: 'note', type: TEXT, nullable: true },
  ],
  primaryKey: ['id'],
};
const ctx = (behavior: SchemaChangeContext['behavior'], filter?: SchemaChangeContext['filter']): SchemaChangeContext => ({ target: 'postgres 127.0.0.1:5432/db', table: 'public.orders', behavior, filter });
const kinds = (s: ReadonlySet<string>) => [...s].sort();

describe('acceptedSchemaChanges', () => {
  test('each behaviour with no filter', () => {
    assert.deepEqual(kinds(acceptedSchemaChanges('evolve')), ['add.column', 'alter.column.type', 'create.table', 'drop.column', 'drop.table', 'rename.column', 'truncate.table']);
    assert.deepEqual(kinds(acceptedSchemaChanges('try_evolve')), kinds(acceptedSchemaChanges('evolve')));
    assert.deepEqual(kinds(acceptedSchemaChanges('lenient')), ['add.column', 'alter.column.type', 'create.table', 'drop.column', 'rename.column']);
    assert.deepEqual(kinds(acceptedSchemaChanges('ignore')), ['create.table']);
    assert.deepEqual(kinds(acceptedSchemaChanges('exception')), ['create.table']);
  });

  test("Flink CDC's families: 'column', 'drop', 'table'; exclude wins; an include brings create.table", () => {
    assert.deepEqual(kinds(acceptedSchemaChanges('evolve', { include: ['column'], exclude: ['drop.column'] })), ['add.column', 'alter.column.type', 'create.table', 'rename.column']);
    assert.deepEqual(kinds(acceptedSchemaChanges('evolve', { exclude: ['drop'] })), ['add.column', 'alter.column.type', 'create.table', 'rename.column', 'truncate.table']);
    assert.deepEqual(kinds(acceptedSchemaChanges('evolve', { include: ['add.column'], exclude: ['create'] })), ['add.column']);
    assert.deepEqual(kinds(acceptedSchemaChanges('evolve', { include: ['table'] })), ['create.table', 'drop.table', 'truncate.table']);
  });

  test('lenient with an explicit exclude list sends truncate and drop (FLINK-36514)', () => {
    assert.deepEqual(kinds(acceptedSchemaChanges('lenient', { exclude: ['rename'] })), ['add.column', 'alter.column.type', 'create.table', 'drop.column', 'drop.table', 'truncate.table']);
  });

  test('unknown tags are reported', () => {
    assert.deepEqual(unknownSchemaChangeTags(['add.column', 'column', 'drop', 'all', 'add.colum', 'tables']), ['add.colum', 'tables']);
  });
});

describe('planSchemaChange', () => {
  const add: SinkSchemaChange = { kind: 'add.column', column: { name: 'qty', type: INT, nullable: false }, after: 'id' };
  const drop: SinkSchemaChange = { kind: 'drop.column', column: 'name' };
  const rename: SinkSchemaChange = { kind: 'rename.column', from: 'name', to: 'title' };
  const retype: SinkSchemaChange = { kind: 'alter.column.type', column: 'id', type: { kind: 'BIGINT' }, nullable: false };

  test('evolve applies each change as it is', () => {
    for (const c of [add, drop, rename, retype, { kind: 'truncate.table' } as const, { kind: 'drop.table' } as const]) {
      assert.deepEqual(planSchemaChange(table, c, ctx('evolve')).apply, [c]);
    }
  });

  test('lenient: added columns nullable and last, a dropped column stays (nullable), a rename adds beside the old', () => {
    assert.deepEqual(planSchemaChange(table, add, ctx('lenient')).apply, [{ kind: 'add.column', column: { name: 'qty', type: INT, nullable: true } }]);
    assert.deepEqual(planSchemaChange(table, drop, ctx('lenient')).apply, [{ kind: 'alter.column.type', column: 'name', type: TEXT, nullable: true }]);
    assert.deepEqual(planSchemaChange(table, { kind: 'drop.column', column: 'note' }, ctx('lenient')), { apply: [], skipped: 'the table already has it' });
    assert.deepEqual(planSchemaChange(table, rename, ctx('lenient')).apply, [
      { kind: 'add.column', column: { name: 'title', type: TEXT, nullable: true } },
      { kind: 'alter.column.type', column: 'name', type: TEXT, nullable: true },
    ]);
    assert.deepEqual(planSchemaChange(table, retype, ctx('lenient')).apply, [retype]);
    assert.equal(planSchemaChange(table, { kind: 'truncate.table' }, ctx('lenient')).apply.length, 0);
  });

  test('exception refuses every change but create.table, naming table and kind; ignore skips them', () => {
    assert.throws(() => planSchemaChange(table, add, ctx('exception')), (e: unknown) => e instanceof SchemaChangeRefusedError && e.unrecoverable && e.kind === 'add.column' && /public\.orders/.test(e.message));
    assert.deepEqual(planSchemaChange(undefined, { kind: 'create.table', schema: table }, ctx('exception')).apply, [{ kind: 'create.table', schema: table }]);
    assert.match(planSchemaChange(table, add, ctx('ignore')).skipped!, /ignore/);
  });

  test('against the table: a change it shows already is nothing; a second shard creating the table adds its extra columns', () => {
    const after = evolveSchema(table, add)!;
    assert.deepEqual(after.columns.map((c) => c.name), ['id', 'qty', 'name', 'note']);
    assert.deepEqual(planSchemaChange(after, add, ctx('evolve')).apply, []);
    assert.deepEqual(planSchemaChange(evolveSchema(table, rename), rename, ctx('evolve')).apply, []);
    assert.deepEqual(planSchemaChange(evolveSchema(table, retype), retype, ctx('evolve')).apply, []);
    const shard: SinkTableSchema = { columns: [...table.columns, { name: 'region', type: TEXT, nullable: false }], primaryKey: ['id'] };
    assert.deepEqual(planSchemaChange(table, { kind: 'create.table', schema: shard }, ctx('evolve')).apply, [{ kind: 'add.column', column: { name: 'region', type: TEXT, nullable: true } }]);
    assert.deepEqual(planSchemaChange(undefined, add, ctx('evolve')).apply, []);
  });
});
