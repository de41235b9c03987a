// A sink whose writer is not ready stops the task's input, never its mails. A database sink's
// statements of checkpoint N wait for row locks that checkpoint N-1's prepared transaction holds
// until it is committed, and that commit is the mail notifying N-1's completion: a task that ran
// the wait exclusively (as it once did) never took that mail, and the job's next checkpoint stayed
// pending for ever (seen with examples/orders-to-postgres.ts while orders changed without pause).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../src/log/logger.ts';
import { defineJob } from '../../src/index.ts';
import type { Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../src/api/two-phase-committing-sink.ts';
import type { Sink } from '../../src/api/sink.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import type { ChannelItem } from '../../src/network/stream-event.ts';
import { InputGate } from '../../src/worker/input-gate.ts';
import { Task } from '../../src/worker/task.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import type { FromTaskExecutor } from '../../src/rpc/control-protocol.ts';

const barrier = (checkpointId: number): ChannelItem => ({
  kind: 'barrier',
  checkpointId,
  timestamp: Date.now(),
  options: { type: 'checkpoint', unaligned: false, alignedTimeout: 0, targetDir: '/nonexistent' },
});
const records = (...values: string[]): ChannelItem => ({ kind: 'records', records: values, bytes: 0 });

/**
 * A target like PostgreSQL under two-phase commit: each checkpoint's rows are one transaction,
 * prepared at the cut; a row written again while an earlier transaction that wrote it is prepared
 * waits for that one's commit (the writer is not ready meanwhile).
 */
class LockingTarget implements TwoPhaseCommittingSink<string, string> {
  readonly written: string[] = [];
  readonly committed: string[] = [];
  /** Prepared and not committed: gid -> its rows. */
  readonly #prepared = new Map<string, Set<string>>();
  #transaction: string[] = [];
  /** Statements run in order: the first waits for its lock, the rest behind it. */
  readonly #queued: string[] = [];
  #wakeWriter: (() => void) | undefined;

  createWriter(): PrecommittingSinkWriter<string, string> {
    return {
      write: (row) => {
        this.#queued.push(row);
        this.#run();
      },
      ready: () => (this.#queued.length === 0 ? undefined : new Promise<void>((resolve) => (this.#wakeWriter = resolve))),
      prepareCommit: (checkpointId) => {
        assert.deepEqual(this.#queued, [], 'the cut comes after what was written has run');
        const gid = `tx-${checkpointId}`;
        this.#prepared.set(gid, new Set(this.#transaction));
        this.#transaction = [];
        return [gid];
      },
    };
  }

  createCommitter(): Committer<string> {
    return {
      commit: (gids) => {
        for (const gid of gids) {
          this.#prepared.delete(gid);
          this.committed.push(gid);
        }
        this.#run();
      },
    };
  }

  #run(): void {
    while (this.#queued.length > 0 && ![...this.#prepared.values()].some((rows) => rows.has(this.#queued[0]!))) {
      const row = this.#queued.shift()!;
      this.#transaction.push(row);
      this.written.push(row);
    }
    if (this.#queued.length === 0) {
      this.#wakeWriter?.();
      this.#wakeWriter = undefined;
    }
  }
}

/** A task running only `target`, fed by one input channel; `run` steps it as a TaskManager would, for three rounds. */
async function sinkTask(target: Sink<string> | TwoPhaseCommittingSink<string, string>) {
  const { jobGraph } = await defineJob((env) => {
    env.fromSource(new CollectionSource(['unused']), { uid: 'rows' }).sinkTo(target, { uid: 'locking-sink', name: 'Sink: locking', chaining: false });
  }).plan([]);
  const sink = jobGraph.vertices.find((v) => v.name.startsWith('Sink: locking'))!;
  const input = new InputChannel(0, 'rows');
  const reports: FromTaskExecutor[] = [];
  const task = new Task({
    jobId: 'c'.repeat(32),
    jobName: 'test job',
    attempt: 0,
    vertex: sink,
    subtask: 0,
    gate: new InputGate([input]),
    writers: new Map(),
    splits: [],
    restore: null,
    barrierMode: 'aligned',
    report: (m) => reports.push(m),
    wake: () => {},
    storage: {
      writeSnapshot: async () => ({ operators: [], inputChannels: {}, outputChannels: {} }),
      writeChannelState: async () => ({ inputChannels: {}, outputChannels: {} }),
      readChannelState: () => [],
      restoreKeyed: async () => {},
    },
    log: silentLogger,
  });
  await task.initialize();
  const run = async () => {
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 100 && task.step() === 'busy'; i++);
      await new Promise((r) => setImmediate(r));
    }
  };
  return { task, input, reports, run };
}

test('a sink that waits for a row lock of the last checkpoint: the commit mail runs, the wait ends, input goes on', async () => {
  const target = new LockingTarget();
  const { task, input, reports, run } = await sinkTask(target);
  input.deliver(records('customer-1'));
  input.deliver(barrier(1));
  await run();
  assert.ok(reports.some((m) => m.type === 'acknowledgeCheckpoint' && m.checkpointId === 1), 'checkpoint 1 was taken');
  // Checkpoint 2's transaction writes the row checkpoint 1's prepared one holds: the writer waits.
  input.deliver(records('customer-1'));
  input.deliver(records('customer-2'));
  await run();
  assert.deepEqual(target.written, ['customer-1'], 'the second write waits for the lock');
  assert.equal(task.status, 'running');

  task.notifyCheckpointComplete(1);
  await run();
  assert.deepEqual(target.committed, ['tx-1'], 'the completion mail ran while the writer was not ready');
  assert.deepEqual(target.written, ['customer-1', 'customer-1', 'customer-2'], 'the lock released, the writer ready, input taken again');
});

test('a sink that asks to wait after a buffer takes no more input in that step: one buffer ahead of a barrier, not a step of eight', async () => {
  const written: string[] = [];
  /** Records the target has finished writing; the writer is not ready while it owes any. */
  let done = 0;
  let finish: (() => void) | undefined;
  const target: Sink<string> = {
    createWriter: () => ({
      write: (row) => void written.push(row),
      ready: () => (written.length === done ? undefined : new Promise<void>((resolve) => (finish = resolve))),
    }),
  };
  const { task, input } = await sinkTask(target);
  input.deliver(records('a', 'b'));
  input.deliver(records('c', 'd'));
  input.deliver(records('e', 'f'));
  assert.equal(task.step(), 'idle', 'the writer owes the first buffer: the task waits for it');
  assert.deepEqual(written, ['a', 'b'], 'one buffer taken in the step');
  done = written.length;
  finish!();
  await new Promise((r) => setImmediate(r));
  task.step();
  assert.deepEqual(written, ['a', 'b', 'c', 'd'], 'ready again: the next buffer, and only it');
});
