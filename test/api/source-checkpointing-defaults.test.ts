// A CDC job (a source with defaultAlignedCheckpointTimeout) gets unaligned checkpoints that start
// aligned and switch before the checkpoint timeout; a user's own setting of either key, in any
// layer, wins; modes that cannot be unaligned and jobs without such a source keep the defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, type WeirConfig } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { MySqlCdcSource } from '../../src/connectors/mysql/index.ts';
import { DiscardSink } from '../fixtures/helpers.ts';

// Constructing the source connects to nothing: only the plan is made here.
const cdc = () => new MySqlCdcSource({ host: '127.0.0.1', port: 1, user: 'u', password: 'p', database: 'shop' });

function job(setup: (env: Parameters<Parameters<typeof defineJob>[0]>[0]) => void, withCdc = true) {
  return defineJob((env) => {
    setup(env);
    const source = withCdc ? cdc() : DataGen.of((i) => i, { count: 10 });
    env.fromSource(source as never, { uid: 'source' }).sinkTo(new DiscardSink<unknown>(), { uid: 'sink' });
  });
}

const checkpointing = (c: WeirConfig) => [c['execution.checkpointing.unaligned.enabled'], c['execution.checkpointing.aligned-checkpoint-timeout']];

test('a CDC job gets an aligned-checkpoint timeout below its checkpoint timeout, with unaligned checkpoints on', async () => {
  const { config } = await job((env) => env.enableCheckpointing(1000)).plan([]);
  assert.deepEqual(checkpointing(config), [true, 30_000], 'a quarter of the default 10 min timeout, at most 30 s');
  const short = await job((env) => env.enableCheckpointing({ interval: 100, timeout: 2000 })).plan([]);
  assert.deepEqual(checkpointing(short.config), [true, 500], 'a quarter of a 2 s timeout');
  assert.ok(short.config['execution.checkpointing.aligned-checkpoint-timeout'] < short.config['execution.checkpointing.timeout']);
});

test("the user's explicit setting wins, from the job, a config file or the command line", async () => {
  const inJob = await job((env) => env.enableCheckpointing({ interval: 1000, unaligned: false })).plan([]);
  assert.deepEqual(checkpointing(inJob.config), [false, 0]);
  const timeoutOnly = await job((env) => env.enableCheckpointing({ interval: 1000, alignedTimeout: 5000 })).plan([]);
  assert.deepEqual(checkpointing(timeoutOnly.config), [false, 5000], 'a timeout alone leaves unaligned checkpoints as the user has them');
  const fromFile = await job((env) => env.enableCheckpointing(1000)).plan([], { file: { 'execution.checkpointing.aligned-checkpoint-timeout': '2 s', 'execution.checkpointing.unaligned.enabled': true } });
  assert.deepEqual(checkpointing(fromFile.config), [true, 2000]);
  const commandLine = await job((env) => env.enableCheckpointing(1000)).plan([], { commandLine: { 'execution.checkpointing.unaligned.enabled': false } });
  assert.deepEqual(checkpointing(commandLine.config), [false, 0]);
});

test('no default where unaligned checkpoints cannot be, or no source asks for it', async () => {
  const atLeastOnce = await job((env) => env.enableCheckpointing({ interval: 1000, mode: 'at-least-once' })).plan([]);
  assert.deepEqual(checkpointing(atLeastOnce.config), [false, 0]);
  const concurrent = await job((env) => env.enableCheckpointing({ interval: 1000, maxConcurrent: 2 })).plan([]);
  assert.deepEqual(checkpointing(concurrent.config), [false, 0]);
  const noCheckpoints = await job(() => {}).plan([]);
  assert.deepEqual(checkpointing(noCheckpoints.config), [false, 0]);
  const plain = await job((env) => env.enableCheckpointing(1000), false).plan([]);
  assert.deepEqual(checkpointing(plain.config), [false, 0]);
});
