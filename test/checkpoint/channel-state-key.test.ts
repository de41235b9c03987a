// The key a channel's in-flight data is filed under in an unaligned checkpoint: `<edge id>:<channel>`,
// the text `_metadata` has always held, so checkpoints taken before this type restore after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { channelStateKey, parseChannelStateKey, toChannelStateKey } from '../../src/checkpoint/channel-state-key.ts';
import { MalformedKeyError } from '../../src/ids/malformed-key-error.ts';

test('the text is `<edge id>:<channel>` and reads back', () => {
  for (const [edgeId, channel] of [[0, 0], [3, 1], [12, 127]] as const) {
    const key = channelStateKey(edgeId, channel);
    assert.equal(key, `${edgeId}:${channel}`);
    assert.deepEqual(parseChannelStateKey(key), { edgeId, channel });
    assert.equal(toChannelStateKey(key), key);
  }
});

test('a key as stored text (from _metadata) is taken as it is', () => {
  assert.equal(toChannelStateKey('4:1'), channelStateKey(4, 1));
});

test('a text that is not a channel state key is refused, naming it', () => {
  for (const bad of ['', '3', ':1', '3:', '3:1:2', 'a:1', '3:b', '-1:0', '3:01', '3: 1', '3:1e0']) {
    assert.throws(
      () => toChannelStateKey(bad),
      (e: unknown) => e instanceof MalformedKeyError && e.kind === 'channel state key' && e.key === bad && e.message === `not a channel state key: '${bad}' (expected '<edge id>:<channel>')`,
      bad,
    );
  }
  assert.throws(() => channelStateKey(1, -1), MalformedKeyError);
});
