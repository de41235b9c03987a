// COPY's text format of single values, and the fast timestamp formatting matching Date#toISOString.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyField, isoTimestamp } from '../../../src/connectors/postgres/copy-text.ts';

test('copyField: NULL, escapes, numbers, dates, bytes, JSON', () => {
  assert.equal(copyField(null), '\\N');
  assert.equal(copyField(undefined), '\\N');
  assert.equal(copyField('a\tb\nc\rd\\e'), 'a\\tb\\nc\\rd\\\\e');
  assert.equal(copyField(1.5), '1.5');
  assert.equal(copyField(Number.NaN), 'NaN');
  assert.equal(copyField(-Infinity), '-Infinity');
  assert.equal(copyField(12345678901234567890n), '12345678901234567890');
  assert.equal(copyField(true), 't');
  assert.equal(copyField(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))), '2026-01-02T03:04:05.006Z');
  assert.equal(copyField(Uint8Array.of(1, 255)), '\\\\x01ff');
  assert.equal(copyField({ a: 'x\ty' }), '{"a":"x\\\\ty"}');
});

test('isoTimestamp equals Date#toISOString across the whole Date range, day boundaries and negative years included', () => {
  const edges = [0, -1, 1, -86_400_000, -86_400_001, 86_399_999, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, 8.64e15, -8.64e15];
  let checked = 0;
  let seed = 7;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648 - 0.5) * 2 * 8.64e15;
  for (const ms of [...edges, ...Array.from({ length: 20_000 }, () => Math.round(random())), ...Array.from({ length: 5000 }, (_, i) => 1_767_225_599_000 + i * 997)]) {
    const d = new Date(ms);
    assert.equal(isoTimestamp(d), d.toISOString(), `for ${ms}`);
    checked++;
  }
  assert.ok(checked > 25_000);
  assert.throws(() => isoTimestamp(new Date(Number.NaN)), RangeError);
});
