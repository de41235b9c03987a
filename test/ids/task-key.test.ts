// Task and channel keys: one value for `vertex:subtask` and `edge:producer:consumer`, in the text
// checkpoints and logs already hold. What is built reads back the same; a text that is not a key
// is refused with a MalformedKeyError that says what it got and what form it expected.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedKeyError } from '../../src/ids/malformed-key-error.ts';
import { channelKey, parseChannelKey, parseTaskKey, taskKey } from '../../src/ids/task-key.ts';

/** Expects a MalformedKeyError for `key`, naming it and the expected form. */
function assertMalformed(read: () => unknown, kind: string, key: string, expected: string): void {
  assert.throws(read, (e: unknown) => {
    assert.ok(e instanceof MalformedKeyError, `expected a MalformedKeyError, got ${String(e)}`);
    assert.equal(e.kind, kind);
    assert.equal(e.key, key);
    assert.equal(e.expected, expected);
    assert.equal(e.message, `not a ${kind}: '${key}' (expected '${expected}')`);
    return true;
  });
}

describe('TaskKey', () => {
  test('the text is `<vertex id>:<subtask>`, as checkpoint metadata and logs hold it', () => {
    assert.equal(taskKey('cbc357ccb763df2852fee8c4fc7d55f2', 0), 'cbc357ccb763df2852fee8c4fc7d55f2:0');
    assert.equal(taskKey('v', 12), 'v:12');
  });

  test('round trip: parse gives back what was built, and building again gives the same key', () => {
    for (const [vertexId, subtask] of [['a', 0], ['a', 1], ['vertex-7', 127], ['x', Number.MAX_SAFE_INTEGER]] as const) {
      const key = taskKey(vertexId, subtask);
      assert.deepEqual(parseTaskKey(key), { vertexId, subtask });
      const back = parseTaskKey(key);
      assert.equal(taskKey(back.vertexId, back.subtask), key);
    }
  });

  test('a vertex id holding ":" keeps it: the subtask is what follows the last one', () => {
    for (const vertexId of ['a:b', 'uid:with:colons', ':leading', 'trailing:', '1:2']) {
      const key = taskKey(vertexId, 3);
      assert.equal(key, `${vertexId}:3`);
      assert.deepEqual(parseTaskKey(key), { vertexId, subtask: 3 });
    }
  });

  test('equal parts make equal keys: usable as a Map key', () => {
    const m = new Map([[taskKey('a', 1), 'one']]);
    assert.equal(m.get(taskKey('a', 1)), 'one');
    assert.equal(m.get(taskKey('a', 10)), undefined);
    assert.equal(m.get(taskKey('a:1', 0)), undefined);
  });

  test('a text that is not a task key is refused, naming it', () => {
    for (const bad of ['', 'a', ':0', 'a:', 'a:-1', 'a:1.5', 'a:01', 'a:+1', 'a: 1', 'a:1 ', 'a:1e2', 'a:0x1', 'a:NaN', 'a:Infinity', 'a:b', 'a:99999999999999999999']) {
      assertMalformed(() => parseTaskKey(bad), 'task key', bad, '<vertex id>:<subtask>');
    }
  });

  test('a key that could not be read back is not built', () => {
    assertMalformed(() => taskKey('', 0), 'task key', ':0', '<vertex id>:<subtask>');
    for (const subtask of [-1, 1.5, NaN, Infinity]) assertMalformed(() => taskKey('a', subtask), 'task key', `a:${subtask}`, '<vertex id>:<subtask>');
  });
});

describe('ChannelKey', () => {
  test('the text is `<edge id>:<producer>:<consumer>` and reads back', () => {
    const key = channelKey(3, 0, 2);
    assert.equal(key, '3:0:2');
    assert.deepEqual(parseChannelKey(key), { edgeId: 3, producer: 0, consumer: 2 });
    const back = parseChannelKey(key);
    assert.equal(channelKey(back.edgeId, back.producer, back.consumer), key);
  });

  test('a text that is not a channel key is refused, naming it', () => {
    for (const bad of ['', '3', '3:0', '3:0:2:1', '3::2', 'a:0:2', '3:-1:2', '3:0:02', '3:0:2.5']) {
      assertMalformed(() => parseChannelKey(bad), 'channel key', bad, '<edge id>:<producer>:<consumer>');
    }
    assertMalformed(() => channelKey(-1, 0, 0), 'channel key', '-1:0:0', '<edge id>:<producer>:<consumer>');
  });
});
