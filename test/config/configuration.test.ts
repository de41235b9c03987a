// Checking configuration values: each key's bounds, with errors that name the key, the bound and
// the value given.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';
import { buildConfig, buildLayeredConfig, parseConfigValue, type ConfigKey } from '../../src/config/configuration.ts';

/** Asserts that the value is refused with a ConfigError naming the key and matching `problem`. */
function refused(key: ConfigKey, raw: unknown, problem: RegExp): void {
  assert.throws(
    () => parseConfigValue(key, raw),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.key, key);
      assert.ok(e.message.includes(`'${key}'`), e.message);
      assert.match(e.message, problem);
      return true;
    },
  );
}

describe('upper bounds', () => {
  test('rest.port: at most 65535', () => {
    refused('rest.port', '99999', /at most 65535, got 99999/);
    refused('rest.port', 65536, /at most 65535/);
    assert.equal(parseConfigValue('rest.port', '65535'), 65535);
    assert.equal(parseConfigValue('rest.port', '0'), 0);
  });

  test('the exponential-delay jitter factor: 0..1', () => {
    refused('restart-strategy.exponential-delay.jitter-factor', '5', /at most 1, got 5/);
    refused('restart-strategy.exponential-delay.jitter-factor', '-0.1', /at least 0/);
    assert.equal(parseConfigValue('restart-strategy.exponential-delay.jitter-factor', '1'), 1);
    assert.equal(parseConfigValue('restart-strategy.exponential-delay.jitter-factor', 0.25), 0.25);
  });

  test('parallelism and max parallelism: at most 32768 key groups', () => {
    refused('pipeline.max-parallelism', '40000', /at most 32768/);
    refused('parallelism.default', '40000', /at most 32768/);
    assert.equal(parseConfigValue('pipeline.max-parallelism', '32768'), 32768);
  });

  test('durations that become timers: at most 2^31-1 ms, the longest a Node timer waits', () => {
    for (const key of [
      'execution.checkpointing.interval',
      'execution.checkpointing.timeout',
      'execution.checkpointing.aligned-checkpoint-timeout',
      'restart-strategy.fixed-delay.delay',
      'restart-strategy.exponential-delay.max-backoff',
    ] as const) {
      refused(key, '30 d', /at most 2147483647 ms, got 2592000000 ms/);
    }
    assert.equal(parseConfigValue('execution.checkpointing.interval', '24 h'), 86_400_000);
  });

  test('a bound is checked in every layer that buildConfig merges', () => {
    assert.throws(() => buildConfig({}, { 'rest.port': 99999 }), (e: unknown) => e instanceof ConfigError && e.key === 'rest.port');
  });
});

describe('layers', () => {
  test('an error about a key names the layer it came from: a file, the command line, the job', () => {
    const layers = (bad: 'file' | 'job' | 'command-line') =>
      buildLayeredConfig([
        { source: { kind: 'file', path: '/x/conf.yaml' }, settings: bad === 'file' ? { 'rest.port': 'eighty' } : {} },
        { source: { kind: 'job' }, settings: bad === 'job' ? { 'rest.port': 'eighty' } : {} },
        { source: { kind: 'command-line' }, settings: bad === 'command-line' ? { 'rest.port': 'eighty' } : {} },
      ]);
    const expected = { file: 'config file /x/conf.yaml', job: "the job's own settings", 'command-line': 'command line' } as const;
    for (const bad of ['file', 'job', 'command-line'] as const) {
      assert.throws(
        () => layers(bad),
        (e: unknown) => e instanceof ConfigError && e.source?.kind === bad && e.message === `${expected[bad]}: configuration key 'rest.port': expected a number, got 'eighty'` && e.cause instanceof ConfigError,
      );
    }
  });

  test('a rule between two keys names the layer of the key it is about', () => {
    assert.throws(
      () =>
        buildLayeredConfig([
          { source: { kind: 'file', path: '/x/conf.yaml' }, settings: { 'execution.checkpointing.interval': '10 s' } },
          { source: { kind: 'command-line' }, settings: { 'execution.checkpointing.interval-during-backlog': '1 s' } },
        ]),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith("command line: configuration key 'execution.checkpointing.interval-during-backlog': must be 0 or at least"),
    );
  });

  test('buildConfig, without sources, names only the key', () => {
    assert.throws(() => buildConfig({ 'rest.port': 'eighty' }), (e: unknown) => e instanceof ConfigError && e.source === undefined && e.message.startsWith("configuration key 'rest.port'"));
  });
});

describe('rest.token-required-for-reads', () => {
  test('unset by default, true or false when set; true needs rest.token', () => {
    assert.equal(buildConfig({})['rest.token-required-for-reads'], null);
    assert.equal(buildConfig({ 'rest.token-required-for-reads': 'false' })['rest.token-required-for-reads'], false);
    assert.equal(buildConfig({ 'rest.token': 't', 'rest.token-required-for-reads': 'true' })['rest.token-required-for-reads'], true);
    refused('rest.token-required-for-reads', 'maybe', /expected true or false/);
    assert.throws(
      () => buildLayeredConfig([{ source: { kind: 'command-line' }, settings: { 'rest.token-required-for-reads': 'true' } }]),
      (e: unknown) => e instanceof ConfigError && e.message === "command line: configuration key 'rest.token-required-for-reads': needs rest.token, the token reads must then present",
    );
  });
});
