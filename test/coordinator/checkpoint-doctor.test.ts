import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointHint } from '../../src/coordinator/checkpoint-doctor.ts';

test('a source stuck inside one read gets the chunk-size hint, naming subtask, seconds and table', () => {
  const reason =
    "checkpoint 7 expired after 2.00 s before completing: 1 of 4 subtasks had not acknowledged — 'Source: orders' subtask 1/2: reading table orders chunk 3 of 40 (for 41 s)";
  const hint = checkpointHint(reason)!;
  assert.match(hint, /source subtask 0 of 'Source: orders' spent 41 s inside one read of table orders/);
  assert.match(hint, /smaller chunk size|execution\.checkpointing\.timeout/);
});

test('alignment and backpressure point to unaligned checkpoints; a stuck sink and a silent thread get their own hints', () => {
  assert.match(checkpointHint("'Sum' subtask 2/2: aligning checkpoint 3 for 900 ms, waiting for the barrier on input 0")!, /unaligned/);
  assert.match(checkpointHint("'Map' subtask 1/2: blocked on a full output channel (backpressure from downstream) for 3 s")!, /unaligned/);
  assert.match(checkpointHint("'Sink' subtask 1/1: waiting for the sink (for 4 s)")!, /sink/);
  assert.match(checkpointHint("'Sum' subtask 1/1: no answer from its TaskManager (its thread may be blocked inside a synchronous call)")!, /synchronous/);
  assert.equal(checkpointHint('checkpoint 4 was subsumed by checkpoint 5'), undefined);
});
