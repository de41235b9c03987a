// An unknown configuration key is refused with the nearest known key as a hint: a typo finds its
// key by edit distance, Flink's former name of a key finds the key, a key far from all gets none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';
import { buildConfig, buildLayeredConfig } from '../../src/config/configuration.ts';
import { editDistance } from '../../src/config/edit-distance.ts';

/** The message buildConfig refuses a layer holding only `key` with. */
function refusal(key: string): string {
  try {
    buildConfig({ [key]: '1' });
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(e.key, key);
    return e.message;
  }
  assert.fail(`'${key}' was accepted`);
}

test('a typo gets the key it is one edit away from', () => {
  assert.equal(refusal('execution.checkpointing.intervall'), "configuration key 'execution.checkpointing.intervall': unknown key (did you mean execution.checkpointing.interval?)");
  assert.equal(refusal('rest.tokn'), "configuration key 'rest.tokn': unknown key (did you mean rest.token?)");
  assert.equal(refusal('heartbeat.timout'), "configuration key 'heartbeat.timout': unknown key (did you mean heartbeat.timeout?)");
});

test('the nearest of several close keys wins', () => {
  // One edit from execution.checkpointing.timeout, more from every other key.
  assert.match(refusal('execution.checkpointing.timeot'), /\(did you mean execution\.checkpointing\.timeout\?\)$/);
});

test("Flink's former name of a key points to the key", () => {
  assert.match(refusal('state.checkpoints.dir'), /\(did you mean execution\.checkpointing\.dir\? state\.checkpoints\.dir is Flink's former name of it\)$/);
  assert.match(refusal('state.savepoints.dir'), /did you mean execution\.checkpointing\.savepoint-dir\?/);
  assert.match(refusal('execution.checkpointing.unaligned'), /did you mean execution\.checkpointing\.unaligned\.enabled\?/);
});

test('a key far from every key gets no suggestion', () => {
  assert.equal(refusal('kafka.consumer.group'), "configuration key 'kafka.consumer.group': unknown key");
  assert.equal(refusal('foo'), "configuration key 'foo': unknown key");
});

test('the hint is in the error that names the layer', () => {
  assert.throws(
    () => buildLayeredConfig([{ source: { kind: 'file', path: '/etc/weir.yaml' }, settings: { 'heartbeat.intervall': '1 s' } }]),
    { message: "config file /etc/weir.yaml: configuration key 'heartbeat.intervall': unknown key (did you mean heartbeat.interval?)" },
  );
});

test('edit distance: insertions, deletions and substitutions count one each', () => {
  assert.equal(editDistance('', ''), 0);
  assert.equal(editDistance('interval', 'interval'), 0);
  assert.equal(editDistance('intervall', 'interval'), 1);
  assert.equal(editDistance('interval', 'intrval'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
});
