// returns() declares what an operator emits; the job graph carries it on the edges that leave it
// (a filter passes its input's type on), and a misplaced or malformed declaration is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineJob, Types } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { DiscardSink } from '../fixtures/helpers.ts';

const WordCount = Types.struct({ word: Types.string, count: Types.int });

test('the declared type is on the edges leaving the operator, through keyBy and past a filter', async () => {
  const { jobGraph } = await defineJob((env) => {
    env
      .fromSource(DataGen.sequence(0, 10), { name: 'numbers' })
      .map((i) => ({ word: `w${i}`, count: i }), { name: 'words', parallelism: 2 })
      .returns(WordCount)
      .filter((r) => r.count > 2, { name: 'some' })
      .keyBy((r) => r.word)
      .sinkTo(new DiscardSink(), { name: 'sink' });
  }).plan([]);
  const types = jobGraph.edges.map((e) => [e.source.name, e.target.name, e.type]);
  assert.deepEqual(types, [
    ['numbers', 'words', undefined],
    ['words', 'some', WordCount],
    ['some', 'sink', WordCount],
  ]);
});

test('returns() after keyBy or with something that is not a type is refused, saying why', async () => {
  await assert.rejects(
    () =>
      defineJob((env) => {
        env.fromSource(DataGen.sequence(0, 10)).keyBy((i) => i).returns(Types.int);
      }).plan([]),
    /returns\(\) declares what an operator emits/,
  );
  await assert.rejects(
    () =>
      defineJob((env) => {
        env.fromSource(DataGen.sequence(0, 10)).returns({ kind: 'integer' } as never);
      }).plan([]),
    /not a TypeInfo/,
  );
});
