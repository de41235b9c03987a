// State TTL on every keyed state backend, on a manual clock: what a read returns, the update and
// visibility modes, cleanup on read, in full snapshots and incrementally, and expiry carried
// through a checkpoint file and a restore (the timestamps are stored with the values).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateTtlConfig,
  StateTtlError,
  Types,
  ValueStateDescriptor,
  type TypeSerializer,
} from '../../../src/index.ts';
import { readKeyedStateFile, writeKeyedStateFile } from '../../../src/checkpoint/keyed-state-file.ts';
import { readAllEntries } from '../../../src/checkpoint/keyed-state-file-reader.ts';
import type { KeyedStateHandle } from '../../../src/checkpoint/state-handles.ts';
import type { Key } from '../../../src/state/key-group.ts';
import type { KeyedStateBackend } from '../../../src/state/keyed-state-backend.ts';
import { StateMigrationError } from '../../../src/state/state-migration-error.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { keyedBackend, STATE_BACKENDS } from '../../fixtures/state-backends.ts';
import { jsonTextSerializer } from '../../fixtures/json-text-serializer.ts';

const MAX = 128;
const TTL = 1000;
let dir: string;
let files = 0;
before(() => {
  dir = makeTempDir('state-ttl');
});
after(() => removeDir(dir));

/** A manual clock the backends stamp and expire by. */
class Clock {
  t = 1_000_000;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

const jsonText = jsonTextSerializer(1);

const ttl = (configure: (b: ReturnType<typeof StateTtlConfig.newBuilder>) => unknown = () => {}): StateTtlConfig => {
  const b = StateTtlConfig.newBuilder(TTL);
  configure(b);
  return b.build();
};

async function checkpoint(b: KeyedStateBackend): Promise<KeyedStateHandle> {
  const captured = b.snapshot();
  try {
    return await writeKeyedStateFile(join(dir, `ttl-${files++}`), captured);
  } finally {
    for (const t of captured.tables) t.snapshot.release();
  }
}

/** What a checkpoint holds of one state, by key. */
function stored(handle: KeyedStateHandle, name: string): Map<Key, unknown> {
  const byState = readAllEntries(readKeyedStateFile(handle, (f) => f, { start: 0, end: MAX - 1 }));
  const out = new Map<Key, unknown>();
  for (const entries of byState.get(name)?.values() ?? []) for (const [k, v] of entries) out.set(k, v);
  return out;
}

function restore(handle: KeyedStateHandle, into: KeyedStateBackend): void {
  const file = readKeyedStateFile(handle, (f) => f, into.keyGroupRange);
  for (const kg of file.keyGroups) file.readKeyGroup(kg, (info, g) => into.restoreTarget(info, g));
}

for (const type of STATE_BACKENDS) {
  const backend = (clock: Clock): KeyedStateBackend => keyedBackend(type, { start: 0, end: MAX - 1 }, MAX, 'ttl-op', clock.now);

  describe(`state TTL on the ${type} backend`, () => {
    test('value state: gone once its TTL has passed since the last write; a write starts it again; reads do not (OnCreateAndWrite)', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getValueState(new ValueStateDescriptor<number>('v', { type: Types.int }).enableTimeToLive(ttl()));
      b.setCurrentKey('a');
      s.update(1);
      clock.advance(TTL - 1);
      assert.equal(s.value(), 1);
      s.update(2);
      clock.advance(TTL - 1);
      assert.equal(s.value(), 2, 'the second write started the TTL again');
      clock.advance(1);
      assert.equal(s.value(), undefined, 'expired exactly at write + TTL');
      b.setCurrentKey('b');
      assert.equal(s.value(), undefined);
    });

    test('OnReadAndWrite: a read keeps the value alive', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getValueState(new ValueStateDescriptor<string>('v').enableTimeToLive(ttl((c) => c.updateTtlOnReadAndWrite())));
      b.setCurrentKey('a');
      s.update('x');
      for (let i = 0; i < 5; i++) {
        clock.advance(TTL - 1);
        assert.equal(s.value(), 'x', `read ${i}`);
      }
      clock.advance(TTL);
      assert.equal(s.value(), undefined);
    });

    test('ReturnExpiredIfNotCleanedUp: an expired value not cleaned up yet is returned once, then it is gone', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getValueState(new ValueStateDescriptor<number>('v').enableTimeToLive(ttl((c) => c.returnExpiredIfNotCleanedUp().disableCleanupInBackground())));
      b.setCurrentKey('a');
      s.update(7);
      clock.advance(TTL);
      assert.equal(s.value(), 7);
      assert.equal(s.value(), undefined, 'the read cleaned it up');
    });

