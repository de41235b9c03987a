// The command line's settings layer: -D key=value flags and the flags that stand for a key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/api/define-job.ts';
import { parseDynamicProperties } from '../../src/cli/config-file.ts';
import { commandLineConfig } from '../../src/cli/run-command.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { DiscardSink } from '../fixtures/helpers.ts';

/** A ConfigError naming the key, the flag as written, and how to write a value. */
function emptyValueError(key: string, flag: string, example: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(e.key, key);
    assert.ok(e.message.includes(`'${key}'`), e.message);
    assert.ok(e.message.includes(`'${flag}' has an empty value`), e.message);
    assert.match(e.message, example);
    return true;
  };
}

describe('empty values on the command line', () => {
  test('-D key= is an error naming the key and showing a value of its kind, not an unset key', () => {
    assert.throws(
      () => parseDynamicProperties(['execution.checkpointing.interval=']),
      emptyValueError('execution.checkpointing.interval', '-D execution.checkpointing.interval=', /e\.g\. -D execution\.checkpointing\.interval='10 s'/),
    );
    assert.throws(() => parseDynamicProperties(['rest.token=  ']), emptyValueError('rest.token', '-D rest.token=', /-D rest\.token=VALUE/));
    assert.throws(() => parseDynamicProperties(['restart-strategy.type=']), emptyValueError('restart-strategy.type', '-D restart-strategy.type=', /-D restart-strategy\.type=none/));
    assert.deepEqual(parseDynamicProperties(['execution.checkpointing.interval=1 s', 'rest.port = 0']), { 'execution.checkpointing.interval': '1 s', 'rest.port': '0' });
  });

  test("an empty -D cannot turn the job's own checkpointing off", async () => {
    const job = defineJob((env) => {
      env.enableCheckpointing(500);
      env.fromSource(DataGen.sequence(0, 10)).sinkTo(new DiscardSink<number>());
    });
    assert.throws(() => commandLineConfig({ define: ['execution.checkpointing.interval='] }), ConfigError);
    // The flags that are written out fully still reach the job.
    const plan = await job.plan([], { commandLine: commandLineConfig({ define: ['execution.checkpointing.timeout=1 min'] }) });
    assert.equal(plan.config['execution.checkpointing.interval'], 500);
    assert.equal(plan.config['execution.checkpointing.timeout'], 60_000);
  });

  test('-p, --checkpoint-dir and --aligned-timeout with an empty value are errors too', () => {
    assert.throws(() => commandLineConfig({ parallelism: '' }), emptyValueError('parallelism.default', '-p', /e\.g\. -p 4/));
    // resolve('') would have been the working directory.
    assert.throws(() => commandLineConfig({ checkpointDir: '' }), emptyValueError('execution.checkpointing.dir', '--checkpoint-dir', /--checkpoint-dir VALUE/));
    assert.throws(() => commandLineConfig({ alignedTimeout: '' }), emptyValueError('execution.checkpointing.aligned-checkpoint-timeout', '--aligned-timeout', /'10 s'/));
  });
});
