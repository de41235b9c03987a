// `weir pipeline FILE -m JM`: the pipeline goes to a cluster as a job bundle with the file's text in
// its arguments (the TaskManager's working directory holds no pipeline file), runs there, and the
// attached command follows it to FINISHED (exit 0). A bounded PostgreSQL snapshot into files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { weir } from '../fixtures/weir-process.ts';
import { serverLines } from '../fixtures/pipeline-yaml.ts';

test('weir pipeline -m: a pipeline runs on a cluster and the command exits 0 when it finished; its committed rows are the transformed table', { timeout: 240_000 }, async () => {
  const root = makeTempDir('pipeline-cluster');
  const server = await startPostgres();
  const sql = await connectPg(server);
  const cluster = new TestCluster({ root });
  try {
    await sql.query('CREATE TABLE items (id int PRIMARY KEY, qty int NOT NULL)');
    await sql.query('INSERT INTO items SELECT i, i % 3 FROM generate_series(1, 50) i');
    await cluster.startJobManager();
    await cluster.startTaskManager({ slots: 2 });
    const out = join(root, 'out');
    const file = join(root, 'client', 'p.yaml');
    mkdirSync(join(root, 'client'));
    writeFileSync(
      file,
      `source:
  type: postgres
${serverLines('postgres', server)}
  tables: public.items
  slot.name: pipeline_cluster_test
  scan.startup.mode: snapshot
sink:
  type: files
  path: ${out}
transform:
  - source-table: public.items
    projection: id, qty + 100 AS q
    filter: qty <> 0
pipeline:
  parallelism: 1
  execution.checkpointing.interval: 1 s
`,
    );
    const r = await weir(['pipeline', '-m', cluster.address, file], cluster.env, 180_000);
    assert.equal(r.code, 0, `${r.stderr}\n${cluster.jobManager!.tail()}`);
    const lines = readdirSync(out).filter((n) => n.startsWith('part-')).flatMap((n) => readFileSync(join(out, n), 'utf8').split('\n')).filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, any>);
    const rows = lines.filter((l) => l['op'] === 'r').map((l) => JSON.stringify(l['after'])).sort();
    const expected: string[] = [];
    for (let i = 1; i <= 50; i++) if (i % 3 !== 0) expected.push(JSON.stringify({ id: i, q: (i % 3) + 100 }));
    assert.deepEqual(rows, expected.sort());
    assert.equal(lines.filter((l) => l['op'] === 'ddl').length, 1);
  } finally {
    cluster.killAll();
    await sql.end();
    await server.stop();
    removeDir(root);
  }
});
