// Schema changes through a real job (includeSchemaChanges): MariaDB CDC -> records described as
// lines -> the transactional FileSink, with the job failing once on a DDL record and once on the
// first row after another change, so it restores from real checkpoints (the state serializer, the
// log split's schemas). The committed lines must be exactly the snapshot, each DDL once and every
// row with the schema version and columns it was written with.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, defineJob } from '../../src/index.ts';
import { FileSink, onCheckpointRollingPolicy } from '../../src/connectors/file/index.ts';
import { MySqlCdcSource, type ChangeRecord } from '../../src/connectors/mysql/index.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, type Sql } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { describeRecord } from '../fixtures/cdc-schema-scenario.ts';

const ROWS = 2000;
const PER_STEP = 100;

let server: MariaDbServer;
let sql: Sql;
let root: string;
before(async () => {
  server = await startMariaDb();
  sql = await connect(server);
  await sql.query('SET GLOBAL binlog_row_metadata = FULL');
  root = makeTempDir('cdc-schema-job');
});
after(async () => {
  await sql?.end();
  await server?.stop();
  removeDir(root);
});

const inserts = (first: number, n: number, columns: string, row: (i: number) => string) => `INSERT INTO items (${columns}) VALUES ${Array.from({ length: n }, (_, k) => `(${row(first + k)})`).join(', ')}`;

test('a CDC job with includeSchemaChanges failing on a DDL record and after a change commits each DDL once and every row by its schema', { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)');
  await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
  await sql.query(inserts(1, ROWS, 'id, name, qty', (i) => `${i}, 'n${i}', ${i}`));
  const output = join(root, 'output');
  const injected = new Set<string>();
  /** Fails the job the first time it sees a record so described. */
  const failOnce = (line: string, when: RegExp) => {
    if (when.test(line) && !injected.has(when.source)) {
      injected.add(when.source);
      throw new Error(`injected failure at ${line}`);
    }
  };
  const source = new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables: ['items', 'markers'], serverId: '6300-6301', chunkSize: 300, includeSchemaChanges: true });
  const events = new JobEvents();
  const job = await createJobMaster({
    job: defineJob((env) => {
      env.enableCheckpointing(100);
      env
        .fromSource(source, { name: 'Source: cdc', uid: 'cdc' })
        .map(
          (r: ChangeRecord) => {
            const line = describeRecord(r);
            failOnce(line, /^ddl items add\.column/);
            failOnce(line, /^c items v2 /);
            // The binlog offset: the committed lines are read back sorted, this orders them.
            return r.source.snapshot ? line : `${line} @${String(r.source.pos).padStart(12, '0')}`;
          },
          { name: 'Describe' },
        )
        .sinkTo(new FileSink<string>(output, { rollingPolicy: onCheckpointRollingPolicy() }), { name: 'Sink: files', uid: 'sink' });
    }),
    config: { 'parallelism.default': 1, 'execution.checkpointing.dir': join(root, 'checkpoints'), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 10, 'restart-strategy.fixed-delay.delay': '50 ms' },
    listener: events.listener,
    log: createLogger({ level: 'error' }),
  });
  const running = job.run();
  const committed = (what: string, done: (lines: string[]) => boolean) =>
    new Promise<string[]>((resolve, reject) => {
      events.onCompleted = () => {
        const lines = readCommittedLines(output);
        if (done(lines)) resolve(lines);
      };
      void job.result().then((r) => reject(new Error(`job ended (${r.status}) before ${what}: ${r.error?.message}`)));
    });
  const marker = (id: number) => committed(`marker ${id}`, (lines) => lines.some((l) => l.startsWith(`c markers v0 {id=${id}} @`)));
  try {
    await committed('the snapshot', (lines) => lines.filter((l) => l.startsWith('r items')).length === ROWS);
    // The log phase is open (its schemas taken) once a change after the snapshot is committed.
    await sql.query('INSERT INTO markers VALUES (1)');
    await marker(1);
    let next = ROWS + 1;
    const step = async (ddl: string, columns: string, row: (i: number) => string) => {
      await sql.query(ddl);
      await sql.query(inserts(next, PER_STEP, columns, row));
      next += PER_STEP;
    };
    await step('ALTER TABLE items ADD COLUMN note VARCHAR(10)', 'id, name, qty, note', (i) => `${i}, 'n${i}', ${i}, 'x${i}'`);
    await step('ALTER TABLE items RENAME COLUMN name TO title', 'id, title, qty, note', (i) => `${i}, 't${i}', ${i}, 'x${i}'`);
    await step('ALTER TABLE items MODIFY COLUMN qty BIGINT', 'id, title, qty, note', (i) => `${i}, 't${i}', ${i * 1_000_000_000}, 'x${i}'`);
    await step('ALTER TABLE items DROP COLUMN note', 'id, title, qty', (i) => `${i}, 't${i}', ${i}`);
    await sql.query('INSERT INTO markers VALUES (2)');
    const placed = await marker(2);
    const lines = placed.map((l) => l.replace(/ @\d+$/, ''));
    const pos = (line: string) => Number(placed.find((l) => l.startsWith(`${line} @`))?.split(' @')[1]);

    const expected: string[] = ['c markers v0 {id=1}', 'c markers v0 {id=2}'];
    for (let i = 1; i <= ROWS; i++) expected.push(`r items vundefined {id=${i},name=n${i},qty=${i}}`);
    const steps = [
      ['ddl items add.column v1 [id,name,qty,note]', (i: number) => `c items v1 {id=${i},name=n${i},qty=${i},note=x${i}}`],
      ['ddl items rename.column v2 [id,title,qty,note]', (i: number) => `c items v2 {id=${i},title=t${i},qty=${i},note=x${i}}`],
      ['ddl items alter.column.type v3 [id,title,qty,note]', (i: number) => `c items v3 {id=${i},title=t${i},qty=${i * 1_000_000_000},note=x${i}}`],
      ['ddl items drop.column v4 [id,title,qty]', (i: number) => `c items v4 {id=${i},title=t${i},qty=${i}}`],
    ] as const;
    steps.forEach(([ddl, row], s) => {
      expected.push(ddl);
      for (let k = 0; k < PER_STEP; k++) expected.push(row(ROWS + 1 + s * PER_STEP + k));
    });
    assert.deepEqual([...lines].sort(), expected.sort(), 'the committed lines');
    // In binlog order: each DDL after the rows of the version before it and before its own rows.
    steps.forEach(([ddl, row], s) => {
      const first = ROWS + 1 + s * PER_STEP;
      assert.ok(pos(ddl) < pos(row(first)), `${ddl} before its rows`);
      if (s > 0) assert.ok(pos(steps[s - 1]![1](first - 1)) < pos(ddl), `${ddl} after the rows before it`);
    });
    assert.equal(injected.size, 2, 'both failures were injected');
    assert.ok(events.restored.length >= 2, events.describe());
  } finally {
    await job.cancel();
    await running;
  }
});
