// Splits and source events the enumerator sends while the subtask's operators are still opening
// (a restarted subtask's mailbox runs during its restore) wait for the reader, and reach it after
// the restored splits, in the order sent. Seen as `Cannot read properties of undefined (reading
// 'addSplits')` on every restart of a JetStream job whose enumerator assigns at registration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Source } from '../../../src/api/source.ts';
import { SourceOperator } from '../../../src/worker/operators/source-operator.ts';
import type { OperatorContext } from '../../../src/worker/operators/stream-operator.ts';

function recordingSource(calls: string[], started: Promise<void>): Source<unknown, unknown> {
  return {
    createEnumerator: () => ({}),
    createReader: () => ({
      start: () => started,
      addSplits: (splits: unknown[]) => void calls.push(`splits ${splits.join(',')}`),
      notifyNoMoreSplits: () => void calls.push('no more'),
      handleSourceEvent: (e: unknown) => void calls.push(`event ${String(e)}`),
      pollNext: () => 'nothing',
      isAvailable: () => new Promise(() => {}),
      snapshotState: () => [],
    }),
  } as unknown as Source<unknown, unknown>;
}

const context = {
  subtaskIndex: 0,
  parallelism: 1,
  autoWatermarkInterval: 0,
  operatorName: 'Source',
  operatorUid: 'source',
  timestamps: {},
  output: { collect: () => {} },
  eventTimeOutput: {},
  processingTime: { now: () => 0, registerTimer: () => ({ cancel: () => {} }) },
  sideOutput: () => undefined,
  operatorState: { isRestored: true, restoredValues: () => ['restored-a'] },
} as unknown as OperatorContext;

test('splits and events sent before the reader exists reach it after the restored splits, in order', async () => {
  const calls: string[] = [];
  let started!: () => void;
  const op = new SourceOperator(recordingSource(calls, new Promise<void>((r) => (started = r))));
  op.addSplits(['early-b'], false);
  const opening = op.open(context);
  op.handleSourceEvent('hello');
  op.addSplits([], true);
  assert.deepEqual(calls, [], 'nothing reaches a reader that has not started');
  started();
  await opening;
  op.addSplits(['late-c'], false);
  assert.deepEqual(calls, ['splits restored-a', 'splits early-b', 'event hello', 'no more', 'splits late-c']);
});
