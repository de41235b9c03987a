// JobSlots without processes (TaskManagers on fake connections): a TaskManager process lost after
// one of a job's slots was granted on it but before the slot is ready (a host that is cut off is
// declared lost only after heartbeat.timeout, and its freed slots may be granted meanwhile) makes
// the allocation ask again, and the job gets a slot on a TaskManager that is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceManager } from '../../src/cluster/resource-manager.ts';
import { JobSlots } from '../../src/cluster/job-slots.ts';
import type { RpcConnection } from '../../src/cluster/rpc-connection.ts';
import type { RpcMessage } from '../../src/rpc/control-protocol.ts';
import { gatewayProxy } from '../../src/rpc/gateway-proxy.ts';
import { JOB_MASTER_METHODS } from '../../src/rpc/job-master-gateway.ts';
import { RESOURCE_MANAGER_METHODS } from '../../src/rpc/resource-manager-gateway.ts';
import { silentLogger } from '../../src/log/logger.ts';

interface FakeTaskManager {
  readonly rpc: RpcConnection;
  /** Answers every startSlot sent so far with the slot's ready. */
  readyAll(): void;
  starts(): number;
  cut(): void;
}

function fakeTaskManager(): FakeTaskManager {
  const sent: RpcMessage[] = [];
  let handler: (m: RpcMessage) => void = () => {};
  const closers: Array<(e: Error | undefined) => void> = [];
  let closed = false;
  const rpc = {
    address: '127.0.0.1:1',
    get closed() {
      return closed;
    },
    send: (m: RpcMessage) => void sent.push(m),
    onMessage: (h: (m: RpcMessage) => void) => void (handler = h),
    onClose: (h: (e: Error | undefined) => void) => void closers.push(h),
    close: () => void (closed = true),
  } as unknown as RpcConnection;
  const jobManager = gatewayProxy(RESOURCE_MANAGER_METHODS, (m) => handler(m));
  const startSlots = () => sent.filter((m): m is Extract<RpcMessage, { type: 'startSlot' }> => m.type === 'startSlot');
  return {
    rpc,
    starts: () => startSlots().length,
    readyAll: () => {
      for (const m of startSlots()) gatewayProxy(JOB_MASTER_METHODS, (message) => jobManager.fromSlot({ allocation: m.allocation, message })).ready({ tm: m.init.index });
    },
    cut: () => {
      closed = true;
      for (const h of closers) h(new Error('cut off'));
    },
  };
}

const registration = (id: string) => ({ id, host: '127.0.0.1', dataPort: 1, slots: 1, pid: 1, hostname: id, hardware: { cpuCores: 1, physicalMemory: 1, freeMemory: 1, heapLimit: 1 } });

test('a process lost before its granted slot is ready: the allocation asks again and gets a slot elsewhere', { timeout: 10_000 }, async () => {
  const rm = new ResourceManager({ heartbeatIntervalMs: 60_000, heartbeatTimeoutMs: 120_000, log: silentLogger, bundle: () => undefined });
  const [a, b] = [fakeTaskManager(), fakeTaskManager()];
  rm.register(registration('a'), a.rpc);
  rm.register(registration('b'), b.rpc);
  const slots = new JobSlots({ jobId: 'job-1', resources: rm, init: { jobId: 'job-1', bundle: 'h', jobModulePath: 'job.ts', args: [], layers: {} as never }, taskManagers: 1, timeoutMs: 2000, log: silentLogger });
  const allocation = slots.allocate([0]);
  await new Promise((r) => setImmediate(r));
  const [first, other] = a.starts() === 1 ? [a, b] : [b, a];
  assert.equal(first.starts(), 1, 'the slot went to one of them');
  first.cut();
  // The second try goes to the TaskManager that is left.
  for (let i = 0; i < 50 && other.starts() === 0; i++) await new Promise((r) => setImmediate(r));
  assert.equal(other.starts(), 1, 'asked again on the other TaskManager');
  other.readyAll();
  const [gateway] = await allocation;
  assert.ok(gateway, 'a slot');
  assert.equal(rm.slotsAvailable, 0, 'the only TaskManager left holds the job');
});
