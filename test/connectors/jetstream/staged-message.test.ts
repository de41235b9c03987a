// What the exactly-once JetStreamSink keeps per message until its checkpoint is published: the
// compact copy of a text payload is the same text (multi-byte characters included), subjects
// made per record are shared, and the sharing stops at its limit instead of growing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stageMessage, payloadOf } from '../../../src/connectors/jetstream/staged-message.ts';
import { InternedStrings } from '../../../src/connectors/jetstream/interned-strings.ts';
import { StagingJetStreamWriter } from '../../../src/connectors/jetstream/jetstream-sink-writer.ts';

const options = { connection: { servers: 'nats://unused' }, stream: 'out', subject: (v: { word: string; n?: number }) => `counts.${v.word}` };

test('a staged text payload is the serialized text, multi-byte characters included', () => {
  for (const word of ['plain', 'äöü', '日本語', 'emoji 😀', '']) {
    const value = { word, n: 3 };
    const m = stageMessage(options, value);
    assert.equal(m.text, JSON.stringify(value));
    assert.equal(payloadOf(m), JSON.stringify(value));
    assert.equal(m.subject, `counts.${word}`);
  }
  const bytes = stageMessage({ ...options, serializer: () => new Uint8Array([0, 255, 7]) }, { word: 'b' });
  assert.deepEqual([...(payloadOf(bytes) as Uint8Array)], [0, 255, 7]);
});

test('the staging writer hands over every message in order, with one subject string per distinct subject', () => {
  const writer = new StagingJetStreamWriter(options, 2);
  for (let i = 0; i < 1000; i++) writer.write({ word: `w${i % 7}`, n: i });
  const [c] = writer.prepareCommit(5);
  assert.ok(c);
  assert.equal(c.subtask, 2);
  assert.equal(c.checkpointId, 5);
  assert.deepEqual(c.messages.map((m) => JSON.parse(m.text!).n), Array.from({ length: 1000 }, (_, i) => i));
  assert.deepEqual(c.messages.map((m) => m.subject), Array.from({ length: 1000 }, (_, i) => `counts.w${i % 7}`));
  assert.deepEqual(writer.prepareCommit(6), [], 'nothing staged since');
});

test('InternedStrings returns the first copy of a string, and stops remembering past its limit', () => {
  const strings = new InternedStrings(2);
  const a = strings.intern(['a', 'b'].join(''));
  assert.equal(strings.intern(`${'a'}b`), a);
  strings.intern('c');
  assert.equal(strings.intern('d'), 'd', 'past the limit a string is returned as given');
  assert.equal(strings.intern('ab'), a, 'what it remembered stays');
});
