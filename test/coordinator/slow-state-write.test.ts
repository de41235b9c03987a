// A state write that never finishes (a hung storage) must not hold the job: its checkpoint expires
// and counts against the tolerable failures, the write is told to stop and its snapshot is let go,
// and the next checkpoints complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { fileCheckpointStorageWorkerView } from '../../src/checkpoint/file-checkpoint-storage-worker-view.ts';
import { ControlledSource, JobEvents, makeTempDir, removeDir, wordCountToFiles } from '../fixtures/recovery-helpers.ts';

test('a hung state write expires its checkpoint (counted), is aborted, and later checkpoints complete', { timeout: 60_000 }, async (t) => {
  const dir = makeTempDir('hung-write');
  t.after(() => removeDir(dir));
  const storage = fileCheckpointStorageWorkerView as { writeSnapshot: typeof fileCheckpointStorageWorkerView.writeSnapshot };
  const original = storage.writeSnapshot;
  const aborted: string[] = [];
  let hung: number | undefined;
  storage.writeSnapshot = (barrier, captured, task, signal) => {
    // Every subtask with keyed state (the two of Sum) hangs in checkpoint 3.
    if (barrier.checkpointId !== 3 || !captured.some((c) => c.keyed)) return original(barrier, captured, task, signal);
    hung = barrier.checkpointId;
    signal.addEventListener('abort', () => aborted.push(String((signal.reason as Error).message)));
    return new Promise(() => {});
  };
  t.after(() => void (storage.writeSnapshot = original));
  const control = { open: true };
  const source = new ControlledSource(DataGen.words({ seed: 1 }), { ratePerSecond: 5000, open: () => control.open });
  const events = new JobEvents();
  const master = await createJobMaster({
    job: wordCountToFiles(source, join(dir, 'out'), { interval: 200, timeout: 1000, tolerableFailures: 2 }),
    config: { 'execution.checkpointing.dir': join(dir, 'checkpoints') },
    listener: events.listener,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  const done = master.run();
  await events.waitFor('checkpoint 3 to expire and two more to complete', () => events.failed.some((f) => f.id === 3) && events.completed.filter((c) => c.id > 3).length >= 2);
  assert.equal(hung, 3);
  assert.match(events.failed.find((f) => f.id === 3)!.reason, /checkpoint 3 expired after 1\.00 s before completing: 2 of 4 subtasks had not acknowledged — .*writing the state of checkpoint 3/);
  assert.equal(master.checkpoints.stats.counts.failed, 1);
  assert.equal(aborted.length, 2, 'both hung writes (one per Sum subtask) were told to stop');
  assert.match(aborted[0]!, /expired/);
  const activities = master.taskMetrics().map((m) => m.activity).join('; ');
  assert.doesNotMatch(activities, /writing the state of checkpoint 3/, 'no subtask is still writing the expired checkpoint');
  assert.equal(master.status, 'RUNNING');
  await master.cancel();
  await done;
});
