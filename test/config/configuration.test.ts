// Checking configuration values: each key's bounds, with errors that name the key, the bound and
// the value given.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';
import { buildConfig, parseConfigValue, type ConfigKey } from '../../src/config/configuration.ts';

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
