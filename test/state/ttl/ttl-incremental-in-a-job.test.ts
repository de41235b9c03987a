// State TTL with cleanup in the background (Flink's default) in a running job with incremental
// checkpoints, on lmdb and on the heap: values written once and never touched again are in the
// first checkpoint (the chain's base); once their TTL has passed, the next checkpoint (taken with no
// record in between, so only its own cleanup acts; on lmdb a delta on the base, on the heap a full
// base, all of its entries having changed) holds none of them, read back from its files base and
// deltas merged as `weir inspect` reads them; a job restored from that checkpoint neither returns
// them nor holds them in its first checkpoint.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, type JobMaster } from '../../../src/index.ts';
import { readMetadata } from '../../../src/checkpoint/checkpoint-metadata.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { STATE_BACKENDS, stateBackendConfig } from '../../fixtures/state-backends.ts';
import type { StateBackendType } from '../../../src/state/state-backend.ts';
import { ttlJob } from '../../fixtures/jobs/ttl-job.ts';
import { pushAndRead, storedTtlState } from '../../fixtures/ttl-job-driver.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'ttl-job.ts');
const TTL = 400;
let root: string;
const started: JobMaster[] = [];
before(() => {
  root = makeTempDir('ttl-incremental-in-a-job');
});
after(() => {
  for (const m of started) if (m.status === 'RUNNING') m.cancel();
  removeDir(root);
});

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);



/** The keyed handle the checkpoint's put-get subtask wrote: its `deltas` are those of a delta on an earlier checkpoint. */
async function keyedHandle(directory: string) {
  const { metadata } = await readMetadata(directory);
  return metadata.operators.find((o) => o.uid === 'put-get')?.subtasks[0]?.keyed;
}

function until(at: number): Promise<void> {
  return new Promise((resolve) => {
    const wait = () => (Date.now() > at ? resolve() : void setTimeout(wait, at - Date.now() + 1));
    wait();
  });
}

async function start(type: StateBackendType, name: string, restoreFrom?: string) {
  let running!: () => void;
  const isRunning = new Promise<void>((r) => (running = r));
  const master = await createJobMaster({
    job: JOB,
    args: ['--ttl-ms', String(TTL), '--cleanup', 'background'],
    config: { 'parallelism.default': 1, 'execution.checkpointing.dir': join(root, type, name), 'execution.checkpointing.incremental': true, 'execution.checkpointing.externalized-checkpoint-retention': 'RETAIN_ON_CANCELLATION', ...stateBackendConfig(type) },
    ...(restoreFrom !== undefined ? { restoreFrom } : {}),
    listener: { onStatus: (s) => void (s === 'RUNNING' && running()) },
    log: createLogger({ level: 'error', write: process.env.WEIR_TEST_DEBUG ? (l) => console.error(l) : () => {} }),
  });
  started.push(master);
  return { master, result: master.run(), running: isRunning };
}

for (const type of STATE_BACKENDS) {
  test(`${type}, incremental checkpoints, TTL cleaned up in the background: expired values untouched since the base leave the next checkpoint and are not restored`, { timeout: 60_000 }, async () => {
    ttlJob.commands.length = 0;
    ttlJob.output.length = 0;
    const a = keys('a', 20);
    const first = await start(type, 'first');
    await first.running;
    assert.deepEqual(await pushAndRead([...a.map((k) => `put ${k}`), 'get a0'], 1), ['a0\t1']);
    const c1 = (await first.master.triggerCheckpoint()).directory;
    const held1 = await storedTtlState(c1);
    assert.deepEqual([...held1.keys()].sort(), [...a].sort(), 'live values are in the base');

    await until(Math.max(...held1.values()) + TTL);
    const c2 = (await first.master.triggerCheckpoint()).directory;
    assert.deepEqual([...(await storedTtlState(c2)).keys()], [], 'the next checkpoint holds none of the expired values');
    const handle = await keyedHandle(c2);
    if (type === 'lmdb') assert.equal(handle?.deltas?.length, 1, `checkpoint 2 is a delta on the base (which its removals follow): ${JSON.stringify(handle)}`);
    first.master.cancel();
    assert.equal((await first.result).status, 'CANCELED');

    const second = await start(type, 'second', c2);
    await second.running;
    assert.deepEqual(await pushAndRead(a.map((k) => `get ${k}`), a.length), a.map((k) => `${k}\tnone`), 'the restored job returns none of them');
    const c3 = (await second.master.triggerCheckpoint()).directory;
    assert.deepEqual([...(await storedTtlState(c3)).keys()], [], 'nor holds them');
    second.master.cancel();
    assert.equal((await second.result).status, 'CANCELED');
  });
}
