// The Kafka reader's per-split output bookkeeping against a fake reader output: an assigned split
// gets its output at the next poll whether it has records or not, the same output for its
// records, and it is released once (only if it was opened).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SourceOutput } from '../../../src/api/source.ts';
import { SplitOutputs } from '../../../src/connectors/kafka/split-outputs.ts';

/** A reader output that records what the reader asked of it; each split output records its values. */
function fakeOutput() {
  const calls: string[] = [];
  const collected = new Map<string, unknown[]>();
  const splits = new Map<string, SourceOutput<string>>();
  const output: SourceOutput<string> = {
    collect: (v) => void calls.push(`main:${v}`),
    // Like the task's output: the same split output for the same id until released.
    createOutputForSplit: (id) => {
      let split = splits.get(id);
      if (split === undefined) {
        calls.push(`create:${id}`);
        collected.set(id, []);
        split = { collect: (v) => void collected.get(id)!.push(v) };
        splits.set(id, split);
      }
      return split;
    },
    releaseOutputForSplit: (id) => {
      calls.push(`release:${id}`);
      splits.delete(id);
    },
  };
  return { output, calls, collected };
}

test('every assigned split gets its output at the next poll, records or not', () => {
  const outputs = new SplitOutputs<string>();
  const { output, calls } = fakeOutput();
  outputs.assign('t-0');
  outputs.assign('t-1');
  outputs.assign('t-2');
  assert.equal(outputs.pending, true);
  assert.deepEqual(calls, [], 'nothing is opened before a poll hands the output over');
  outputs.openAssigned(output);
  assert.deepEqual(calls, ['create:t-0', 'create:t-1', 'create:t-2']);
  assert.equal(outputs.pending, false);
  outputs.openAssigned(output);
  assert.deepEqual(calls, ['create:t-0', 'create:t-1', 'create:t-2'], 'a second poll opens nothing again');
});

test("a split's records go to its own output", () => {
  const outputs = new SplitOutputs<string>();
  const { output, calls, collected } = fakeOutput();
  outputs.assign('t-0');
  outputs.assign('t-1');
  outputs.openAssigned(output);
  outputs.of('t-1', output).collect('a');
  outputs.of('t-1', output).collect('b');
  outputs.of('t-0', output).collect('c');
  assert.deepEqual(collected.get('t-1'), ['a', 'b']);
  assert.deepEqual(collected.get('t-0'), ['c']);
  assert.deepEqual(calls, ['create:t-0', 'create:t-1']);
});

test('a split assigned again while open keeps its output; one that was never assigned opens on its first record', () => {
  const outputs = new SplitOutputs<string>();
  const { output, calls } = fakeOutput();
  outputs.assign('t-0');
  outputs.openAssigned(output);
  outputs.assign('t-0');
  assert.equal(outputs.pending, false);
  outputs.of('t-9', output).collect('x');
  assert.deepEqual(calls, ['create:t-0', 'create:t-9']);
  assert.deepEqual(outputs.openIds, ['t-0', 't-9']);
});

test('release: once, only for an opened output; a released split opens anew when assigned again', () => {
  const outputs = new SplitOutputs<string>();
  const { output, calls } = fakeOutput();
  outputs.assign('t-0');
  outputs.assign('t-1');
  outputs.openAssigned(output);
  outputs.assign('t-2');
  outputs.release('t-2', output); // finished before any poll: never opened, nothing to release
  outputs.release('t-0', output);
  outputs.release('t-0', output);
  assert.equal(outputs.pending, false);
  assert.deepEqual(outputs.openIds, ['t-1']);
  outputs.assign('t-0');
  outputs.openAssigned(output);
  assert.deepEqual(calls, ['create:t-0', 'create:t-1', 'release:t-0', 'create:t-0']);
});

test('an output without split outputs (a wrapper) takes every split\'s records itself', () => {
  const outputs = new SplitOutputs<string>();
  const got: string[] = [];
  const plain: SourceOutput<string> = { collect: (v) => void got.push(v) };
  outputs.assign('t-0');
  outputs.openAssigned(plain);
  outputs.of('t-0', plain).collect('a');
  outputs.release('t-0', plain);
  assert.deepEqual(got, ['a']);
  assert.deepEqual(outputs.openIds, []);
});

test("split outputs are asked of each poll's output, never kept from an earlier poll (a wrapper's per-poll output)", () => {
  const outputs = new SplitOutputs<string>();
  const polls: string[][] = [];
  /** A wrapper's output for one poll: its split outputs note the records of that poll. */
  const pollOutput = (): SourceOutput<string> => {
    const got: string[] = [];
    polls.push(got);
    return { collect: () => assert.fail('records go to split outputs'), createOutputForSplit: (id) => ({ collect: (v) => void got.push(`${id}:${v}`) }) };
  };
  outputs.assign('t-0');
  const first = pollOutput();
  outputs.openAssigned(first);
  outputs.of('t-0', first).collect('a');
  const second = pollOutput();
  outputs.openAssigned(second);
  outputs.of('t-0', second).collect('b');
  assert.deepEqual(polls, [['t-0:a'], ['t-0:b']]);
});
