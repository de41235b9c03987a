// How a stop reason reads: the owner's words when it gave them (messages that always named the
// occasion keep doing so), else the code's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeStopReason, SHUTDOWN } from '../../src/lifecycle/service.ts';
import { jobEndReason } from '../../src/coordinator/job-status.ts';

test('a stop reason reads as its detail, else by its code', () => {
  assert.equal(describeStopReason(SHUTDOWN), 'shut down');
  assert.equal(describeStopReason({ code: 'lost', cause: new Error('heartbeat timeout') }), 'lost: heartbeat timeout');
  assert.equal(describeStopReason({ code: 'replaced' }), 'replaced');
  assert.equal(describeStopReason({ code: 'failed', cause: new Error('boom') }), 'failed: boom');
  assert.equal(describeStopReason({ code: 'shutdown', detail: 'job canceled' }), 'job canceled');
});

test("a job's end stops its services with the words its messages always used", () => {
  const cause = new Error('boom');
  assert.deepEqual(jobEndReason('FINISHED'), { code: 'shutdown', detail: 'job finished' });
  assert.deepEqual(jobEndReason('CANCELED'), { code: 'shutdown', detail: 'job canceled' });
  assert.deepEqual(jobEndReason('FAILED', cause), { code: 'failed', cause, detail: 'job failed' });
  assert.deepEqual(jobEndReason('SUSPENDED'), { code: 'replaced', detail: 'job suspended' });
  assert.equal(describeStopReason(jobEndReason('FAILED', cause)), 'job failed');
});
