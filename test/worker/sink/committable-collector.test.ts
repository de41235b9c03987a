// The committable collector's dead letters: a checkpoint's state holds the dead letters that were
// not emitted at its cut (a restore from it emits them), and none that were; each is taken once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CommittableCollector } from '../../../src/worker/sink/committable-collector.ts';

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('CommittableCollector dead letters', () => {
  test('letters of a pre-commit settled after the cut belong to the checkpoint; once taken, to none after it', async () => {
    const c = new CommittableCollector<string>(3);
    const precommit1 = deferred<string[]>();
    c.add(1, precommit1.promise, () => ['refused-a']);
    const cut1 = c.unemittedAtCut();
    precommit1.resolve(['tx-1']);
    assert.deepEqual(await c.stateUpTo(1, cut1), [{ checkpointId: 1, subtask: 3, committables: ['tx-1'], deadLetters: ['refused-a'] }]);

    // Checkpoint 1 completes: its letters go out (before the cut of 2), so checkpoint 2 does not hold them.
    assert.deepEqual(c.takeDeadLetters(1), ['refused-a']);
    assert.deepEqual(c.takeDeadLetters(1), [], 'taken once');
    c.add(2, ['tx-2'], () => ['refused-b']);
    const cut2 = c.unemittedAtCut();
    assert.deepEqual(await c.stateUpTo(2, cut2), [
      { checkpointId: 1, subtask: 3, committables: ['tx-1'] },
      { checkpointId: 2, subtask: 3, committables: ['tx-2'], deadLetters: ['refused-b'] },
    ]);
  });

  test('a pre-commit without committables but with dead letters stays until they are emitted', async () => {
    const c = new CommittableCollector<string>(0);
    await c.add(5, [], () => ['only-refused']);
    assert.deepEqual(c.takeDue(5), []);
    assert.deepEqual(c.pendingCheckpoints, [5], 'kept for its dead letters');
    assert.deepEqual(c.takeDeadLetters(5), ['only-refused']);
    assert.deepEqual(c.takeDue(5), []);
    assert.deepEqual(c.pendingCheckpoints, []);
  });

  test('restored dead letters are emitted with the next completed checkpoint and kept in states until then', async () => {
    const c = new CommittableCollector<string>(1);
    c.addRestoredDeadLetters(7, ['restored-x', 'restored-y']);
    c.add(8, ['tx-8']);
    const cut8 = c.unemittedAtCut();
    assert.deepEqual(await c.stateUpTo(8, cut8), [
      { checkpointId: 7, subtask: 1, committables: [], deadLetters: ['restored-x', 'restored-y'] },
      { checkpointId: 8, subtask: 1, committables: ['tx-8'] },
    ]);
    assert.deepEqual(c.takeDeadLetters(8), ['restored-x', 'restored-y']);
  });
});
