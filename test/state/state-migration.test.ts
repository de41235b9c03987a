// State written by one serializer version and read by the next: with an upgrade function on the
// descriptor the restored values are transformed; without one the restore fails with a
// StateMigrationError naming the operator uid, the state and both versions. On the heap backend
// alone, and through a savepoint of a running job. Then declared types through a savepoint
// (int -> bigint migrates, string -> int fails naming both serializers) and a value that does
// not fit its declared type, which fails the checkpoint.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  createJobMaster,
  defineJob,
  JobFailure,
  msgpackSerializer,
  StateMigrationError,
  Types,
  ValueStateDescriptor,
  type JobDefinition,
  type JobMaster,
  type KeyedProcessFunction,
  type Sink,
  type TypeSerializer,
  type ValueState,
} from '../../src/index.ts';
import { DataGen, type DataGenSplit } from '../../src/connectors/datagen/index.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import { keyGroupFor } from '../../src/state/key-group.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

function backend(): HeapKeyedStateBackend {
  return new HeapKeyedStateBackend({ start: 0, end: 127 }, 128, 'totals', () => 'the test backend');
}

/** Puts `value` for `key` back as a restore would, written by (serializer id, version). */
function restore(b: HeapKeyedStateBackend, key: string, value: unknown, serializer: string, version: number): void {
  b.restoreEntries({ name: 'total', kind: 'value', serializer, version }, keyGroupFor(key, 128), [[key, value]]);
}

/** A serializer that is not the default one: values are stored as the bytes it makes. */
function jsonSerializer<T>(version: number): TypeSerializer<T> {
  return {
    id: 'json',
    version,
    serialize: (v) => new TextEncoder().encode(JSON.stringify(v)),
    deserialize: (b) => JSON.parse(new TextDecoder().decode(b)) as T,
    copy: (v) => structuredClone(v),
  };
}

describe('serializer versions on the heap backend', () => {
  test('an upgrade function transforms every restored value, told the stored version', () => {
    const b = backend();
    const stored = new Map([['a', 3], ['b', 40], ['c', 0]]);
    for (const [k, v] of stored) restore(b, k, v, 'msgpack', 1);
    const seenVersions: number[] = [];
    const state = b.getValueState(
      new ValueStateDescriptor<{ total: number; from: number }>('total', {
        serializer: msgpackSerializer(2),
        upgrade: (value, fromVersion) => {
          seenVersions.push(fromVersion);
          return { total: (value as number) * 10, from: fromVersion };
        },
      }),
    );
    for (const [k, v] of stored) {
      b.setCurrentKey(k);
      assert.deepEqual(state.value(), { total: v * 10, from: 1 }, `key ${k}`);
    }
    assert.deepEqual(seenVersions, [1, 1, 1], 'one upgrade per value, each from version 1');
    b.setCurrentKey('new');
    assert.equal(state.value(), undefined, 'keys that were never stored have no value');
  });

  test('a custom serializer: the upgrade gets the decoded old value', () => {
    const b = backend();
    const old = jsonSerializer<{ n: number }>(1);
    restore(b, 'a', old.serialize({ n: 5 }), 'json', 1);
    const state = b.getValueState(new ValueStateDescriptor<{ n: number; doubled: number }>('total', {
      serializer: jsonSerializer(3),
      upgrade: (value, fromVersion) => ({ ...(value as { n: number }), doubled: (value as { n: number }).n * 2, fromVersion }),
    }));
    b.setCurrentKey('a');
    assert.deepEqual(state.value(), { n: 5, doubled: 10, fromVersion: 1 });
  });

  test('without an upgrade function: StateMigrationError naming uid, state and both versions', () => {
    const b = backend();
    restore(b, 'a', 7, 'msgpack', 1);
    assert.throws(
      () => b.getValueState(new ValueStateDescriptor<number>('total', { serializer: msgpackSerializer(2) })),
      (e: unknown) => {
        assert.ok(e instanceof StateMigrationError, String(e));
        assert.equal(e.uid, 'totals');
        assert.equal(e.stateName, 'total');
        assert.equal(e.storedVersion, 1);
        assert.equal(e.currentVersion, 2);
        assert.match(e.message, /state 'total' of operator uid 'totals' was written with serializer version 1, the job now declares version 2/);
        return true;
      },
    );
  });

  test('the same version needs no upgrade function; another serializer id is refused', () => {
    const b = backend();
    restore(b, 'a', 7, 'msgpack', 2);
    const state = b.getValueState(new ValueStateDescriptor<number>('total', { serializer: msgpackSerializer(2) }));
    b.setCurrentKey('a');
    assert.equal(state.value(), 7);

    const c = backend();
    restore(c, 'a', 7, 'msgpack', 1);
    assert.throws(() => c.getValueState(new ValueStateDescriptor<number>('total', { serializer: jsonSerializer(1) })), (e: unknown) => {
      assert.ok(e instanceof StateMigrationError);
      assert.match(e.message, /state 'total' of operator uid 'totals' was written with serializer msgpack v1, the job now uses json v1, which cannot read it: serializer 'msgpack' was replaced by 'json'/);
      return true;
    });
  });
});

