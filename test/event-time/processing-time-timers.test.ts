// Processing-time timers through a savepoint: a KeyedProcessFunction sets one per key a little
// in the future, the job stops with a savepoint before they are due, and the job restored from it
// after they came due fires every one of them at once (they are keyed state), with its key.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { createJobMaster, defineJob, Time, type Collector, type KeyedContext, type OnTimerContext } from '../../src/index.ts';
import { ScriptedSource } from '../fixtures/scripted-source.ts';
import { CollectSink, CollectedRecords } from '../../src/connectors/collect/index.ts';
import { makeTempDir, removeDir, sleep } from '../fixtures/recovery-helpers.ts';
import { uniqueId } from '../fixtures/helpers.ts';

let root: string;
before(() => {
  root = makeTempDir('processing-time-timers');
});
after(() => removeDir(root));

const KEYS = ['a', 'b', 'c', 'd', 'e'];

test('processing-time timers that came due while the job was down fire after the restore, each once with its key', async () => {
  const id = uniqueId();
  const dueAt = Date.now() + Time.seconds(1);
  // The source stays open after its records: the job runs until stopped.
  const job = defineJob((env) => {
    env.enableCheckpointing(100);
    env
      .fromSource(new ScriptedSource(KEYS.map((k) => ({ record: k, timestamp: 0 })), { stayOpen: true }), { uid: 'src' })
      .keyBy((k) => k)
      .process(
        {
          processElement(k: string, ctx: KeyedContext<string>, _out: Collector<string>) {
            ctx.timerService().registerProcessingTimeTimer(dueAt);
            void k;
          },
          onTimer(t: number, ctx: OnTimerContext<string>, out: Collector<string>) {
            out.collect(`${ctx.getCurrentKey()} ${ctx.timeDomain()} ${t === dueAt ? 'at its time' : t} ${Date.now() >= dueAt ? 'due' : 'early'}`);
          },
        },
        { uid: 'timers' },
      )
      .sinkTo(new CollectSink<string>(id), { uid: 'sink' });
  });
  const collected = new CollectedRecords<string>(id);
  try {
    const first = await createJobMaster({ job });
    const firstDone = first.run();
    await first.whenRunning();
    // Every key's record is in (its timer set) once a checkpoint after them completes.
    await first.triggerCheckpoint();
    await first.triggerCheckpoint();
    const sp = await first.stopWithSavepoint(join(root, 'savepoints'));
    assert.equal((await firstDone).status, 'FINISHED');
    assert.ok(Date.now() < dueAt, 'the job stopped before its timers were due (make the delay longer on a slow machine)');
    assert.deepEqual(collected.records, []);

    // Down until the timers are due.
    await sleep(dueAt - Date.now() + 20);
    const second = await createJobMaster({ job, restoreFrom: sp.directory });
    const secondDone = second.run();
    await second.whenRunning();
    for (let i = 0; i < 200 && collected.records.length < KEYS.length; i++) {
      await second.triggerCheckpoint(); // the CollectSink sends what it has at each checkpoint
    }
    assert.deepEqual(collected.records.sort(), KEYS.map((k) => `${k} PROCESSING_TIME at its time due`));
    await second.cancel();
    await secondDone;
  } finally {
    await collected.close(1).catch(() => {});
  }
});
