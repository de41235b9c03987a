// `weir pipeline FILE` runs a pipeline as `weir run` runs a job: a PostgreSQL source that reads
// the snapshot only (bounded), a route, a transform with a computed column and a filter, a print
// sink; the pipeline finishes, the command exits 0 with weir run's end line, and stdout holds the
// create.table and exactly the rows the transform makes of the table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weir } from '../fixtures/weir-process.ts';
import { serverLines } from '../fixtures/pipeline-yaml.ts';

test('weir pipeline FILE: a bounded PostgreSQL snapshot pipeline to print finishes and exits 0, its rows transformed; a projection naming a missing column is refused by --check and before a run', { timeout: 180_000 }, async () => {
  const dir = makeTempDir('pipeline-run');
  const server = await startPostgres();
  const sql = await connectPg(server);
  try {
    await sql.query('CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL)');
    await sql.query("INSERT INTO items SELECT i, 'item ' || i, i % 4 FROM generate_series(1, 30) i");
    const file = join(dir, 'p.yaml');
    writeFileSync(
      file,
      `source:
  type: postgres
${serverLines('postgres', server)}
  tables: public.items
  slot.name: pipeline_run_test
  scan.startup.mode: snapshot
sink:
  type: print
route:
  - source-table: public.items
    sink-table: out.items
transform:
  - source-table: public.items
    projection: id, UPPER(name) AS name, qty * 2 AS double_qty
    filter: qty > 1
pipeline:
  parallelism: 1
`,
    );
    const r = await weir(['pipeline', '-D', 'rest.port=0', file], {}, 120_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Job ID: [0-9a-f]{32}$/m);
    assert.match(r.stderr, /^Job [0-9a-f]{32} FINISHED in /m);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
    const ddl = lines.filter((l) => l['op'] === 'ddl');
    assert.equal(ddl.length, 1);
    assert.equal(ddl[0]!['table'], 'out.items');
    assert.deepEqual(ddl[0]!['schemaChange'].schema, {
      columns: [
        { name: 'id', type: { kind: 'INT' }, nullable: false },
        { name: 'name', type: { kind: 'STRING' }, nullable: true },
        { name: 'double_qty', type: { kind: 'INT' }, nullable: true },
      ],
      primaryKey: ['id'],
    });
    const rows = lines.filter((l) => l['op'] !== 'ddl').map((l) => JSON.stringify({ op: l['op'], table: `${l['source'].db}.${l['source'].table}`, after: l['after'] })).sort();
    const expected: string[] = [];
    for (let i = 1; i <= 30; i++) if (i % 4 > 1) expected.push(JSON.stringify({ op: 'r', table: 'out.items', after: { id: i, name: `ITEM ${i}`, double_qty: (i % 4) * 2 } }));
    assert.deepEqual(rows, expected.sort());
    assert.equal(rows.length, 15);

    // A projection naming a column the table lacks: --check (and a run) refuse it before anything
    // runs, at its line and column, having read the source's catalog.
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('qty * 2 AS double_qty', 'qty * 2 AS double_qty, price'));
    const checked = await weir(['pipeline', '--check', file]);
    assert.equal(checked.code, 1, checked.stderr);
    assert.equal(checked.stderr.split('\n')[0], `${file}:18:65: transform.projection: transform rule 1 (table public.items): projection 'id, UPPER(name) AS name, qty * 2 AS double_qty, price': unknown column 'price'`);
    const run = await weir(['pipeline', '-D', 'rest.port=0', file]);
    assert.equal(run.code, 1, run.stderr);
    assert.doesNotMatch(run.stdout, /Job ID/, 'nothing ran');
    writeFileSync(file, text);
    const good = await weir(['pipeline', '--check', file]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /checked against the source: 1 captured table, every transform compiles/);
  } finally {
    await sql.end();
    await server.stop();
    removeDir(dir);
  }
});
