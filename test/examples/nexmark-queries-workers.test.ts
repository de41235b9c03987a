// Nexmark's queries at parallelism 2 on two worker-thread TaskManagers: events, window results
// and keyed state cross threads; each query's lines equal the plain computation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NEXMARK_QUERIES, nexmarkQueryProblems } from '../fixtures/nexmark-query-check.ts';

test(`${NEXMARK_QUERIES.join(' ')} at parallelism 2 on 2 worker TaskManagers`, async () => {
  assert.deepEqual(await nexmarkQueryProblems(2, 2), []);
});
