// The bound of a process's wait for NATS at start: with nothing to wait for, a TaskManager gives
// up after high-availability.nats.startup-timeout, naming the servers and what it waited for. The
// wait itself, with a fresh 3-node NATS cluster forming while a JobManager and a TaskManager start
// and a job run to its end, is in ha-startup.long.test.ts (test:long).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { spawnWeir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';
import { msgOf } from '../fixtures/process-log.ts';

let root: string;
const processes: WeirProcess[] = [];
before(() => {
  root = makeTempDir('ha-startup-bound');
});
after(() => {
  for (const p of processes) p.kill();
  removeDir(root);
});

/** The log lines of a process that say it waits for NATS: each with its attempt and the next delay. */
const waits = (p: WeirProcess) => p.log.filter((l) => msgOf(l).startsWith('waiting for NATS'));

function start(args: readonly string[], dir: string): WeirProcess {
  mkdirSync(dir, { recursive: true });
  const p = spawnWeir(args, weirEnv(root), { cwd: dir });
  processes.push(p);
  return p;
}

test('with no NATS to wait for, a TaskManager gives up after high-availability.nats.startup-timeout, naming the servers and what it waited for', { timeout: 60_000 }, async () => {
  // A port that accepts connections and never speaks NATS: connecting times out each attempt.
  const silent: Server = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const servers = `nats://127.0.0.1:${(silent.address() as { port: number }).port}`;
  try {
    const tm = start(['taskmanager', '--id', 'tm-t', '--work-dir', join(root, 'tm-t'), '-D', 'high-availability.type=nats', '-D', `high-availability.nats.servers=${servers}`, '-D', 'high-availability.nats.startup-timeout=3 s', '-D', 'high-availability.nats.connect-timeout=500 ms'], join(root, 'tm-t'));
    const code = await tm.finished(30_000);
    assert.notEqual(code, 0);
    assert.ok(waits(tm).length > 0, `it waited:\n${tm.tail()}`);
    const text = tm.lines.join('\n');
    assert.match(text, /high-availability\.nats\.startup-timeout/, text);
    assert.match(text, new RegExp(servers.replace(/[.]/g, '\\.')));
  } finally {
    silent.close();
  }
});
