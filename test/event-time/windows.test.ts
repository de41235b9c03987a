// Event-time windows end to end over out-of-order events with bounded lateness: tumbling (also
// aggregated in two phases), sliding (with panes, in two phases by panes, and with a record in each window), and session windows equal an independent
// computation (the events sorted by event time, windows made by a plain loop) at parallelism
// 1..4 in this thread and on worker TaskManagers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { executeJob } from '../../src/index.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';
import { generatedEvents, sessionSums, slidingSums } from '../fixtures/event-time-expectations.ts';
import jobDefinition, { EVENT_TIME_START } from '../fixtures/jobs/event-time-job.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'event-time-job.ts');
const EVENTS = 8000;
const OOO = 400;
const events = generatedEvents({ seed: 7, events: EVENTS, keys: 20, ooo: OOO, start: EVENT_TIME_START });

const kinds = {
  tumbling: { args: ['--size', '1000'], expected: () => slidingSums(events, 1000, 1000) },
  'tumbling-two-phase': { args: ['--size', '1000'], expected: () => slidingSums(events, 1000, 1000) },
  sliding: { args: ['--size', '1000', '--slide', '250'], expected: () => slidingSums(events, 1000, 250) },
  // 400 and 150: panes of 50 ms in the first phase.
  'sliding-two-phase': { args: ['--size', '400', '--slide', '150'], expected: () => slidingSums(events, 400, 150) },
  'sliding-copies': { args: ['--size', '1000', '--slide', '250'], expected: () => slidingSums(events, 1000, 250) },
  session: { args: ['--gap', '60'], expected: () => sessionSums(events, 60) },
} as const;

const placements: ReadonlyArray<readonly [number, number]> = [[1, 0], [2, 0], [3, 0], [4, 0], [2, 2], [4, 2]];

for (const [kind, k] of Object.entries(kinds)) {
  describe(`${kind} windows`, () => {
    const expected = k.expected();
    for (const [parallelism, taskManagers] of placements) {
      if (kind === 'sliding-copies' && taskManagers > 0) continue;
      test(`equal the independent computation at parallelism ${parallelism}${taskManagers ? ` on ${taskManagers} worker TaskManagers` : ' in this thread'}`, async () => {
        const id = uniqueId();
        const { result, records } = await runCollecting<string>(id, () =>
          executeJob({
            job: taskManagers ? JOB : jobDefinition,
            args: ['--kind', kind, '--events', String(EVENTS), '--ooo', String(OOO), '--collect-id', id, '--rate', '40000', ...k.args],
            config: { 'parallelism.default': parallelism, 'pipeline.auto-watermark-interval': '10 ms' },
            taskManagers,
          }),
        );
        assert.equal(result.status, 'FINISHED', result.error?.message);
        const got = records.sort();
        assert.equal(got.length, expected.length, `${got.length} windows, expected ${expected.length}`);
        assert.deepEqual(got, expected);
      });
    }
  });
}