    test('a default value is what an expired value state reads as', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getValueState(new ValueStateDescriptor<number>('v', { defaultValue: 0 }).enableTimeToLive(ttl()));
      b.setCurrentKey('a');
      s.update(5);
      clock.advance(TTL);
      assert.equal(s.value(), 0);
    });

    test('list state: each element expires on its own', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getListState(new ListStateDescriptor<string>('l', { elementType: Types.string }).enableTimeToLive(ttl()));
      b.setCurrentKey('a');
      s.add('first');
      clock.advance(400);
      s.addAll(['second', 'third']);
      clock.advance(400);
      s.add('fourth');
      assert.deepEqual(s.get(), ['first', 'second', 'third', 'fourth']);
      clock.advance(200);
      assert.deepEqual(s.get(), ['second', 'third', 'fourth']);
      clock.advance(400);
      assert.deepEqual(s.get(), ['fourth']);
      s.update(['a', 'b']);
      clock.advance(999);
      assert.deepEqual(s.get(), ['a', 'b']);
      clock.advance(1);
      assert.deepEqual(s.get(), []);
    });

    test('map state: each entry expires on its own; entries, keys, values, contains and isEmpty skip expired ones', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getMapState(new MapStateDescriptor<string, number>('m').enableTimeToLive(ttl()));
      b.setCurrentKey('a');
      s.put('x', 1);
      clock.advance(500);
      s.put('y', 2);
      clock.advance(500);
      assert.equal(s.get('x'), undefined);
      assert.equal(s.contains('x'), false);
      assert.equal(s.get('y'), 2);
      assert.deepEqual([...s.entries()], [['y', 2]]);
      assert.deepEqual([...s.keys()], ['y']);
      assert.deepEqual([...s.values()], [2]);
      assert.equal(s.isEmpty(), false);
      clock.advance(500);
      assert.equal(s.isEmpty(), true);
    });

    test('reducing and aggregating state: an expired accumulated value is not folded into the next one', () => {
      const clock = new Clock();
      const b = backend(clock);
      const sum = b.getReducingState(new ReducingStateDescriptor<number>('sum', (x, y) => x + y, { type: Types.int }).enableTimeToLive(ttl()));
      const avg = b.getAggregatingState(
        new AggregatingStateDescriptor<number, [number, number], number>('avg', {
          createAccumulator: () => [0, 0],
          add: (v, [s, n]) => [s + v, n + 1],
          getResult: ([s, n]) => s / n,
        }).enableTimeToLive(ttl()),
      );
      b.setCurrentKey('a');
      sum.add(1);
      sum.add(2);
      avg.add(2);
      avg.add(4);
      assert.equal(sum.get(), 3);
      assert.equal(avg.get(), 3);
      clock.advance(TTL);
      sum.add(10);
      avg.add(10);
      assert.equal(sum.get(), 10);
      assert.equal(avg.get(), 10);
    });

    test('a serializer of the job\'s own carries the timestamp for a single value; a list or map of one is refused', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getValueState(new ValueStateDescriptor<unknown>('custom', { serializer: jsonText }).enableTimeToLive(ttl()));
      b.setCurrentKey('a');
      s.update({ n: 1 });
      assert.deepEqual(s.value(), { n: 1 });
      clock.advance(TTL);
      assert.equal(s.value(), undefined);
      assert.throws(
        () => new ListStateDescriptor<number>('l', { serializer: jsonText as TypeSerializer<number[]> }).enableTimeToLive(ttl()),
        (e: unknown) => e instanceof StateTtlError && e.stateName === 'l' && /timestamp per element.*json-text.*elementType/.test(e.message),
      );
      assert.throws(() => new MapStateDescriptor<string, number>('m', { serializer: jsonText as TypeSerializer<Map<string, number>> }).enableTimeToLive(ttl()), StateTtlError);
    });

    test('full-snapshot cleanup: expired entries, elements and map entries are absent from the checkpoint; without it they are written', async () => {
      const clock = new Clock();
      const b = backend(clock);
      const full = ttl((c) => c.cleanupFullSnapshot().disableCleanupInBackground());
      const v = b.getValueState(new ValueStateDescriptor<number>('v', { type: Types.int }).enableTimeToLive(full));
      const l = b.getListState(new ListStateDescriptor<number>('l').enableTimeToLive(full));
      const m = b.getMapState(new MapStateDescriptor<string, number>('m', { keyType: Types.string, valueType: Types.int }).enableTimeToLive(full));
      const kept = b.getValueState(new ValueStateDescriptor<number>('kept').enableTimeToLive(ttl((c) => c.disableCleanupInBackground())));
      for (let i = 0; i < 200; i++) {
        b.setCurrentKey(`k${i}`);
        v.update(i);
        l.add(i);
        m.put('old', i);
        kept.update(i);
      }
      clock.advance(600);
      for (let i = 0; i < 200; i += 2) {
        b.setCurrentKey(`k${i}`);
        v.update(1000 + i);
        l.add(1000 + i);
        m.put('new', 1000 + i);
      }
      clock.advance(400);
      const handle = await checkpoint(b);
      const vs = stored(handle, 'v');
      assert.deepEqual([...vs.keys()].sort(), Array.from({ length: 100 }, (_, i) => `k${2 * i}`).sort());
      for (const [k, x] of vs) assert.equal((x as { v: number }).v, 1000 + Number(String(k).slice(1)));
      const ls = stored(handle, 'l');
      assert.equal(ls.size, 100);
      for (const [k, x] of ls) assert.deepEqual((x as Array<{ v: number }>).map((e) => e.v), [1000 + Number(String(k).slice(1))]);
      const ms = stored(handle, 'm');
      assert.equal(ms.size, 100);
      for (const x of ms.values()) assert.deepEqual([...(x as Map<string, unknown>).keys()], ['new']);
      assert.equal(stored(handle, 'kept').size, 200, 'without full-snapshot cleanup the expired values are written (and expire on read after a restore)');
      // The live state is not touched by the snapshot's filter.
      b.setCurrentKey('k1');
      assert.equal(l.get().length, 0);
    });

    for (const into of STATE_BACKENDS) {
      test(`restored into the ${into} backend: timestamps come back with the values, so what expired stays expired and the rest expires on time`, async () => {
        const clock = new Clock();
        const a = backend(clock);
        const descriptors = () => ({
          v: new ValueStateDescriptor<number>('v', { type: Types.int }).enableTimeToLive(ttl((c) => c.cleanupFullSnapshot())),
          l: new ListStateDescriptor<string>('l').enableTimeToLive(ttl((c) => c.cleanupFullSnapshot())),
          m: new MapStateDescriptor<string, number>('m').enableTimeToLive(ttl((c) => c.cleanupFullSnapshot())),
          c: new ValueStateDescriptor<unknown>('c', { serializer: jsonText }).enableTimeToLive(ttl((c) => c.cleanupFullSnapshot())),
        });
        const d = descriptors();
        const [v, l, m, c] = [a.getValueState(d.v), a.getListState(d.l), a.getMapState(d.m), a.getValueState(d.c)];
        const stamp = (i: number) => {
          a.setCurrentKey(`k${i}`);
          v.update(i);
          l.add(`e${i}`);
          m.put('x', i);
          c.update({ i });
        };
        for (let i = 0; i < 50; i++) stamp(i);
        clock.advance(500);
        for (let i = 50; i < 100; i++) stamp(i);
        const handle = await checkpoint(a);
        assert.equal(stored(handle, 'v').size, 100);

        // Restored 700 ms later: the first 50 keys are past their TTL, the others not yet.
        clock.advance(700);
        const b = keyedBackend(into, { start: 0, end: MAX - 1 }, MAX, 'ttl-op', clock.now);
        restore(handle, b);
        const d2 = descriptors();
        const [v2, l2, m2, c2] = [b.getValueState(d2.v), b.getListState(d2.l), b.getMapState(d2.m), b.getValueState(d2.c)];
        // The next checkpoint (full-snapshot cleanup) holds none of the expired ones, before any read.
        const next = await checkpoint(b);
        for (const name of ['v', 'l', 'm', 'c']) assert.deepEqual([...stored(next, name).keys()].sort(), Array.from({ length: 50 }, (_, i) => `k${50 + i}`).sort(), name);
        for (let i = 0; i < 100; i++) {
          b.setCurrentKey(`k${i}`);
          const alive = i >= 50;
          assert.equal(v2.value(), alive ? i : undefined, `v k${i}`);
          assert.deepEqual(l2.get(), alive ? [`e${i}`] : [], `l k${i}`);
          assert.equal(m2.get('x'), alive ? i : undefined, `m k${i}`);
          assert.deepEqual(c2.value(), alive ? { i } : undefined, `c k${i}`);
        }
        clock.advance(300);
        for (let i = 50; i < 100; i++) {
          b.setCurrentKey(`k${i}`);
          assert.equal(v2.value(), undefined, `v k${i} expired on time after the restore (not stamped again by it)`);
        }
        // A savepoint restored after the TTL passed: none of it is returned, and its next snapshot is empty.
        const c3 = keyedBackend(into, { start: 0, end: MAX - 1 }, MAX, 'ttl-op', clock.now);
        restore(handle, c3);
        const d3 = descriptors();
        const [v3, l3] = [c3.getValueState(d3.v), c3.getListState(d3.l)];
        c3.getMapState(d3.m);
        c3.getValueState(d3.c);
        const empty = await checkpoint(c3);
        for (const name of ['v', 'l', 'm', 'c']) assert.equal(stored(empty, name).size, 0, name);
        for (let i = 0; i < 100; i++) {
          c3.setCurrentKey(`k${i}`);
          assert.equal(v3.value(), undefined);
          assert.deepEqual(l3.get(), []);
        }
      });
    }

    test('state written without a TTL is refused by a descriptor with one, naming the state', async () => {
      const clock = new Clock();
      const a = backend(clock);
      const plain = a.getValueState(new ValueStateDescriptor<number>('v', { type: Types.int }));
      const loose = a.getValueState(new ValueStateDescriptor<number>('loose'));
      a.setCurrentKey('a');
      plain.update(1);
      loose.update(1);
      const handle = await checkpoint(a);
      const b = backend(clock);
      restore(handle, b);
      assert.throws(() => b.getValueState(new ValueStateDescriptor<number>('v', { type: Types.int }).enableTimeToLive(ttl())), (e: unknown) => e instanceof StateMigrationError && /'v'/.test(e.message));
      assert.throws(() => b.getValueState(new ValueStateDescriptor<number>('loose').enableTimeToLive(ttl())), (e: unknown) => e instanceof StateMigrationError && /'loose'/.test(e.message));
    });

    test('incremental cleanup: expired entries of keys never read again go, a few per access, until none is left', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getValueState(new ValueStateDescriptor<number>('v').enableTimeToLive(ttl((c) => c.cleanupIncrementally(10))));
      for (let i = 0; i < 1000; i++) {
        b.setCurrentKey(`k${i}`);
        s.update(i);
      }
      clock.advance(TTL);
      b.setCurrentKey('hot');
      s.update(0);
      assert.ok(b.keysOf('v').length > 900, 'nothing swept yet beyond a few');
      let accesses = 0;
      while (b.keysOf('v').length > 1 && accesses < 1000) {
        s.value();
        accesses++;
      }
      assert.deepEqual(b.keysOf('v'), ['hot'], `only the live key is left after ${accesses} accesses`);
      assert.ok(accesses <= 110, `about 1000 / 10 accesses, took ${accesses}`);
    });

    test('incremental cleanup for every record: the sweep runs as records arrive, without touching the state', () => {
      const clock = new Clock();
      const b = backend(clock);
      const s = b.getListState(new ListStateDescriptor<number>('l', { elementType: Types.int }).enableTimeToLive(ttl((c) => c.cleanupIncrementally(5, true))));
      for (let i = 0; i < 300; i++) {
        b.setCurrentKey(i);
        s.add(i);
        if (i % 2 === 0) s.add(-i);
      }
      clock.advance(TTL);
      for (let i = 0; i < 100; i++) b.setCurrentKey('other');
      assert.equal(b.keysOf('l').length, 0);
    });
  });
}
