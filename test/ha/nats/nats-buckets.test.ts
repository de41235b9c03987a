// How a refused bucket creation is classified: the codes a forming cluster gives are waited out at
// startup, the ones no waiting mends end it at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JetStreamApiError } from '@nats-io/jetstream';
import { bucketFailureOf, NatsBucketError } from '../../../src/ha/nats/nats-buckets.ts';
import { isTransientAtStartup } from '../../../src/ha/nats/nats-startup.ts';

const apiError = (errCode: number, description: string) => new JetStreamApiError({ code: 400, err_code: errCode, description });

test('a cluster whose servers have not all joined (no suitable peers, insufficient resources) is waited for; replicas on a single server are not', () => {
  const cases = [
    { error: apiError(10005, 'no suitable peers for placement'), reason: 'INSUFFICIENT_RESOURCES', transient: true },
    { error: apiError(10023, 'insufficient resources'), reason: 'INSUFFICIENT_RESOURCES', transient: true },
    { error: apiError(10074, 'replicas > 1 not supported in non-clustered mode'), reason: 'REPLICAS_NOT_SUPPORTED', transient: false },
    { error: apiError(10003, 'bad request'), reason: 'FAILED', transient: false },
  ] as const;
  for (const c of cases) {
    const reason = bucketFailureOf(c.error);
    assert.equal(reason, c.reason, c.error.message);
    assert.equal(isTransientAtStartup(new NatsBucketError(reason, 'weir-ha', c.error.message, { cause: c.error })), c.transient, c.error.message);
  }
});