// ---- through a savepoint ----

const KEYS = 12;
const RECORDS = 40_000;
type Total = number | { total: number; from: number };

interface Seen {
  readonly key: string;
  readonly prev: Total | undefined;
}

/** Keeps what the job's operator saw (the jobs run in this thread). */
class MemorySink implements Sink<Seen> {
  readonly seen: Seen[] = [];
  createWriter() {
    return { write: (v: Seen) => void this.seen.push(v) };
  }
}

/**
 * Keys k0..k11 (position i has key k(i % 12)) -> keyBy -> Totals (uid totals) with a value state
 * 'total': in version 1 a number, in version 2 `{ total, from }`. Every record reports the value
 * before it was counted.
 */
function totalsJob(version: 1 | 2, sink: Sink<Seen>, options: { rate?: number; upgrade?: boolean } = {}): JobDefinition {
  return defineJob((env) => {
    env.setParallelism(2);
    env.enableCheckpointing({ interval: 100, mode: 'exactly-once' });
    const descriptor =
      version === 1
        ? new ValueStateDescriptor<Total>('total')
        : new ValueStateDescriptor<Total>('total', {
            serializer: msgpackSerializer(2),
            ...(options.upgrade ? { upgrade: (value: unknown, fromVersion: number) => ({ total: value as number, from: fromVersion }) } : {}),
          });
    const fn: KeyedProcessFunction<string, string, Seen> & { total?: ValueState<Total> } = {
      open(ctx) {
        this.total = ctx.getState(descriptor);
      },
      processElement(key, _ctx, out) {
        const prev = this.total!.value();
        if (version === 1) this.total!.update(((prev as number | undefined) ?? 0) + 1);
        else {
          const p = prev as { total: number; from: number } | undefined;
          this.total!.update({ total: (p?.total ?? 0) + 1, from: p?.from ?? 2 });
        }
        out.collect({ key, prev });
      },
    };
    env
      .fromSource(DataGen.of((i) => `k${i % KEYS}`, { count: RECORDS, ...(options.rate ? { ratePerSecond: options.rate } : {}) }), { name: 'Source: keys', uid: 'source' })
      .keyBy((k) => k)
      .process(fn, { name: 'Totals', uid: 'totals' })
      .sinkTo(sink, { name: 'Sink: memory', uid: 'sink' });
  });
}

/** Counts per key of the positions the datagen splits have emitted. */
function countsBefore(splits: readonly DataGenSplit[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of splits) for (let i = s.lane; i < s.next; i += s.lanes) m.set(`k${i % KEYS}`, (m.get(`k${i % KEYS}`) ?? 0) + 1);
  return m;
}

/** A strategy that would restart: a failure no restart can mend must not use it. */
const TEN_RESTARTS = { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 10, 'restart-strategy.fixed-delay.delay': 10 };

