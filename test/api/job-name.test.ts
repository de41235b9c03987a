// A job's name: env.setJobName in the job, `weir run --name` over it, else the first source's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { commandLineConfig } from '../../src/cli/run-command.ts';
import { DiscardSink } from '../fixtures/helpers.ts';

const build = (name?: string) =>
  defineJob((env) => {
    if (name !== undefined) env.setJobName(name);
    env.fromSource(DataGen.of((i) => i, { count: 10 }), { name: 'Source: ten', uid: 'source' }).sinkTo(new DiscardSink<number>(), { uid: 'sink' });
  });

test("without a name the plan is named after its first source vertex; env.setJobName names it; weir run --name wins over the job's", async () => {
  assert.equal((await build().plan([])).name, 'Source: ten -> Sink', 'its source vertex (the chain the source heads)');
  const named = await build('Ten numbers').plan([]);
  assert.equal(named.name, 'Ten numbers');
  assert.equal(named.config['pipeline.name'], 'Ten numbers');
  const layer = commandLineConfig({ name: 'From the command line' });
  assert.equal(layer['pipeline.name'], 'From the command line');
  assert.equal((await build('Ten numbers').plan([], { commandLine: layer })).name, 'From the command line');
});

test('setJobName refuses an empty name, and so does weir run --name', async () => {
  await assert.rejects(build('  ').plan([]), /setJobName needs a non-empty name/);
  assert.throws(() => commandLineConfig({ name: '' }), /'--name' has an empty value/);
});
