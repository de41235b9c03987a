// The lmdb backend's cache: which entries leave when it makes room (the CLOCK rule).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StateCache, type CachedEntry } from '../../../src/state/lmdb/state-cache.ts';

const entry = (value: number): CachedEntry => ({ value, dirty: false, changed: false, used: false, keyGroup: 0 });

function filled(limit: number, keys: number): StateCache {
  const cache = new StateCache(limit);
  for (let k = 0; k < keys; k++) assert.equal(cache.add(k, entry(k)), undefined, `key ${k} fits`);
  return cache;
}

test('making room takes the oldest unused entries, an eighth of the limit, and keeps the new one', () => {
  const cache = filled(16, 16);
  const left = cache.add(16, entry(16));
  assert.deepEqual(left?.map(([k]) => k), [0, 1, 2]);
  assert.equal(cache.size, 14);
  assert.equal(cache.peek(16)?.value, 16);
});

test('an entry used since the last round stays (second chance) and loses its mark; unused ones leave in its place', () => {
  const cache = filled(16, 16);
  assert.equal(cache.get(0)?.value, 0);
  assert.equal(cache.get(2)?.value, 2);
  const left = cache.add(16, entry(16));
  assert.deepEqual(left?.map(([k]) => k), [1, 3, 4]);
  assert.equal(cache.peek(0)?.used, false, 'the mark is spent');
  // Kept entries went to the end: the next room is made from 5 on, and 0 and 2 leave after 15.
  assert.equal(cache.add(17, entry(17)), undefined);
  assert.equal(cache.add(18, entry(18)), undefined);
  assert.deepEqual(cache.add(19, entry(19))?.map(([k]) => k), [5, 6, 7]);
});

test('when every entry was used, a second round takes the oldest; the new entry never leaves', () => {
  const cache = filled(16, 16);
  for (let k = 0; k < 16; k++) cache.get(k);
  const left = cache.add(16, entry(16));
  assert.deepEqual(left?.map(([k]) => k), [0, 1, 2]);
  assert.equal(cache.size, 14);
  assert.ok(cache.peek(16) !== undefined);
  for (let k = 3; k < 16; k++) assert.equal(cache.peek(k)?.used, false, `key ${k} kept without its mark`);
});

test('peek neither marks nor moves an entry', () => {
  const cache = filled(16, 16);
  cache.peek(0);
  assert.deepEqual(cache.add(16, entry(16))?.map(([k]) => k), [0, 1, 2]);
});
