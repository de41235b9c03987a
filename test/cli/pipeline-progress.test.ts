// `weir pipeline FILE` on a terminal (a pseudo-terminal from util-linux's `script`) shows the live
// progress line of `weir run` with the pipeline's figures: tables snapshotted of all and rows, the
// changes read, and after an ALTER TABLE the last schema change (kind, table, time, state). Ctrl-C
// on the terminal cancels the pipeline as it cancels a job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { createShop } from '../fixtures/pipeline-shop.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { WEIR_BIN, weirEnv } from '../fixtures/weir-process.ts';

const SCRIPT = '/usr/bin/script';

test('weir pipeline on a terminal: a progress line with tables snapshotted, changes and the last schema change', { skip: existsSync(SCRIPT) ? false : `${SCRIPT} is missing (util-linux): the test needs a pseudo-terminal`, timeout: 120_000 }, async () => {
  const dir = makeTempDir('pipeline-progress');
  const server = await startMariaDb();
  const sql = await connect(server, 'mysql');
  try {
    const { file } = await createShop(sql, server, dir, join(dir, 'out'));
    // A wide terminal, so that the line is not cut before its end.
    const command = `stty cols 400; exec ${process.execPath} ${WEIR_BIN} pipeline -D rest.port=0 ${file}`;
    const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: weirEnv(dir) });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    /** The newest progress line (the terminal's line is redrawn after a carriage return). */
    const line = () => out.split(/[\r\n]/).filter((l) => l.includes('RUNNING')).at(-1)?.replace(/\x1b\[2K/g, '') ?? '';
    const waitFor = async (what: string, re: RegExp) => {
      const deadline = Date.now() + 60_000;
      while (!re.test(line())) {
        assert.ok(Date.now() < deadline, `no progress line with ${what} in 60 s; the output:\n${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      return line();
    };
    try {
      await waitFor('the snapshot done', /tables 3\/3 snapshotted, 42 rows {2}changes \d+\/s \(0\)/);
      await sql.query(`INSERT INTO shop.orders_1 VALUES (101, 'ok', 1.50, 2)`);
      await sql.query('ALTER TABLE shop.orders_1 ADD COLUMN note VARCHAR(20)');
      const last = await waitFor('the schema change', /last schema change add\.column shop\.orders_1 at \d\d:\d\d:\d\d sent/);
      assert.match(last, /^RUNNING {2}in \d[\d,]* rec\/s {2}out \d[\d,]* rec\/s {2}total in \d[\d,]* {2}tables 3\/3 snapshotted, 42 rows {2}changes \d+\/s \(1\) {2}last schema change add\.column shop\.orders_1 at \d\d:\d\d:\d\d sent/);
    } finally {
      // Ctrl-C on the terminal: the job is cancelled.
      child.stdin.write('\x03');
      const code = await exited;
      assert.match(out, /Job [0-9a-f]{32} CANCELED in /);
      // Nothing the job started outlives it (aligned-timeout timers of its channels kept the process 5 s).
      assert.doesNotMatch(out, /still active/);
      assert.equal(code, 1);
    }
  } finally {
    await sql.end().catch(() => {});
    await server.stop();
    removeDir(dir);
  }
});
