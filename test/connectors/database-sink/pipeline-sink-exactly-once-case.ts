// Exactly-once into a pipeline database sink (PostgreSQL, MariaDB): a job writes RoutedChange
// records of three tables (snapshot reads, inserts, updates, deletes) with a schema change of one
// table in the middle, keyed by sink table, with 5 injected failures. Each target table must equal
// the changes applied in order here, row for row; the change applied exactly once (recorded once
// in weir_schema_changes, no duplicate-column failure among the restarts); no prepared
// transaction left and no checkpoint expired.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { startPostgres } from '../../fixtures/postgres-server.ts';
import { startMariaDb } from '../../fixtures/mariadb-server.ts';
import { CHANGE_ID, WORKLOAD_TABLES, expectedTables } from '../../fixtures/routed-change-workload.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'routed-changes-to-database.ts');
const TOTAL = 12_000;

interface Db {
  readonly port: number;
  readonly password: string;
  /** Rows of a table as `id,v,label[,extra]`, sorted by id. */
  rows(table: string): Promise<string[]>;
  columns(table: string): Promise<string[]>;
  recorded(): Promise<string[]>;
  prepared(): Promise<string[]>;
  stop(): Promise<void>;
}

async function postgresDb(): Promise<Db> {
  const server = await startPostgres();
  const c = new pg.Client(server.connectionOptions());
  await c.connect();
  const q = async (s: string, p?: unknown[]) => (await c.query(s, p)).rows as Array<Record<string, unknown>>;
  return {
    port: server.port,
    password: server.password,
    rows: async (t) => (await q(`SELECT * FROM public.${t} ORDER BY id`)).map((r) => Object.values(r).map((v) => (v === null ? 'null' : String(v))).join(',')),
    columns: async (t) => (await q('SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position', ['public', t])).map((r) => String(r.column_name)),
    recorded: async () => (await q('SELECT change_id FROM public.weir_schema_changes ORDER BY change_id')).map((r) => String(r.change_id)),
    prepared: async () => (await q('SELECT gid FROM pg_prepared_xacts')).map((r) => String(r.gid)),
    stop: async () => {
      await c.end().catch(() => {});
      await server.stop();
    },
  };
}

async function mariaDb(): Promise<Db> {
  const server = await startMariaDb();
  const c = await mysql.createConnection(server.connectionOptions());
  await c.query('CREATE DATABASE sinkdb');
  const q = async (s: string, p?: unknown[]) => (await c.query(s, p))[0] as Array<Record<string, unknown>>;
  return {
    port: server.port,
    password: server.password,
    rows: async (t) => (await q(`SELECT * FROM sinkdb.${t} ORDER BY id`)).map((r) => Object.values(r).map((v) => (v === null ? 'null' : String(v))).join(',')),
    columns: async (t) => (await q('SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION', ['sinkdb', t])).map((r) => String(r.c)),
    recorded: async () => (await q('SELECT change_id FROM sinkdb.weir_schema_changes ORDER BY change_id')).map((r) => String(r.change_id)),
    prepared: async () => (await q('XA RECOVER')).map((r) => String(r.data)),
    stop: async () => {
      await c.end().catch(() => {});
      await server.stop();
    },
  };
}

/** The scenario on one target; each target's in a test file of its own (one process each). */
export function pipelineSinkExactlyOnce(only: 'postgres' | 'mysql'): void {
describe('pipeline database sinks exactly-once, with a schema change mid-run', () => {
  let root: string;
  before(() => {
    root = makeTempDir('pipeline-sink-eo');
  });
  after(() => removeDir(root));

  for (const [target, start] of [
    ['postgres', postgresDb],
    ['mysql', mariaDb],
  ] as const) {
    if (target !== only) continue;
    test(`${target}: 5 injected failures; tables equal the changes applied in order; the change applied once; no checkpoint expired`, { timeout: 300_000 }, async (t) => {
      const db = await start();
      try {
        const events = new JobEvents();
        const result = await executeJob({
          job: JOB,
          args: ['--target', target, '--port', String(db.port), '--password', db.password, '--total', String(TOTAL), '--rate', '4000', '--checkpoint-interval', '100', '--checkpoint-timeout', '20 s'],
          config: {
            'parallelism.default': 2,
            'execution.checkpointing.dir': join(root, target),
            'restart-strategy.type': 'fixed-delay',
            'restart-strategy.fixed-delay.attempts': 60,
            'restart-strategy.fixed-delay.delay': '200 ms',
          },
          faults: { failures: 5, seed: 17, minRecords: 800, maxRecords: 3000 },
          listener: events.listener,
          log: createLogger({ level: 'error', write: () => {} }),
        });
        assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
        assert.equal(result.injectedFailures, 5);
        assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
        const causes = events.restarts.map((r) => r.cause);
        // Every restart is an injected one: none from the schema change (a duplicate column, a table that exists) or a lock wait.
        assert.deepEqual(causes.filter((c) => !c.startsWith('InjectedFailure')), [], 'restarts not injected');
        const expired = events.failed.filter((f) => /expired/i.test(`${f.reason} ${JSON.stringify(f.failure)}`));
        assert.deepEqual(expired.map((f) => f.id), [], 'no checkpoint expired');

        const expected = expectedTables(TOTAL);
        let compared = 0;
        for (const name of WORKLOAD_TABLES) {
          const table = `t_${name}`;
          const rows = await db.rows(table);
          assert.equal(rows.length, expected.get(table)!.length, `${table}: ${rows.length} rows for ${expected.get(table)!.length}`);
          assert.deepEqual(rows, expected.get(table), table);
          compared += rows.length;
        }
        assert.ok(compared > 300, `compared ${compared} rows`);
        assert.deepEqual(await db.columns('t_b'), ['id', 'v', 'label', 'extra']);
        assert.deepEqual(await db.columns('t_a'), ['id', 'v', 'label']);
        assert.deepEqual(await db.recorded(), [CHANGE_ID, 'src.a@create', 'src.b@create', 'src.c@create'].sort(), 'each change recorded once');
        assert.deepEqual(await db.prepared(), []);
        t.diagnostic(`${target}: ${compared} rows compared; ${events.completed.length} checkpoints completed, ${events.failed.length} failed (${[...new Set(events.failed.map((f) => f.reason.slice(0, 60)))].join(' | ')}), ${events.restarts.length} restarts, ${events.restored.length} restores`);
      } finally {
        await db.stop();
      }
    });
  }
});
}
