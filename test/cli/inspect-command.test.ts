// weir inspect on a savepoint of format 4 with declared and undeclared state: each state's
// serializer (kind, version, declared type), the state file format, and the entries of a state
// as JSON lines; and on a format 3 fixture, whose states read as msgpack v1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, defineJob, MapStateDescriptor, Types, ValueStateDescriptor, type KeyedProcessFunction, type MapState, type Sink, type ValueState } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { inspectCommand } from '../../src/cli/inspect-command.ts';
import { JobEvents, makeTempDir, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';

/** What inspectCommand writes. */
async function inspect(path: string, options: Parameters<typeof inspectCommand>[1] = {}): Promise<string> {
  const chunks: string[] = [];
  assert.equal(await inspectCommand(path, { ...options, write: (text) => void chunks.push(text) }), 0);
  return chunks.join('');
}

const Last = Types.struct({ word: Types.string, at: Types.int });

class NullSink implements Sink<unknown> {
  createWriter() {
    return { write: () => {} };
  }
}

let root: string;
let savepoint: string;
before(async () => {
  root = makeTempDir('inspect');
  const job = defineJob((env) => {
    env.setParallelism(2);
    env.enableCheckpointing({ interval: 100 });
    const fn: KeyedProcessFunction<string, number, number> & { last?: ValueState<{ word: string; at: number }>; seen?: MapState<string, bigint>; loose?: ValueState<unknown> } = {
      open(ctx) {
        this.last = ctx.getState(new ValueStateDescriptor('last', { type: Last }));
        this.seen = ctx.getMapState(new MapStateDescriptor('seen', { keyType: Types.string, valueType: Types.bigint }));
        this.loose = ctx.getState(new ValueStateDescriptor<unknown>('loose'));
      },
      processElement(i, ctx, out) {
        this.last!.update({ word: ctx.getCurrentKey(), at: i });
        this.seen!.put('n', (this.seen!.get('n') ?? 0n) + 1n);
        this.loose!.update(new Map([['i', i]]));
        out.collect(i);
      },
    };
    env
      .fromSource(DataGen.of((i) => i, { count: 100_000, ratePerSecond: 20_000 }), { uid: 'source' })
      .keyBy((i) => `w${i % 10}`)
      .process(fn, { name: 'Words', uid: 'words' })
      .sinkTo(new NullSink(), { uid: 'sink' });
  });
  const events = new JobEvents();
  const master = await createJobMaster({ job, config: { 'restart-strategy.type': 'none' }, listener: events.listener });
  const done = master.run();
  await events.waitFor('a checkpoint', () => events.completed.length >= 1);
  savepoint = (await master.stopWithSavepoint(join(root, 'savepoints'))).directory;
  await done;
});
after(() => removeDir(root));

describe('weir inspect', { timeout: 60_000 }, () => {
  test('lists each state with its serializer and declared type, and the state file format', async () => {
    const text = await inspect(savepoint);
    assert.match(text, /^savepoint \d+ of job [0-9a-f]+ \(format v4\)/);
    assert.match(text, /keyed state 'last' \(value, weir-types v1 struct\{word: string, at: int\}\): 10 entries in \d+ key groups/);
    assert.match(text, /keyed state 'seen' \(map, weir-types v1 map<string, bigint>\): 10 entries/);
    assert.match(text, /keyed state 'loose' \(value, msgpack v1\): 10 entries/);
    assert.match(text, /subtask 0: key groups \d+\.\.\d+, \d+ entries, [\d,]+ bytes \(state file format 2\)/);

    const json = JSON.parse(await inspect(savepoint, { json: true })) as { formatVersion: number; operators: Array<{ uid: string; keyedStates: Array<{ name: string; serializerSnapshot: unknown }> }> };
    assert.equal(json.formatVersion, 4);
    const words = json.operators.find((o) => o.uid === 'words')!;
    assert.deepEqual(words.keyedStates.find((s) => s.name === 'last')!.serializerSnapshot, { kind: 'weir-types', version: 1, schema: Last });
  });

  test('--uid --state dumps the entries decoded by the type that wrote them', async () => {
    const lines = (await inspect(savepoint, { uid: 'words', state: 'seen' })).trim().split('\n').map((l) => JSON.parse(l) as { key: string; value: { n: string }; keyGroup: number });
    assert.equal(lines.length, 10);
    assert.deepEqual(lines.map((l) => l.key).sort(), Array.from({ length: 10 }, (_, i) => `w${i}`).sort());
    for (const l of lines) assert.match(l.value.n, /^\d+$/, 'bigints as decimal text');
    const loose = (await inspect(savepoint, { uid: 'words', state: 'loose' })).trim().split('\n').map((l) => JSON.parse(l) as { value: { i: number } });
    assert.ok(loose.every((l) => typeof l.value.i === 'number'), 'a Map of undeclared state is a Map again');
  });

  test('a format 3 snapshot: its states read as msgpack v1 from state files of format 1', async () => {
    const text = await inspect(join(REPO_ROOT, 'test', 'fixtures', 'snapshots', 'v3', 'savepoint'));
    assert.match(text, /\(format v3\)/);
    assert.match(text, /keyed state '_reduce' \(value, msgpack v1\)/);
    assert.match(text, /\(state file format 1\)/);
  });

  test('a path that does not exist is said not to exist; an existing directory without _metadata still says that', async () => {
    const missing = join(root, 'no-such-savepoint');
    await assert.rejects(inspectCommand(missing, { write: () => {} }), (e: Error) => {
      assert.equal(e.name, 'UsageError');
      assert.equal(e.message, `${missing} does not exist: weir inspect reads a savepoint or checkpoint directory (one holding _metadata), its _metadata file, or a nats-obj://<bucket>/<path> location`);
      return true;
    });
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await assert.rejects(inspectCommand(empty, { write: () => {} }), /no _metadata here: not a complete checkpoint or savepoint/);
  });
});
