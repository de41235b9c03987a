// The checkpoint doctor reads a failure's code and what each subtask that had not acknowledged
// was doing (structured reports, not the sentence people read) and says what to do about it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointHint } from '../../src/coordinator/checkpoint-doctor.ts';
import type { CheckpointFailureReport, PendingSubtask } from '../../src/checkpoint/checkpoint-failure-reason.ts';
import type { TaskActivity } from '../../src/network/task-activity.ts';

const NOW = 1_000_000;
function pending(activity: TaskActivity, o: { forMs?: number; isSource?: boolean; silent?: boolean; writing?: number } = {}): PendingSubtask {
  return {
    vertex: o.isSource ? 'Source: orders' : 'Sum',
    subtask: 0,
    parallelism: 2,
    isSource: o.isSource ?? false,
    silent: o.silent ?? false,
    report: { activity, activitySince: NOW - (o.forMs ?? 0), writing: o.writing !== undefined ? [{ checkpointId: o.writing, since: NOW - 5000 }] : [] },
  };
}
const expired = (...p: PendingSubtask[]): CheckpointFailureReport => ({ code: 'CHECKPOINT_EXPIRED', message: 'checkpoint 7 expired', pending: p, at: NOW });

test('a source stuck inside one read gets the chunk-size hint, naming subtask, seconds and what it reads', () => {
  const hint = checkpointHint(expired(pending({ kind: 'reading', reader: 'reading table orders chunk 3 of 40', subject: 'table orders' }, { forMs: 41_000, isSource: true })))!;
  assert.match(hint, /source subtask 0 of 'Source: orders' spent 41 s inside one read of table orders/);
  assert.match(hint, /smaller chunk size|execution\.checkpointing\.timeout/);
  // The reader's own clock counts when it has one.
  const own = checkpointHint(expired(pending({ kind: 'reading', readerSince: NOW - 9000 }, { forMs: 100, isSource: true })))!;
  assert.match(own, /spent 9 s inside one read;/);
  // A reader that returns between records is not stuck.
  assert.equal(checkpointHint(expired(pending({ kind: 'reading' }, { forMs: 200, isSource: true }))), undefined);
});

test('alignment and backpressure point to unaligned checkpoints; a stuck sink, a silent thread and slow storage get their own hints', () => {
  assert.match(checkpointHint(expired(pending({ kind: 'aligning', checkpointId: 3, style: 'aligned', waitingFor: ['input 0'], forMs: 900 })))!, /unaligned/);
  assert.equal(checkpointHint(expired(pending({ kind: 'aligning', checkpointId: 3, style: 'unaligned', waitingFor: ['input 0'], forMs: 900 }))), undefined);
  assert.match(checkpointHint(expired(pending({ kind: 'backpressured' }, { forMs: 3000 })))!, /unaligned/);
  assert.match(checkpointHint(expired(pending({ kind: 'waiting-for-sink' }, { forMs: 4000 })))!, /sink/);
  assert.match(checkpointHint(expired(pending({ kind: 'processing' }, { silent: true })))!, /synchronous/);
  assert.match(checkpointHint(expired({ ...pending({ kind: 'processing' }), report: undefined, silent: true }))!, /synchronous/);
  assert.match(checkpointHint(expired(pending({ kind: 'processing' }, { writing: 7 })))!, /checkpoint storage/);
  assert.match(checkpointHint({ code: 'TASK_CHECKPOINT_FAILURE', message: 'declined: writing the snapshot failed' })!, /checkpoint storage/);
  assert.match(checkpointHint({ code: 'CHECKPOINT_DECLINED_TASK_NOT_READY', message: 'declined' })!, /not running yet/);
  assert.equal(checkpointHint({ code: 'CHECKPOINT_SUBSUMED', message: 'checkpoint 4 was subsumed by checkpoint 5' }), undefined);
  assert.equal(checkpointHint(undefined), undefined);
});
