// Every log line of a job carries its job id; lines from subtasks, wherever they run (this thread
// or worker TaskManagers), also carry the vertex, the subtask and the attempt, and reach the
// JobMaster's logger in its format. Lines below the logger's level are not sent at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../src/index.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-enumerated.ts');

describe('task log lines', () => {
  let root: string;
  before(() => (root = makeTempDir('task-logs')));
  after(() => removeDir(root));

  for (const taskManagers of [0, 2]) {
    test(`${taskManagers === 0 ? 'in this thread' : 'on 2 worker TaskManagers'}: job id, vertex and subtask on every task line`, async () => {
      const lines: Array<Record<string, unknown>> = [];
      const events = new JobEvents();
      const dir = join(root, `tm${taskManagers}`);
      const result = await executeJob({
        job: JOB,
        args: ['--output', join(dir, 'output'), '--total', '6000', '--range', '300', '--checkpoint-interval', '30', '--rate', '10000'],
        config: {
          'parallelism.default': 2,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.delay': '10 ms',
        },
        taskManagers,
        faults: { failures: 1, seed: 5, minRecords: 1500, maxRecords: 2000, vertexNameContains: 'Sum' },
        listener: events.listener,
        log: createLogger({ level: 'debug', json: true, write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) }),
      });
      assert.equal(result.status, 'FINISHED', result.error?.message);
      assert.ok(lines.length > 0);
      for (const l of lines) assert.equal(l['jobId'], result.jobId, `a line without the job id: ${JSON.stringify(l)}`);
      const fromTasks = lines.filter((l) => l['taskManager'] !== undefined);
      for (const l of fromTasks) {
        assert.equal(typeof l['vertex'], 'string', JSON.stringify(l));
        assert.equal(typeof l['subtask'], 'number', JSON.stringify(l));
      }
      const failed = fromTasks.find((l) => String(l['msg']).startsWith('failed: injected failure'));
      assert.ok(failed, 'the failing subtask logged its failure');
      // A subtask failure the job restarts from is a warning; the job's own failure is an error.
      assert.equal(failed['level'], 'warn');
      assert.match(String(failed['vertex']), /Sum/);
      // The restart restores a checkpoint if one completed before the failure (at 10k records/s, ~150 ms in).
      const restored = fromTasks.filter((l) => String(l['msg']).startsWith('restored the state of checkpoint'));
      const subtasks = 4; // two vertices at parallelism 2
      assert.equal(restored.length, events.restored.length > 0 ? subtasks : 0, 'each subtask of the restarted job logged its restore');
      assert.ok(restored.every((l) => l['attempt'] === 1));
      assert.ok(fromTasks.some((l) => l['level'] === 'debug' && String(l['msg']).startsWith('acknowledged checkpoint')));
    });
  }

  test('lines below the level are not sent by the TaskManagers', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const dir = join(root, 'warn');
    const result = await executeJob({
      job: JOB,
      args: ['--output', join(dir, 'output'), '--total', '3000', '--range', '300', '--checkpoint-interval', '30'],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': join(dir, 'checkpoints') },
      taskManagers: 2,
      log: createLogger({ level: 'warn', json: true, write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) }),
    });
    assert.equal(result.status, 'FINISHED');
    assert.deepEqual(lines.filter((l) => l['level'] === 'debug' || l['level'] === 'info'), []);
  });
});
