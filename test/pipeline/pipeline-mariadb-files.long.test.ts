// `weir pipeline FILE` end to end on a private MariaDB: shards orders_1 and orders_2 merged into
// shop.orders by one route, customers renamed to shop.clients by another, a transform with a
// computed column (price * quantity) and a filter (status <> 'test' AND quantity > 0), files sink
// in debezium-json. After the snapshot, inserts, updates (into and out of the filter) and deletes,
// an ADD COLUMN on orders_1 and rows with it. The committed output is compared record for record
// with the changes computed in JS from what the test wrote: the snapshot's rows as a set, every
// later change in order per sink table, and the schema changes (create.table per source table,
// then the add.column) where they belong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { createShop, expectedChange, money, transformed, type Order, type Row } from '../fixtures/pipeline-shop.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';

test('weir pipeline: MariaDB shards merged and transformed into files, record for record, with an ADD COLUMN mid-run', { timeout: 240_000 }, async () => {
  const dir = makeTempDir('pipeline-mariadb');
  const server = await startMariaDb();
  const sql = await connect(server, 'mysql');
  const out = join(dir, 'out');
  let weir: ReturnType<typeof spawnWeir> | undefined;
  try {
    const { tables, file } = await createShop(sql, server, dir, out);
    weir = spawnWeir(['pipeline', '-D', 'rest.port=0', file]);
    await weir.waitFor('the binlog followed', (r) => (r.lines.some((l) => l.includes('following the binlog')) ? true : undefined), 90_000);

    // Expected: the snapshot (a set per sink table), then every change in the order the binlog has it.
    const snapshot: string[] = [];
    for (const [shard, rows] of Object.entries(tables)) for (const o of rows.values()) {
      const a = transformed(shard, o, false);
      if (a) snapshot.push(JSON.stringify({ table: 'shop.orders', op: 'r', before: null, after: a }));
    }
    snapshot.push(JSON.stringify({ table: 'shop.clients', op: 'r', before: null, after: { id: 1, name: 'ann' } }), JSON.stringify({ table: 'shop.clients', op: 'r', before: null, after: { id: 2, name: 'bob' } }));
    const log: string[] = [];
    let hasNote = false;
    const write = async (shard: string, before: Order | null, after: Order | null) => {
      if (after && !before) await sql.query(`INSERT INTO ${shard} (id, status, price, quantity${hasNote && shard === 'orders_1' ? ', note' : ''}) VALUES (?, ?, ?, ?${hasNote && shard === 'orders_1' ? ', ?' : ''})`, [after.id, after.status, money(after.cents), after.quantity, after.note ?? null]);
      else if (after) await sql.query(`UPDATE ${shard} SET status = ?, price = ?, quantity = ? WHERE id = ?`, [after.status, money(after.cents), after.quantity, after.id]);
      else await sql.query(`DELETE FROM ${shard} WHERE id = ?`, [before!.id]);
      if (after) tables[shard]!.set(after.id, after);
      else tables[shard]!.delete(before!.id);
      const c = expectedChange(shard, before, after, hasNote && shard === 'orders_1');
      if (c) log.push(c);
    };
    const step = async (shard: string, i: number) => {
      const rows = tables[shard]!;
      const id = 1 + ((i * 7) % 30);
      const was = rows.get(id) ?? null;
      if (!was) return write(shard, null, { id, status: i % 6 === 0 ? 'test' : 'ok', cents: 1000 + i, quantity: 1 + (i % 3), note: hasNote ? `n${i}` : undefined });
      if (i % 5 === 0) return write(shard, was, null);
      // Updates move rows into and out of the filter (quantity 0, status 'test').
      return write(shard, was, { ...was, cents: was.cents + 1, quantity: i % 4, status: i % 9 === 0 ? 'test' : 'ok' });
    };
    for (let i = 1; i <= 40; i++) await step(i % 2 ? 'orders_1' : 'orders_2', i);
    await sql.query('ALTER TABLE orders_1 ADD COLUMN note VARCHAR(20)');
    hasNote = true;
    const addColumnAt = log.length;
    for (let i = 41; i <= 80; i++) await step(i % 2 ? 'orders_1' : 'orders_2', i);
    await sql.query("UPDATE customers SET name = 'carl' WHERE id = 2");
    log.push(JSON.stringify({ table: 'shop.clients', op: 'u', before: { id: 2, name: 'bob' }, after: { id: 2, name: 'carl' } }));

    // The committed output, once it holds the last change.
    const committed = () => (existsSync(out) ? readdirSync(out).filter((n) => n.startsWith('part-')).sort((a, b) => Number(a.split('-').pop()) - Number(b.split('-').pop())).flatMap((n) => readFileSync(join(out, n), 'utf8').split('\n').filter((l) => l !== '')) : []);
    const deadline = Date.now() + 60_000;
    while (!committed().some((l) => l.includes('"carl"'))) {
      assert.ok(Date.now() < deadline, `the last change was not committed in 60 s:\n${weir.tail()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const lines = committed().map((l) => JSON.parse(l) as Row);

    const ddl = lines.filter((l) => l['op'] === 'ddl');
    assert.deepEqual(
      ddl.map((l) => `${l['sourceTable']}>${l['table']} ${(l['schemaChange'] as { change: { kind: string } }).change.kind}`).sort(),
      ['shop.customers>shop.clients create.table', 'shop.orders_1>shop.orders add.column', 'shop.orders_1>shop.orders create.table', 'shop.orders_2>shop.orders create.table'],
    );
    const add = ddl.find((l) => (l['schemaChange'] as { change: { kind: string } }).change.kind === 'add.column')!['schemaChange'] as { change: unknown; id: string; schema: { columns: { name: string }[] } };
    assert.deepEqual(add.change, { kind: 'add.column', column: { name: 'note', type: { kind: 'VARCHAR', length: 20 }, nullable: true }, after: 'quantity' });
    assert.match(add.id, /^binlog\.\d+:\d+#0\.0 shop\.orders_1>shop\.orders$/);
    assert.deepEqual(add.schema.columns.map((c) => c.name), ['id', 'status', 'price', 'quantity', 'note', 'total', 'shard']);

    // Rows: debezium-json, the sink table as source.db.table.
    const rows = lines.filter((l) => l['op'] !== 'ddl').map((l) => ({ table: `${(l['source'] as Row)['db']}.${(l['source'] as Row)['table']}`, op: l['op'] as string, before: l['before'], after: l['after'] }));
    const actualSnapshot = rows.filter((r) => r.op === 'r').map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(actualSnapshot, [...snapshot].sort(), 'the snapshot, as a set');
    const actualLog = rows.filter((r) => r.op !== 'r');
    const expectedLog = log.map((l) => JSON.parse(l) as Row).map((c) => ({ table: (c['table'] as string | undefined) ?? 'shop.orders', op: c['op'], before: c['before'], after: c['after'] }));
    assert.deepEqual(actualLog.map((r) => JSON.stringify(r)), expectedLog.map((r) => JSON.stringify(r)), 'every change after the snapshot, in order');
    assert.ok(expectedLog.length > 60, `compared ${expectedLog.length} changes`);
    // The add.column comes after the changes before the ALTER and before those after it.
    const ddlIndex = lines.findIndex((l) => l['op'] === 'ddl' && (l['schemaChange'] as { change: { kind: string } }).change.kind === 'add.column');
    const logLines = lines.map((l, i) => ({ l, i })).filter(({ l }) => l['op'] !== 'ddl' && l['op'] !== 'r');
    assert.ok(logLines[addColumnAt - 1]!.i < ddlIndex && ddlIndex < logLines[addColumnAt]!.i, 'the add.column sits between the changes around the ALTER');
    process.stderr.write(`pipeline long test: ${actualSnapshot.length} snapshot rows, ${actualLog.length} later changes, ${ddl.length} schema changes compared\n`);
  } finally {
    weir?.kill();
    await sql.end();
    await server.stop();
    removeDir(dir);
  }
});
