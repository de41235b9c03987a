// JobManagerLeadership on in-memory HA services with a fake dispatcher: a recovery that fails while
// the leadership holds is tried again (a store that just regained its quorum answers slowly), jobs
// it already recovered are not recovered twice, and only then is the leadership confirmed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JobManagerLeadership } from '../../src/cluster/job-manager-leadership.ts';
import type { Dispatcher } from '../../src/cluster/dispatcher.ts';
import type { Fence } from '../../src/ha/fence.ts';
import type { Leadership } from '../../src/ha/leader-election.ts';
import type { SubmittedJob } from '../../src/ha/job-graph-store.ts';
import { inMemoryHighAvailabilityServices } from '../../src/ha/in-memory-high-availability-services.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const submitter: Fence = { sessionId: 'submitter', epoch: 0, check: () => {} };
const job = (jobId: string): SubmittedJob => ({ jobId, name: `${jobId}.ts`, bundle: 'sha256-00' as SubmittedJob['bundle'], args: [], config: {}, submittedAt: 0 });

test('a recovery that fails while leading is tried again; jobs recovered by the failed attempt are not recovered twice', { timeout: 10_000 }, async () => {
  const { services } = inMemoryHighAvailabilityServices({ leaseMs: 3000 });
  for (const id of ['a', 'b']) await services.jobGraphStore.putJob(submitter, job(id));
  const recovered: string[] = [];
  const running = new Set<string>();
  let failures = 1;
  const dispatcher = {
    isRunning: (id: string) => running.has(id),
    recover: async (_l: Leadership, j: SubmittedJob) => {
      recovered.push(j.jobId);
      // The second job's bundle meets the store still catching up, once: that job did not start.
      if (j.jobId === 'b' && failures-- > 0) throw new Error('get on NATS failed (UNAVAILABLE): timeout');
      running.add(j.jobId);
    },
    suspendAll: async () => {},
  } as unknown as Dispatcher;
  const leadingAt = new Promise<void>((resolve) => {
    const log = { ...silentLogger, info: (m: string) => void (m.startsWith('leading (epoch ') && resolve()), child: () => log };
    const leadership = new JobManagerLeadership({ services, dispatcher: () => dispatcher, address: () => 'http://127.0.0.1:1', retainedCheckpoints: 1, recoveryRetryMs: 10, log: log as never });
    leadership.start();
    after.push(() => leadership.stop(SHUTDOWN));
  });
  await leadingAt;
  assert.deepEqual(recovered, ['a', 'b', 'b'], 'a once (running after the first attempt), b again after its failure');
  for (const close of after.splice(0)) await close();
});

const after: Array<() => Promise<void>> = [];
