// The control plane's generic proxy: a gateway's calls become messages named after its methods,
// and a received message calls the method it names on the implementation, whatever carries it in
// between (here a plain array, then a structured clone as a worker thread's port makes). The method
// tables are exhaustive (the compiler holds them to the interfaces), and a message of any other
// type is refused with an error that names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatchMessage, gatewayProxy, type GatewayMethods, type MessagesOf } from '../../src/rpc/gateway-proxy.ts';
import { UnknownMessageError } from '../../src/rpc/unknown-message-error.ts';
import { JOB_MASTER_METHODS, type JobMasterGateway } from '../../src/rpc/job-master-gateway.ts';
import { RESOURCE_MANAGER_METHODS } from '../../src/rpc/resource-manager-gateway.ts';
import { TASK_EXECUTOR_METHODS, type TaskExecutorGateway } from '../../src/rpc/task-executor-gateway.ts';
import { TASK_MANAGER_METHODS } from '../../src/rpc/task-manager-gateway.ts';
import type { ToTaskExecutor } from '../../src/rpc/control-protocol.ts';

interface Counter {
  add(p: { readonly by: number }): void;
  reset(p: { readonly to: number; readonly why: string }): void;
}

const COUNTER_METHODS: GatewayMethods<Counter> = { add: true, reset: true };

class CounterImpl implements Counter {
  value = 0;
  log: string[] = [];
  add({ by }: { readonly by: number }): void {
    this.value += by;
  }
  reset({ to, why }: { readonly to: number; readonly why: string }): void {
    this.value = to;
    this.log.push(why);
  }
  /** Not a gateway method: no message may reach it. */
  explode(): void {
    throw new Error('reached a method that is not the gateway\'s');
  }
}

test('a call becomes a message named after the method, and dispatching it calls that method with the payload', () => {
  const sent: Array<MessagesOf<Counter>> = [];
  const counter = gatewayProxy(COUNTER_METHODS, (m) => sent.push(m));
  counter.add({ by: 2 });
  counter.reset({ to: 10, why: 'because' });
  counter.add({ by: 5 });
  assert.deepEqual(sent, [
    { type: 'add', by: 2 },
    { type: 'reset', to: 10, why: 'because' },
    { type: 'add', by: 5 },
  ]);
  const target = new CounterImpl();
  for (const m of sent) dispatchMessage(COUNTER_METHODS, target, structuredClone(m));
  assert.equal(target.value, 15);
  assert.deepEqual(target.log, ['because']);
});

test('proxy -> message -> dispatch round trip over TaskExecutorGateway, as a worker thread gets it', () => {
  const calls: string[] = [];
  const executor = Object.fromEntries(Object.keys(TASK_EXECUTOR_METHODS).map((k) => [k, (p: unknown) => calls.push(`${k} ${JSON.stringify(p)}`)])) as unknown as TaskExecutorGateway;
  const proxy = gatewayProxy(TASK_EXECUTOR_METHODS, (m) => dispatchMessage(TASK_EXECUTOR_METHODS, executor, structuredClone(m)));
  proxy.triggerCheckpoint({ attempt: 1, checkpointId: 7, timestamp: 5, options: { type: 'checkpoint', unaligned: false } as never });
  proxy.addSplits({ attempt: 1, vertexId: 'v', subtask: 0, splits: [{ id: 3 }], noMoreSplits: false });
  proxy.shutdown({});
  assert.deepEqual(calls, [
    'triggerCheckpoint {"attempt":1,"checkpointId":7,"timestamp":5,"options":{"type":"checkpoint","unaligned":false},"type":"triggerCheckpoint"}',
    'addSplits {"attempt":1,"vertexId":"v","subtask":0,"splits":[{"id":3}],"noMoreSplits":false,"type":"addSplits"}',
    'shutdown {"type":"shutdown"}',
  ]);
});

test('the proxy is a plain object with exactly the table\'s methods: not thenable, so it can be awaited or returned from async code', async () => {
  const proxy = gatewayProxy(JOB_MASTER_METHODS, () => {});
  assert.deepEqual(Object.keys(proxy).sort(), Object.keys(JOB_MASTER_METHODS).sort());
  assert.equal((proxy as unknown as { then?: unknown }).then, undefined);
  assert.equal(await Promise.resolve(proxy), proxy);
  assert.ok(Object.isFrozen(proxy));
});

test('the method tables name every method of their gateways (exhaustive, checked by the compiler)', () => {
  // A table missing a method, or with one the interface does not have, does not compile:
  // @ts-expect-error `reset` is missing
  const missing: GatewayMethods<Counter> = { add: true };
  // @ts-expect-error `subtract` is not a method of Counter
  const extra: GatewayMethods<Counter> = { add: true, reset: true, subtract: true };
  void missing;
  void extra;
  assert.equal(Object.keys(TASK_EXECUTOR_METHODS).length, 15);
  assert.equal(Object.keys(JOB_MASTER_METHODS).length, 14);
  assert.deepEqual(Object.keys(RESOURCE_MANAGER_METHODS).sort(), ['fetchBundle', 'fromSlot', 'heartbeatReply', 'register', 'slotLost']);
  assert.deepEqual(Object.keys(TASK_MANAGER_METHODS).sort(), ['bundle', 'heartbeatRequest', 'registered', 'startSlot', 'stopSlot', 'toSlot']);
  // The derived union has exactly one message kind per method.
  const kinds: Record<ToTaskExecutor['type'], true> = TASK_EXECUTOR_METHODS;
  assert.equal(kinds, TASK_EXECUTOR_METHODS);
});

test('a message of another type is refused with an error naming it; methods outside the gateway are never reached', () => {
  const target = new CounterImpl();
  const dispatch = (m: unknown) => dispatchMessage(COUNTER_METHODS, target, m as MessagesOf<Counter>);
  assert.throws(
    () => dispatch({ type: 'subtract', by: 1 }),
    (e: unknown) => e instanceof UnknownMessageError && e.messageType === 'subtract' && e.message === "unknown message type 'subtract'",
  );
  assert.throws(() => dispatch({ type: 'explode' }), (e: unknown) => e instanceof UnknownMessageError && e.messageType === 'explode');
  assert.throws(() => dispatch({ type: 'toString' }), UnknownMessageError);
  assert.throws(() => dispatch({ type: 'constructor' }), UnknownMessageError);
  assert.throws(() => dispatch({ by: 1 }), (e: unknown) => e instanceof UnknownMessageError && e.messageType === undefined);
  assert.throws(() => dispatch(null), UnknownMessageError);
  assert.equal(target.value, 0);
});

test('the method called decides the message kind, whatever type field its payload carries', () => {
  const sent: Array<MessagesOf<JobMasterGateway>> = [];
  const jobMaster = gatewayProxy(JOB_MASTER_METHODS, (m) => sent.push(m));
  // A message handed on whole as a payload (as a forwarding hop might do) is of the call made.
  const received = { type: 'heartbeat', tm: 2, seq: 9 } as const;
  jobMaster.ready(received);
  assert.deepEqual(sent, [{ type: 'ready', tm: 2, seq: 9 }]);
});