describe('serializer versions through a savepoint', { timeout: 60_000 }, () => {
  let root: string;
  let savepoint: string;
  let stored: Map<string, number>;
  const masters: JobMaster[] = [];
  const NO_RESTART = { 'restart-strategy.type': 'none' };

  before(async () => {
    root = makeTempDir('state-migration');
    const events = new JobEvents();
    const master = await createJobMaster({ job: totalsJob(1, new MemorySink(), { rate: 8_000 }), config: NO_RESTART, listener: events.listener });
    masters.push(master);
    const result = master.run();
    await master.whenRunning();
    await events.waitFor('two checkpoints', () => events.completed.length >= 2);
    savepoint = (await master.stopWithSavepoint(join(root, 'savepoints'))).directory;
    assert.equal((await result).status, 'FINISHED');

    // The savepoint holds version-1 numbers: the count of each key before the source positions.
    const snap = await readSnapshot(savepoint);
    const splits = snap.operators.find((o) => o.uid === 'source')!.operator['_source-splits']!.values as DataGenSplit[];
    const totals = snap.operators.find((o) => o.uid === 'totals')!.keyed.find((s) => s.name === 'total')!;
    assert.equal(`${totals.serializer}@${totals.version}`, 'msgpack@1');
    stored = new Map([...totals.entries.values()].flat().map(([k, v]) => [k as string, v as number]));
    assert.deepEqual(stored, countsBefore(splits));
    const read = [...stored.values()].reduce((a, b) => a + b, 0);
    assert.ok(read > 0 && read < RECORDS, `the savepoint is mid-input: ${read} of ${RECORDS}`);
  });
  after(async () => {
    for (const m of masters) if (!isTerminal(m.status)) await m.cancel();
    removeDir(root);
  });

  test('version 2 with an upgrade function: restored values are transformed, and written as version 2', async () => {
    const sink = new MemorySink();
    const master = await createJobMaster({
      job: totalsJob(2, sink, { upgrade: true }),
      config: { ...NO_RESTART, 'execution.checkpointing.dir': join(root, 'checkpoints') },
      restoreFrom: savepoint,
      retainCheckpointsOnFinish: true,
    });
    masters.push(master);
    const result = await master.run();
    assert.equal(result.status, 'FINISHED', result.error?.message);

    // Every key's values after the restore: the upgraded stored total, then one more per record.
    const total = new Map<string, number>();
    for (let i = 0; i < RECORDS; i++) total.set(`k${i % KEYS}`, (total.get(`k${i % KEYS}`) ?? 0) + 1);
    for (const [key, n] of total) {
      const prevs = sink.seen.filter((s) => s.key === key).map((s) => s.prev);
      const from = stored.get(key) ?? 0;
      assert.equal(prevs.length, n - from, `key ${key}: records after the savepoint`);
      for (const p of prevs) assert.ok(typeof p === 'object' && p !== null && p.from === 1, `key ${key}: every value came through the upgrade: ${JSON.stringify(p)}`);
      const totals = prevs.map((p) => (p as { total: number }).total).sort((a, b) => a - b);
      assert.deepEqual(totals, Array.from({ length: n - from }, (_, i) => from + i), `key ${key}: totals go on from the stored ${from}`);
    }

    // The final checkpoint has the state in its new form.
    const snap = await readSnapshot(result.latestCheckpoint!);
    const state = snap.operators.find((o) => o.uid === 'totals')!.keyed.find((s) => s.name === 'total')!;
    assert.equal(`${state.serializer}@${state.version}`, 'msgpack@2');
    const values = new Map([...state.entries.values()].flat().map(([k, v]) => [k as string, v]));
    assert.deepEqual(values, new Map([...total].map(([k, n]) => [k, { total: n, from: 1 }])));
  });

  test('version 2 without an upgrade function: the job fails with StateMigrationError naming uid, state and both versions', async () => {
    const master = await createJobMaster({ job: totalsJob(2, new MemorySink()), config: TEN_RESTARTS, restoreFrom: savepoint });
    masters.push(master);
    const result = await master.run();
    assert.equal(result.status, 'FAILED');
    assert.equal(result.restarts, 0, 'a restart would restore the same state into the same job: no restart');
    assert.ok(result.error instanceof JobFailure, `a JobFailure, got ${result.error}`);
    const text = `${result.error.message}\n${result.error.causeInfo.stack ?? ''}`;
    assert.match(text, /StateMigrationError/);
    assert.match(result.error.message, /state 'total' of operator uid 'totals' was written with serializer version 1, the job now declares version 2/);
    assert.equal(result.error.causeInfo.uid, 'totals');
  });
});

// ---- declared types through a savepoint ----

type Declared = 'int' | 'bigint' | 'string';
const DECLARED = { int: Types.int, bigint: Types.bigint, string: Types.string } as const;
const asDeclared = (type: Declared, n: number): number | bigint | string => (type === 'int' ? n : type === 'bigint' ? BigInt(n) : String(n));

/** Keys k0..k11 -> keyBy -> Counts (uid counts) with a value state 'count' declared as `type`; every record reports the count before it. */
function declaredJob(type: Declared, sink: Sink<Seen>, options: { rate?: number; misfitAt?: number } = {}): JobDefinition {
  return defineJob((env) => {
    env.setParallelism(2);
    env.enableCheckpointing({ interval: 100, mode: 'exactly-once' });
    const descriptor = new ValueStateDescriptor<number | bigint | string>('count', { type: DECLARED[type] as never });
    const fn: KeyedProcessFunction<string, number, Seen> & { count?: ValueState<number | bigint | string> } = {
      open(ctx) {
        this.count = ctx.getState(descriptor);
      },
      processElement(i, ctx, out) {
        const prev = this.count!.value();
        if (typeof prev === 'object') return; // the misfit stays as it is
        const n = prev === undefined ? 1 : Number(prev) + 1;
        // A value of the wrong type, once: the next checkpoint cannot write it.
        this.count!.update(i === options.misfitAt ? ({ n } as never) : asDeclared(type, n));
        out.collect({ key: ctx.getCurrentKey(), prev: prev as never });
      },
    };
    env
      .fromSource(DataGen.of((i) => i, { count: RECORDS, ...(options.rate ? { ratePerSecond: options.rate } : {}) }), { name: 'Source: positions', uid: 'source' })
      .keyBy((i) => `k${i % KEYS}`)
      .process(fn, { name: 'Counts', uid: 'counts' })
      .sinkTo(sink, { name: 'Sink: memory', uid: 'sink' });
  });
}

