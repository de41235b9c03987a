// The rolling FileSink over 200 checkpoints and more (the count), with and without
// injected failures: part files by the policy, exactly once.
import { test } from 'node:test';
import { rollingRun } from '../../fixtures/file-sink-rolling-run.ts';

test('200 checkpoints, no failures: part files by size, not per checkpoint', { timeout: 180_000 }, (t) =>
  rollingRun(t, { checkpointInterval: 10, linesPerSecond: 1200, bytes: 450_000, failures: 0, minCheckpoints: 200 }),
);
test('200 checkpoints and 8 injected failures with files open across checkpoints: exactly once', { timeout: 180_000 }, (t) =>
  rollingRun(t, { checkpointInterval: 10, linesPerSecond: 1200, bytes: 450_000, failures: 8, minCheckpoints: 200 }),
);
