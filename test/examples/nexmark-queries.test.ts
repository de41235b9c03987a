// Nexmark's queries as weir jobs: each query's lines equal a plain computation over the same
// generated events (the final table for the retracting q18 and q19), with out-of-order event
// times, at parallelism 1 and 3 in this thread (2 on worker TaskManagers: nexmark-queries-workers).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NEXMARK_QUERIES, nexmarkQueryProblems } from '../fixtures/nexmark-query-check.ts';

for (const parallelism of [1, 3]) {
  test(`${NEXMARK_QUERIES.join(' ')} at parallelism ${parallelism} in this thread`, async () => {
    assert.deepEqual(await nexmarkQueryProblems(parallelism, 0), []);
  });
}
