// The JobManager's slots and jobs without processes: TaskManagers on fake connections. Slots are
// spread over the TaskManagers with the most free ones, requests wait in order until enough are
// free, a request that waits too long fails with how many were needed and offered, a lost
// TaskManager's slot holders are told; ended jobs are kept up to jobstore.max-capacity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceManager, type SlotGrant } from '../../src/cluster/resource-manager.ts';
import { RemoteSlotConnection } from '../../src/cluster/remote-slot-connection.ts';
import { SlotRequestTimeoutError } from '../../src/cluster/slot-request-timeout-error.ts';
import { JobStore } from '../../src/cluster/job-store.ts';
import type { RpcConnection } from '../../src/cluster/rpc-connection.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import type { RpcMessage } from '../../src/rpc/control-protocol.ts';
import type { SlotInit } from '../../src/rpc/task-manager-gateway.ts';
import { gatewayProxy } from '../../src/rpc/gateway-proxy.ts';
import { TASK_EXECUTOR_METHODS } from '../../src/rpc/task-executor-gateway.ts';
import { silentLogger } from '../../src/log/logger.ts';

function fakeConnection(): RpcConnection & { sent: RpcMessage[]; closeNow(): void } {
  const closers: Array<(e: Error | undefined) => void> = [];
  const sent: RpcMessage[] = [];
  let closed = false;
  return {
    address: '127.0.0.1:1',
    sent,
    get closed() {
      return closed;
    },
    send(m: RpcMessage) {
      sent.push(m);
    },
    onMessage() {},
    onClose(h: (e: Error | undefined) => void) {
      closers.push(h);
    },
    close() {
      closed = true;
    },
    closeNow() {
      closed = true;
      for (const h of closers) h(undefined);
    },
  } as unknown as RpcConnection & { sent: RpcMessage[]; closeNow(): void };
}

const registration = (id: string, slots: number) => ({ id, host: '127.0.0.1', dataPort: 1, slots, pid: 1, hostname: 'h', hardware: { cpuCores: 1, physicalMemory: 1, freeMemory: 1, heapLimit: 1 } });

function manager() {
  return new ResourceManager({ heartbeatIntervalMs: 60_000, heartbeatTimeoutMs: 120_000, log: silentLogger, bundle: () => undefined });
}

const listener = (lost: string[]) => (g: SlotGrant) => ({ message() {}, lost: (e: Error) => lost.push(`${g.taskManager.id}/${g.slot}: ${e.message}`) });

test('slots spread over the TaskManagers with the most free; waiting requests are served in order; a loss reaches the holders', async () => {
  const rm = manager();
  const a = fakeConnection();
  const b = fakeConnection();
  rm.register(registration('a', 2), a);
  rm.register(registration('b', 2), b);
  const lost: string[] = [];
  const first = await rm.requestSlots('job-1', 2, 1000, listener(lost));
  assert.deepEqual(first.map((g) => g.taskManager.id).sort(), ['a', 'b'], 'one on each');
  assert.equal(rm.slotsAvailable, 2);
  const second = rm.requestSlots('job-2', 3, 5000, listener(lost));
  const third = rm.requestSlots('job-3', 1, 5000, listener(lost));
  let thirdDone = false;
  void third.then(() => (thirdDone = true), () => {});
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(thirdDone, false, 'the later, smaller request waits behind the first');
  rm.release(first[0]!);
  const got = await second;
  assert.equal(got.length, 3);
  assert.equal(rm.slotsAvailable, 0);
  // The process of `a` dies: the holders of its slots are told, its slots are gone.
  a.closeNow();
  assert.ok(lost.some((l) => /^a\/\d: TaskManager process a at 127\.0\.0\.1:1 was lost: its connection closed/.test(l)), lost.join('\n'));
  assert.equal(rm.slotsTotal, 2);
  rm.close();
  await assert.rejects(third);
});

test('too few slots within the timeout: the reason names what was needed, free and offered', async () => {
  const rm = manager();
  rm.register(registration('a', 1), fakeConnection());
  await assert.rejects(rm.requestSlots('0123', 2, 50, listener([])), (e: Error) => {
    assert.ok(e instanceof SlotRequestTimeoutError);
    assert.equal(e.needed, 2);
    assert.equal(e.free, 1);
    assert.equal(e.offered, 1);
    assert.match(e.message, /^job 0123 needs 2 slots but only 1 was free after 0\.05 s \(slot\.request\.timeout\); 1 TaskManager offers 1 slot in all \(a: 1 of 1 free\)/);
    return true;
  });
  rm.close();
});

test('every message to a TaskManager carries a leader epoch: the JobManager\'s own, and on a job\'s the one the job runs under', async () => {
  let held = 3;
  const rm = new ResourceManager({ heartbeatIntervalMs: 60_000, heartbeatTimeoutMs: 120_000, log: silentLogger, bundle: () => undefined, leaderEpoch: () => held });
  const c = fakeConnection();
  rm.register(registration('a', 1), c);
  let connection: RemoteSlotConnection | undefined;
  const [grant] = await rm.requestSlots('job-1', 1, 1000, (g) => (connection = new RemoteSlotConnection({ index: 0, grant: g, locations: () => ({}), release: () => rm.release(g), leaderEpoch: 2 })));
  connection!.start({} as SlotInit);
  const executor = gatewayProxy(TASK_EXECUTOR_METHODS, (m) => connection!.send(m));
  executor.notifyCheckpointComplete({ attempt: 0, checkpointId: 1 });
  // Leading again with a newer epoch: the JobManager's own messages say so, the old job's do not.
  held = 4;
  executor.cancel({ attempt: 0 });
  rm.release(grant!);
  const stamps = c.sent.map((m) => `${m.type}${m.type === 'toSlot' ? `/${m.message.type}` : ''} ${'leaderEpoch' in m ? m.leaderEpoch : '-'}`);
  assert.deepEqual(stamps, ['heartbeatRequest 3', 'registered 3', 'startSlot 2', 'toSlot/notifyCheckpointComplete 2', 'toSlot/cancel 2', 'stopSlot 4']);
  rm.close();
});

test('without high availability the epoch is 0', async () => {
  const rm = manager();
  const c = fakeConnection();
  rm.register(registration('a', 1), c);
  assert.deepEqual(c.sent.map((m) => ('leaderEpoch' in m ? m.leaderEpoch : undefined)), [0, 0]);
  rm.close();
});

test('the job store keeps ended jobs up to jobstore.max-capacity, the oldest ended goes first; running ones stay', async () => {
  const fake = (jobId: string) => {
    let end!: () => void;
    const m = { jobId, status: 'RUNNING', result: () => done };
    const done = new Promise<void>((r) => (end = r));
    return { m: m as unknown as JobMaster, finish: async () => ((m.status = 'FINISHED'), end(), await done, await new Promise((r) => setTimeout(r, 0))) };
  };
  const store = new JobStore(1);
  const jobs = ['j1', 'j2', 'j3'].map(fake);
  for (const j of jobs) store.add(j.m);
  await jobs[0]!.finish();
  assert.deepEqual(store.list().map((m) => m.jobId), ['j1', 'j2', 'j3']);
  await jobs[2]!.finish();
  assert.deepEqual(store.list().map((m) => m.jobId), ['j2', 'j3'], 'j1, the oldest ended, went');
  assert.equal(store.get('j1'), undefined);
  assert.equal(store.get('j2')?.jobId, 'j2');
});
