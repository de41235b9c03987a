// Which failures of checkpoint storage are worth waiting out (the store may answer again) and
// which fail a job's start at once (nothing there, a corrupted checkpoint, NATS not reachable at all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClosedConnectionError, NoRespondersError, TimeoutError } from '@nats-io/transport-node';
import { isStorageUnavailable } from '../../src/checkpoint/storage-unavailable.ts';
import { ObjectStoreTimeoutError } from '../../src/checkpoint/nats/progress-deadline.ts';
import { HaStorageError } from '../../src/ha/ha-storage-error.ts';
import { StreamLeaderUnknownError } from '../../src/ha/nats/object-names.ts';
import { CheckpointCorruptedError } from '../../src/checkpoint/checkpoint-storage-error.ts';

const errno = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.1:4222`), { code });
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

test('unreachable: no progress, no answer, a dropped or refused connection, the HA store unavailable; also behind a cause', () => {
  for (const e of [
    new ObjectStoreTimeoutError('open', 'weir-cp', undefined, 10_000),
    errno('ECONNREFUSED'),
    errno('ETIMEDOUT'),
    named('JetStreamApiError', 'JetStream system temporarily unavailable'),
    named('NatsError', 'TIMEOUT'),
    new HaStorageError('UNAVAILABLE', 'get', 'jobs.x.checkpoint-counter', "NATS bucket 'weir-ha-x'", 'timeout'),
    new Error('execution.checkpointing.dir nats-obj://b/p: open failed', { cause: new ObjectStoreTimeoutError('open', 'b', undefined, 10) }),
    // The client's own classes, by the names they carry (CI saw a job fail on a bare 'timeout' while NATS recovered).
    new Error('execution.checkpointing.dir nats-obj://weir-outage/checkpoints: timeout', { cause: new TimeoutError() }),
    new NoRespondersError('$JS.API.STREAM.INFO.OBJ_b'),
    new ClosedConnectionError(),
    new StreamLeaderUnknownError('OBJ_weir-cp'),
  ]) {
    assert.equal(isStorageUnavailable(e), true, `${e.name}: ${e.message}`);
  }
});

test('not waited out: a corrupted or missing checkpoint, a refused write, a wrong file, NATS not reachable at all', () => {
  for (const e of [
    new CheckpointCorruptedError('nats-obj://b/p/chk-2/_metadata', 'no _metadata here: not a complete checkpoint or savepoint'),
    new HaStorageError('FAILED', 'update', 'leader.jobmanager', "NATS bucket 'weir-ha-x'", 'jetstream is not enabled'),
    errno('ENOENT'),
    new Error('unexpected end of input'),
    new Error('restore failed', { cause: named('NatsConnectError', 'cannot connect to NATS at nats://127.0.0.1:1 (high-availability.nats.servers): timeout') }),
  ]) {
    assert.equal(isStorageUnavailable(e), false, `${e.name}: ${e.message}`);
  }
});