describe('declared state types through a savepoint', { timeout: 60_000 }, () => {
  let root: string;
  const masters: JobMaster[] = [];
  const NO_RESTART = { 'restart-strategy.type': 'none' };
  before(() => {
    root = makeTempDir('declared-state');
  });
  after(async () => {
    for (const m of masters) if (!isTerminal(m.status)) await m.cancel();
    removeDir(root);
  });

  async function savepointOf(type: Declared): Promise<{ path: string; stored: Map<string, unknown> }> {
    const events = new JobEvents();
    const master = await createJobMaster({ job: declaredJob(type, new MemorySink(), { rate: 8_000 }), config: NO_RESTART, listener: events.listener });
    masters.push(master);
    const result = master.run();
    await master.whenRunning();
    await events.waitFor('two checkpoints', () => events.completed.length >= 2);
    const path = (await master.stopWithSavepoint(join(root, `savepoints-${type}`))).directory;
    assert.equal((await result).status, 'FINISHED');
    const snap = await readSnapshot(path);
    const state = snap.operators.find((o) => o.uid === 'counts')!.keyed.find((s) => s.name === 'count')!;
    assert.deepEqual(state.snapshot, { kind: 'weir-types', version: 1, schema: DECLARED[type] }, 'the savepoint records the declared type');
    return { path, stored: new Map([...state.entries.values()].flat().map(([k, v]) => [k as string, v])) };
  }

  test('int -> bigint: the restored counts are bigints and go on from the stored ones', async () => {
    const { path, stored } = await savepointOf('int');
    assert.ok([...stored.values()].every((v) => typeof v === 'number'));
    const sink = new MemorySink();
    const master = await createJobMaster({ job: declaredJob('bigint', sink), config: { ...NO_RESTART, 'execution.checkpointing.dir': join(root, 'checkpoints') }, restoreFrom: path, retainCheckpointsOnFinish: true });
    masters.push(master);
    const result = await master.run();
    assert.equal(result.status, 'FINISHED', result.error?.message);
    for (const [key, n] of stored) {
      const first = sink.seen.find((s) => s.key === key);
      assert.equal(first?.prev as unknown, BigInt(n as number), `key ${key}: the first count after the restore is the stored one as a bigint`);
    }
    const snap = await readSnapshot(result.latestCheckpoint!);
    const state = snap.operators.find((o) => o.uid === 'counts')!.keyed.find((s) => s.name === 'count')!;
    assert.deepEqual(state.snapshot.schema, Types.bigint);
    const total = [...state.entries.values()].flat().reduce((n, [, v]) => n + (v as bigint), 0n);
    assert.equal(total, BigInt(RECORDS));
  });

  test('string -> int: the job fails with StateMigrationError naming uid, state and both serializers', async () => {
    const { path } = await savepointOf('string');
    const master = await createJobMaster({ job: declaredJob('int', new MemorySink()), config: TEN_RESTARTS, restoreFrom: path });
    masters.push(master);
    const result = await master.run();
    assert.equal(result.status, 'FAILED');
    assert.equal(result.restarts, 0, 'a restart would restore the same state into the same job: no restart');
    assert.ok(result.error instanceof JobFailure, `a JobFailure, got ${result.error}`);
    assert.match(`${result.error.message}\n${result.error.causeInfo.stack ?? ''}`, /StateMigrationError/);
    assert.match(
      result.error.message,
      /state 'count' of operator uid 'counts' was written with serializer weir-types v1 string, the job now uses weir-types v1 int, which cannot read it at \$: stored string cannot become int/,
    );
    assert.equal(result.error.causeInfo.uid, 'counts');
  });

  test('a value that does not fit its declared type fails the checkpoint, naming uid, state, key and field path', async () => {
    const events = new JobEvents();
    const master = await createJobMaster({ job: declaredJob('int', new MemorySink(), { rate: 8_000, misfitAt: 500 }), config: NO_RESTART, listener: events.listener });
    masters.push(master);
    const result = await master.run();
    assert.equal(result.status, 'FAILED');
    const failed = events.failed[0];
    assert.ok(failed, 'a checkpoint failed');
    assert.match(failed.reason, /operator uid 'counts', state 'count', key string "k8": cannot serialize \$: expected int, got object \{n\}/);
  });
});
