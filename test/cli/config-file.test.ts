// The settings layers from outside the job: -D key=value flags and the flags that stand for a
// key, and --config files (YAML or JSON), whose errors name the file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineJob } from '../../src/api/define-job.ts';
import { parseDynamicProperties, readConfigFile } from '../../src/cli/config-file.ts';
import { commandLineConfig } from '../../src/cli/run-command.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { ConfigFileError } from '../../src/config/config-file-error.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

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

  test('--claim-mode sets execution.state-recovery.claim-mode; Flink\'s former execution.savepoint-restore-mode names it', async () => {
    const job = defineJob((env) => {
      env.fromSource(DataGen.sequence(0, 10)).sinkTo(new DiscardSink<number>());
    });
    assert.equal((await job.plan([], { commandLine: commandLineConfig({ claimMode: 'CLAIM' }) })).config['execution.state-recovery.claim-mode'], 'CLAIM');
    assert.equal((await job.plan([], { commandLine: {} })).config['execution.state-recovery.claim-mode'], 'NO_CLAIM');
    await assert.rejects(job.plan([], { commandLine: { 'execution.savepoint-restore-mode': 'CLAIM' } }), /did you mean execution\.state-recovery\.claim-mode\?/);
    await assert.rejects(job.plan([], { commandLine: commandLineConfig({ claimMode: 'LEGACY' }) }), ConfigError);
  });
});

describe('config files', () => {
  let dir: string;
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const job = defineJob((env) => {
    env.enableCheckpointing(500);
    env.fromSource(DataGen.sequence(0, 10)).sinkTo(new DiscardSink<number>());
  });

  before(() => {
    dir = makeTempDir('config-file');
  });
  after(() => removeDir(dir));

  /** A ConfigFileError with the file as its path field; the message names the file, never a "configuration key". */
  const fileError = (path: string, problem: RegExp) => (e: unknown) => {
    assert.ok(e instanceof ConfigFileError, String(e));
    assert.equal(e.path, path);
    assert.ok(e.message.startsWith(`config file ${path}: `), e.message);
    assert.doesNotMatch(e.message, /configuration key/);
    assert.match(e.message, problem);
    return true;
  };

  test('a file that is missing, not YAML, not JSON, or not a map: a ConfigFileError naming the file, with the cause', () => {
    const missing = join(dir, 'missing.yaml');
    assert.throws(() => readConfigFile(missing), (e: unknown) => fileError(missing, /cannot read it: ENOENT/)(e) && (e as Error).cause instanceof Error);
    assert.throws(() => readConfigFile(write('broken.yaml', 'a: [\n')), fileError(join(dir, 'broken.yaml'), /not valid YAML/));
    assert.throws(() => readConfigFile(write('broken.json', '{"a": ')), (e: unknown) => fileError(join(dir, 'broken.json'), /not valid JSON/)(e) && (e as Error).cause instanceof SyntaxError);
    assert.throws(() => readConfigFile(write('list.yaml', '- a\n- b\n')), fileError(join(dir, 'list.yaml'), /must hold a map of keys to values.*not a list/));
    assert.throws(() => readConfigFile(write('scalar.json', '5')), fileError(join(dir, 'scalar.json'), /not a number/));
  });

  test('a relative path is named as the absolute file it is', () => {
    assert.throws(() => readConfigFile('no-such-dir/conf.yaml'), (e: unknown) => e instanceof ConfigFileError && e.path === join(process.cwd(), 'no-such-dir/conf.yaml'));
  });

  test('a bad value or an unknown key inside a file: the message names the file and the key', async () => {
    const path = write('conf.yaml', 'execution.checkpointing:\n  timeout: soon\n');
    const file = readConfigFile(path);
    assert.deepEqual(file, { 'execution.checkpointing.timeout': 'soon' });
    await assert.rejects(job.plan([], { file, filePath: path }), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.key, 'execution.checkpointing.timeout');
      assert.deepEqual(e.source, { kind: 'file', path });
      assert.equal(e.message, `config file ${path}: configuration key 'execution.checkpointing.timeout': expected a duration such as '200', '10 s' or '1 min', got 'soon'`);
      return true;
    });
    const unknown = write('unknown.json', '{"execution": {"checkpointing": {"intervall": "1 s"}}}');
    await assert.rejects(job.plan([], { file: readConfigFile(unknown), filePath: unknown }), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.ok(e.message.startsWith(`config file ${unknown}: configuration key 'execution.checkpointing.intervall': unknown key`), e.message);
      return true;
    });
  });

  test('the same bad value from the command line says so; a good file under the job and the command line is used', async () => {
    await assert.rejects(job.plan([], { commandLine: { 'execution.checkpointing.timeout': 'soon' } }), (e: unknown) => e instanceof ConfigError && e.message.startsWith("command line: configuration key 'execution.checkpointing.timeout'"));
    const path = write('good.yaml', 'execution.checkpointing.interval: 2 s\nexecution.checkpointing.timeout: 1 min\n');
    const plan = await job.plan([], { file: readConfigFile(path), filePath: path, commandLine: { 'execution.checkpointing.timeout': '30 s' } });
    assert.equal(plan.config['execution.checkpointing.interval'], 500, "the job's own setting wins over the file");
    assert.equal(plan.config['execution.checkpointing.timeout'], 30_000, 'the command line wins over the file');
  });
});
