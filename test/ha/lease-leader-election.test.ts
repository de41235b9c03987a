// The lease election's own edges, on the in-memory store: a renewal that hangs (the leader gives
// up by its own deadline), another writer winning the record (LEASE_TAKEN), and a leader whose
// event loop was blocked past its lease (it knows at once, before any timer runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../src/log/logger.ts';
import { FencedWriteError } from '../../src/ha/fenced-write-error.ts';
import { InMemoryKeyValueBackend, InMemoryKeyValueStore } from '../../src/ha/in-memory-key-value-store.ts';
import { LeaseLeaderElection } from '../../src/ha/lease-leader-election.ts';
import { decodeLeaseRecord, encodeLeaseRecord } from '../../src/ha/lease-record.ts';
import type { VersionedKeyValueStore } from '../../src/ha/versioned-key-value-store.ts';
import { RecordingContender } from '../fixtures/ha-contract.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const LEASE_MS = 900;
const KEY = 'leader.jobmanager';

/** A store whose operations can be made to hang, as on a connection that stopped answering. */
function hangable(store: VersionedKeyValueStore): VersionedKeyValueStore & { hang(): void } {
  let hanging = false;
  const gate = <T>(p: () => Promise<T>): Promise<T> => (hanging ? new Promise<T>(() => {}) : p());
  return {
    description: store.description,
    hang: () => void (hanging = true),
    get: (k) => gate(() => store.get(k)),
    create: (k, v) => gate(() => store.create(k, v)),
    update: (k, v, r) => gate(() => store.update(k, v, r)),
    delete: (k, r) => gate(() => store.delete(k, r)),
    keys: (p) => gate(() => store.keys(p)),
    watch: (k, fn) => store.watch(k, fn),
  };
}

async function leader(store: VersionedKeyValueStore): Promise<{ election: LeaseLeaderElection; contender: RecordingContender }> {
  const election = new LeaseLeaderElection({ store, key: KEY, leaseMs: LEASE_MS, log: silentLogger });
  const contender = new RecordingContender();
  election.startContending(contender);
  await contender.until(() => contender.grants[0], 5000, 'leadership');
  return { election, contender };
}

test('a renewal that hangs: the leader gives up by its own deadline (four fifths of the lease), not when the store answers', async () => {
  const store = hangable(new InMemoryKeyValueStore());
  const { election, contender } = await leader(store);
  const hungAt = Date.now();
  store.hang();
  const revocation = await contender.until(() => contender.revocations[0], LEASE_MS * 3, 'the revocation');
  const after = Date.now() - hungAt;
  assert.equal(revocation.reason, 'RENEW_DEADLINE_EXCEEDED');
  assert.ok(after < LEASE_MS, `gave up ${after} ms after the store stopped answering: before anyone could judge the lease (${LEASE_MS} ms) expired`);
  assert.equal(election.leadership, undefined);
  assert.throws(() => revocation.leadership.check('jobs.x.checkpoints'), (e: unknown) => e instanceof FencedWriteError && e.reason === 'LEADERSHIP_LOST');
  void election.stop(SHUTDOWN); // its last operations hang for ever: do not wait for them
});

test("another writer's compare-and-set wins the record: the leader learns it at its next renewal (LEASE_TAKEN)", async () => {
  const backend = new InMemoryKeyValueBackend();
  const store = new InMemoryKeyValueStore(backend);
  const { election, contender } = await leader(store);
  const current = backend.get(KEY)!;
  const record = decodeLeaseRecord(current.value)!;
  backend.write(KEY, encodeLeaseRecord({ ...record, holder: 'someone-else', sessionId: 'other', epoch: record.epoch + 1 }), current.revision);
  const revocation = await contender.until(() => contender.revocations[0], LEASE_MS * 2, 'the revocation');
  assert.equal(revocation.reason, 'LEASE_TAKEN');
  assert.match(revocation.message, new RegExp(`held with epoch ${record.epoch + 1}`));
  await election.stop(SHUTDOWN);
});

test('a leader whose event loop was blocked past its lease knows it at once, before any of its timers runs', async () => {
  const { election, contender } = await leader(new InMemoryKeyValueStore());
  const lead = contender.grants[0]!;
  assert.equal(election.hasLeadership(lead.sessionId), true);
  const until = Date.now() + LEASE_MS; // as a SIGSTOP past the lease would
  while (Date.now() < until) {
    // busy: no timer, no renewal
  }
  assert.equal(election.hasLeadership(lead.sessionId), false);
  assert.throws(() => lead.check('jobs.x.checkpoint-id'), (e: unknown) => e instanceof FencedWriteError && e.reason === 'LEADERSHIP_LOST' && /renewal was \d+ ms ago/.test(e.message));
  await election.stop(SHUTDOWN);
});

test('closed while a renewal is in flight: the release uses the revision that renewal wrote, so the lease is released, not left to expire', async () => {
  const backend = new InMemoryKeyValueBackend();
  const inner = new InMemoryKeyValueStore(backend);
  let renewalStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (renewalStarted = resolve));
  let finishRenewal: () => void = () => {};
  const held = new Promise<void>((resolve) => (finishRenewal = resolve));
  let holding = false;
  const store: VersionedKeyValueStore = {
    description: inner.description,
    get: (k) => inner.get(k),
    create: (k, v) => inner.create(k, v),
    delete: (k, r) => inner.delete(k, r),
    keys: (p) => inner.keys(p),
    watch: (k, fn) => inner.watch(k, fn),
    // Once armed, the next update (a renewal) is written at once but answered only when let go.
    update: async (k, v, r) => {
      const revision = await inner.update(k, v, r);
      if (holding) {
        holding = false;
        renewalStarted();
        await held;
      }
      return revision;
    },
  };
  const { election } = await leader(store);
  holding = true;
  await started;
  const closing = election.stop(SHUTDOWN);
  finishRenewal();
  await closing;
  const record = decodeLeaseRecord(backend.get(KEY)!.value)!;
  assert.equal(record.holder, null, 'the lease was not released');
});
