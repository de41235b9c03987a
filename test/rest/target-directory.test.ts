// Savepoint targets over REST: absolute directories and nats-obj:// locations pass as given;
// relative directories, and schemes the checkpoint storage would read as relative directories, are
// refused with the directory they would have become.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RelativeTargetError, targetDirectory } from '../../src/rest/target-directory.ts';

test('absolute directories, nats-obj:// locations and no directory pass as given', () => {
  for (const dir of ['/tmp/savepoints', '/', 'nats-obj://bucket/savepoints', 'nats-obj://bucket']) {
    assert.equal(targetDirectory('target-directory', dir), dir);
  }
  assert.equal(targetDirectory('target-directory', null), undefined);
  assert.equal(targetDirectory('target-directory', undefined), undefined);
});

test('relative directories are refused with a 400 naming the field, the directory and the working directory', () => {
  for (const dir of ['savepoints', './savepoints', '../savepoints', 'a/b', 'nats-obj:bucket', 'C:savepoints', 'file:///tmp/savepoints', 's3://bucket/sp']) {
    assert.throws(
      () => targetDirectory('targetDirectory', dir),
      (e: unknown) =>
        e instanceof RelativeTargetError &&
        e.statusCode === 400 &&
        e.field === 'targetDirectory' &&
        e.directory === dir &&
        e.message.includes(`targetDirectory '${dir}' is relative`) &&
        e.message.includes(`working directory (${process.cwd()})`),
      dir,
    );
  }
});
