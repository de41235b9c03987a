// The declarations under src/config/options are the one table of keys: each default is a value
// its own key accepts, and the derived views (defaults, secrets) follow the declarations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig, CONFIG_OPTIONS, DEFAULT_CONFIG, parseConfigValue, SECRET_CONFIG_KEYS, type ConfigKey } from '../../src/config/configuration.ts';

test('every default passes its own key\'s parsing, bounds and rule', () => {
  for (const key of Object.keys(CONFIG_OPTIONS) as ConfigKey[]) {
    assert.equal(parseConfigValue(key, DEFAULT_CONFIG[key]), DEFAULT_CONFIG[key], key);
  }
  assert.deepEqual(buildConfig(), DEFAULT_CONFIG);
});

test('defaults, secrets and nullability come from the declarations', () => {
  assert.deepEqual(Object.keys(DEFAULT_CONFIG), Object.keys(CONFIG_OPTIONS));
  for (const [key, o] of Object.entries(CONFIG_OPTIONS)) {
    assert.equal(o.key, key);
    assert.equal(DEFAULT_CONFIG[key as ConfigKey], o.defaultValue, key);
    assert.equal(o.nullable, o.defaultValue === null, key);
    assert.ok(o.doc.length > 0, `${key} has a description`);
  }
  assert.deepEqual([...SECRET_CONFIG_KEYS], ['rest.token', 'high-availability.nats.password', 'high-availability.nats.token']);
});
