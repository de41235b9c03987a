// State TTL in a running job, on the heap and the lmdb backend: values written before their time to
// live passed are not returned by reads after it, and are absent from the next checkpoint (read
// back from its files, as `weir inspect` does); a savepoint taken while they were live, restored
// after the TTL passed, gives a job that holds none of them (its first checkpoint) and reads none.
// Processing time is the system clock's in a running job: the test waits for the TTL to pass,
// until the latest write time stored in the checkpoint (its TTL timestamp) plus the TTL; nothing
// is asserted about how long anything took.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, type JobMaster } from '../../../src/index.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { STATE_BACKENDS, stateBackendConfig } from '../../fixtures/state-backends.ts';
import { ttlJob } from '../../fixtures/jobs/ttl-job.ts';
import { pushAndRead, storedTtlState } from '../../fixtures/ttl-job-driver.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'ttl-job.ts');
const TTL = 400;
let root: string;
/** Every job started: one a failed assertion left running is cancelled at the end. */
const started: JobMaster[] = [];
before(() => {
  root = makeTempDir('ttl-in-a-job');
});
after(() => {
  for (const m of started) if (m.status === 'RUNNING') m.cancel();
  removeDir(root);
});

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);



/** Resolves once the clock TTL runs by has passed `at` (the TTL itself passing: no event says so). */
function until(at: number): Promise<void> {
  return new Promise((resolve) => {
    const wait = () => (Date.now() > at ? resolve() : void setTimeout(wait, at - Date.now() + 1));
    wait();
  });
}

function start(type: (typeof STATE_BACKENDS)[number], name: string, restoreFrom?: string): Promise<{ master: JobMaster; result: ReturnType<JobMaster['run']>; running: Promise<void> }> {
  let running!: () => void;
  const isRunning = new Promise<void>((r) => (running = r));
  return createJobMaster({
    job: JOB,
    args: ['--ttl-ms', String(TTL)],
    config: { 'parallelism.default': 1, 'execution.checkpointing.dir': join(root, type, name), ...stateBackendConfig(type) },
    ...(restoreFrom !== undefined ? { restoreFrom } : {}),
    listener: { onStatus: (s) => void (s === 'RUNNING' && running()) },
    log: createLogger({ level: 'error', write: process.env.WEIR_TEST_DEBUG ? (l) => console.error(l) : () => {} }),
  }).then((master) => (started.push(master), { master, result: master.run(), running: isRunning }));
}

for (const type of STATE_BACKENDS) {
  test(`${type} backend: expired values are not read and not in the next checkpoint; a savepoint restored after the TTL holds none of them`, { timeout: 60_000 }, async () => {
    ttlJob.commands.length = 0;
    ttlJob.output.length = 0;
    const a = keys('a', 20);
    const b = keys('b', 10);
    const s = keys('s', 20);

    const first = await start(type, 'first');
    await first.running;
    // The first command's output also says every subtask runs (a checkpoint is refused before).
    assert.deepEqual(await pushAndRead([...a.map((k) => `put ${k}`), 'get a0'], 1), ['a0\t1']);
    const c1 = await storedTtlState((await first.master.triggerCheckpoint()).directory);
    assert.deepEqual([...c1.keys()].sort(), [...a].sort(), 'live values are in a checkpoint');

    await until(Math.max(...c1.values()) + TTL);
    // Values written after the TTL of the first ones passed: those stay.
    assert.deepEqual(await pushAndRead([...b.map((k) => `put ${k}`), 'get b0'], 1), ['b0\t1']);
    const c2 = await storedTtlState((await first.master.triggerCheckpoint()).directory);
    assert.deepEqual([...c2.keys()].sort(), [...b].sort(), 'the next checkpoint holds the live values and none of the expired ones');
    assert.deepEqual(await pushAndRead(a.map((k) => `get ${k}`), a.length), a.map((k) => `${k}\tnone`), 'expired values are not returned');

    // A savepoint while the s-values are live; the job restored from it after their TTL passed.
    assert.deepEqual(await pushAndRead([...s.map((k) => `put ${k}`), 'get s0'], 1), ['s0\t1']);
    const savepoint = await first.master.stopWithSavepoint(join(root, type, 'savepoint'));
    assert.equal((await first.result).status, 'FINISHED');
    const sp = await storedTtlState(savepoint.directory);
    for (const k of s) assert.ok(sp.has(k), `the savepoint holds ${k}, live when it was taken`);
    await until(Math.max(...s.map((k) => sp.get(k)!)) + TTL);

    const second = await start(type, 'second', savepoint.directory);
    await second.running;
    // A command through every task first: a checkpoint is refused until all subtasks run.
    assert.deepEqual(await pushAndRead(['get x'], 1), ['x\tnone']);
    const c3 = await storedTtlState((await second.master.triggerCheckpoint()).directory);
    assert.deepEqual([...c3.keys()].filter((k) => k.startsWith('s')), [], 'the restored job holds none of the values that expired');
    assert.deepEqual(await pushAndRead(s.map((k) => `get ${k}`), s.length), s.map((k) => `${k}\tnone`), 'nor returns them');
    second.master.cancel();
    assert.equal((await second.result).status, 'CANCELED');
  });
}
