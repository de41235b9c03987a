// DirtyKeys: changes are logged as they come and grouped only when a delta asks for them; the
// grouping, the arrays sent to the snapshot thread, unions of spans and the log's compaction all
// give the same distinct keys per state and key group as a plain Set per group would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirtyKeys } from '../../../src/state/incremental/dirty-keys.ts';
import type { Key } from '../../../src/state/key-group.ts';

/** The expected grouping, kept the plain way. */
class Model {
  readonly sets = new Map<string, Set<Key>>();
  add(state: string, kg: number, key: Key): void {
    const k = `${state}/${kg}`;
    if (!this.sets.has(k)) this.sets.set(k, new Set());
    this.sets.get(k)!.add(key);
  }
  check(d: DirtyKeys, states: readonly string[], groups: number): void {
    for (const state of states) {
      for (let kg = 0; kg < groups; kg++) {
        const want = this.sets.get(`${state}/${kg}`);
        const got = d.keysOf(state, kg);
        assert.deepEqual(got === undefined ? undefined : [...got].sort(), want === undefined ? undefined : [...want].sort(), `${state} key group ${kg}`);
      }
    }
  }
}

function fill(d: DirtyKeys, m: Model, changes: number, seed: number): void {
  let x = seed;
  for (let i = 0; i < changes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const state = x % 3 === 0 ? 'a' : 'b';
    const key: Key = x % 5 === 0 ? `k${x % 97}` : x % 211;
    const kg = typeof key === 'number' ? key % 8 : 8 + (x % 97) % 4;
    d.add(state, kg, key);
    m.add(state, kg, key);
  }
}

test('keys are distinct per state and key group, also when more changes come after a delta asked for them', () => {
  const d = new DirtyKeys();
  const m = new Model();
  assert.equal(d.empty, true);
  fill(d, m, 5_000, 1);
  assert.equal(d.empty, false);
  m.check(d, ['a', 'b', 'c'], 12);
  fill(d, m, 5_000, 2);
  m.check(d, ['a', 'b', 'c'], 12);
});

test('the arrays sent to another thread and a union of spans give the same keys', () => {
  const spans = [new DirtyKeys(), new DirtyKeys(), new DirtyKeys()];
  const m = new Model();
  spans.forEach((span, i) => fill(span, m, 3_000, 10 + i));
  const union = DirtyKeys.union(spans);
  m.check(union, ['a', 'b'], 12);
  const cloned = DirtyKeys.fromEntries(structuredClone(union.toEntries()));
  m.check(cloned, ['a', 'b'], 12);
});

test('a span no checkpoint ends stays as large as its distinct keys, not its changes', () => {
  const d = new DirtyKeys();
  const m = new Model();
  fill(d, m, 3_000_000, 7);
  // Each state's log is made distinct when it reaches 2^20 changes (or twice its distinct keys).
  const logged = (keys: readonly unknown[][]) => keys.reduce((n, chunk) => n + chunk.length, 0);
  for (const [state, , keys] of d.toEntries()) assert.ok(logged(keys) <= 1 << 20, `${logged(keys)} changes logged for state ${state}`);
  m.check(d, ['a', 'b'], 12);
});
