// A table's changed keys in chunks: every key noted comes back in order across chunk boundaries,
// and a log of churned keys is made distinct once it passes its compaction size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangedKeys } from '../../../src/state/incremental/changed-keys.ts';
import { CHUNK, FIRST_COMPACTION } from '../../../src/state/incremental/dirty-keys.ts';

test('keys come back in the order noted, across chunks, with their count', () => {
  const log = new ChangedKeys();
  assert.equal(log.size, 0);
  assert.deepEqual([...log], []);
  const keys = Array.from({ length: 2 * CHUNK + 17 }, (_, i) => (i % 3 === 0 ? `k${i}` : i));
  for (const k of keys) log.add(k);
  assert.equal(log.size, keys.length);
  assert.deepEqual([...log], keys);
});

test('a log of keys removed and made again and again is made distinct, and grows again only by the notes since', () => {
  const log = new ChangedKeys();
  const distinct = 1000;
  // Churn: each key removed and made again many times in one interval (a note each).
  const notes = FIRST_COMPACTION + 5 * CHUNK;
  for (let i = 0; i < notes; i++) {
    if (i % 2 === 0) log.addRemoved(i % distinct);
    else log.add(i % distinct);
  }
  // Made distinct at FIRST_COMPACTION notes (1000 left), then grown by the notes since.
  assert.equal(log.size, distinct + (notes - FIRST_COMPACTION), `the log holds ${log.size} notes of ${distinct} keys`);
  assert.deepEqual(new Set(log), new Set(Array.from({ length: distinct }, (_, i) => i)));
  // Distinct keys beyond the compaction size are all kept.
  const big = new ChangedKeys();
  const n = FIRST_COMPACTION + 3 * CHUNK;
  for (let i = 0; i < n; i++) big.add(i);
  assert.equal(big.size, n);
  let expected = 0;
  for (const k of big) assert.equal(k, expected++);
  assert.equal(expected, n);
});

test('a log with few removals is not made distinct: it is within twice its distinct keys already', () => {
  const log = new ChangedKeys();
  // Notes the table would not make without removals, so that a compaction would show.
  const notes = FIRST_COMPACTION + 2 * CHUNK;
  let removed = 0;
  for (let i = 0; i < notes; i++) {
    if (i % 5 === 0) {
      log.addRemoved(i % 1000);
      removed++;
    } else log.add(i % 1000);
  }
  assert.ok(4 * removed < notes);
  assert.equal(log.size, notes, 'the log was made distinct although removals were under a quarter of its notes');
});
