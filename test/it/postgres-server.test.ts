import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { startPostgres } from '../fixtures/postgres-server.ts';

test('a private PostgreSQL starts with logical decoding and prepared transactions, survives a restart, and stops', async () => {
  const server = await startPostgres();
  try {
    const client = new pg.Client(server.connectionOptions());
    await client.connect();
    const settings = await client.query(`SELECT name, setting FROM pg_settings WHERE name IN ('wal_level', 'max_prepared_transactions', 'port') ORDER BY name`);
    assert.deepEqual(
      settings.rows.map((r) => `${r.name}=${r.setting}`),
      ['max_prepared_transactions=64', `port=${server.port}`, 'wal_level=logical'],
    );
    await client.query('CREATE TABLE t (id int primary key, v text)');
    await client.query(`SELECT pg_create_logical_replication_slot('s', 'pgoutput')`);
    await client.end();

    await server.restart();
    const again = new pg.Client(server.connectionOptions());
    await again.connect();
    const slots = await again.query(`SELECT slot_name, plugin FROM pg_replication_slots`);
    assert.deepEqual(slots.rows, [{ slot_name: 's', plugin: 'pgoutput' }]);
    await again.end();
  } finally {
    await server.stop();
  }
  assert.equal(existsSync(server.dataDir), false, 'the data directory is removed at stop');
});

test('a test process that dies leaves no private PostgreSQL behind', async () => {
  const script = `
    import { startPostgres } from ${JSON.stringify(new URL('../fixtures/postgres-server.ts', import.meta.url).pathname)};
    const s = await startPostgres();
    console.log(JSON.stringify({ dataDir: s.dataDir, port: s.port }));
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`child exited ${code} before starting the server`)));
  });
  const { dataDir, port } = JSON.parse(line) as { dataDir: string; port: number };
  assert.equal(existsSync(dataDir), true);
  child.kill('SIGKILL');
  // The wrapper sees end of file on its pipe, stops the server and removes the directory.
  const deadline = Date.now() + 30_000;
  while (existsSync(dataDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(existsSync(dataDir), false, `the data directory ${dataDir} is removed after the test process died`);
  const probe = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres', connectionTimeoutMillis: 1000 });
  probe.on('error', () => {});
  await assert.rejects(probe.connect(), 'nothing listens on the port any more');
});
