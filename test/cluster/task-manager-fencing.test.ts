// A TaskManager process (in this process) against fake JobManagers on real RPC connections: the
// fence of leader-epoch-fence.ts wired in. A message stamped with an epoch older than the newest
// seen is refused and logged with its type, epoch and the JobManager's address (a commit above
// all), while one of the current epoch is acted on; a newer leader named by retrieval makes the
// TaskManager leave the old one, which says nothing (it is paused), and register with the new one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptHandshake } from '../../src/cluster/handshake.ts';
import { RpcConnection } from '../../src/cluster/rpc-connection.ts';
import { acceptRpcUpgrades } from '../../src/cluster/rpc-upgrade.ts';
import { TaskManagerProcess } from '../../src/cluster/task-manager-process.ts';
import { buildConfig } from '../../src/config/configuration.ts';
import type { LeaderInformation, LeaderRetrieval } from '../../src/ha/leader-retrieval.ts';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import type { RpcMessage } from '../../src/rpc/control-protocol.ts';
import { gatewayProxy } from '../../src/rpc/gateway-proxy.ts';
import { TASK_MANAGER_METHODS, type TaskManagerGateway } from '../../src/rpc/task-manager-gateway.ts';

/** Calls every waiter on each change; `until` resolves once its condition holds. */
class Changes {
  readonly #waiters = new Set<() => void>();

  changed(): void {
    for (const w of [...this.#waiters]) w();
  }

  until<T>(what: string, pick: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const check = () => {
        const v = pick();
        if (v === undefined || v === false) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(v);
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** A JobManager that answers a registration with `registered` of its epoch, and otherwise only does what the test says. */
async function fakeJobManager(epoch: number, changes: Changes) {
  const received: RpcMessage[] = [];
  let rpc: RpcConnection | undefined;
  let taskManager: TaskManagerGateway | undefined;
  let closed = false;
  const server = createServer((_req, res) => res.end());
  acceptRpcUpgrades(server, (conn) => {
    void acceptHandshake(conn, { role: 'taskmanager', token: null, id: 'jm', log: silentLogger }).then((hello) => {
      if (!hello) return;
      const r = new RpcConnection(conn);
      r.onClose(() => ((closed = true), changes.changed()));
      r.onMessage((m) => {
        received.push(m);
        if (m.type === 'register') {
          rpc = r;
          taskManager = gatewayProxy(TASK_MANAGER_METHODS, (message) => r.send(message));
          taskManager.registered({ jobManager: 'jm', leaderEpoch: epoch });
        }
        changes.changed();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `http://127.0.0.1:${port}`,
    received,
    /** Once the TaskManager registered: its gateway, over that connection. */
    registered: () => changes.until(`a registration at :${port}`, () => taskManager),
    get closed() {
      return closed;
    },
    close: () => new Promise<void>((resolve) => (rpc?.close(), server.close(() => resolve()), server.closeAllConnections())),
  };
}

function taskManager(jobManager: ConstructorParameters<typeof TaskManagerProcess>[0]['jobManager'], changes: Changes) {
  const log: Array<Record<string, unknown>> = [];
  const workDir = mkdtempSync(join(tmpdir(), 'weir-tm-fencing-'));
  const tm = new TaskManagerProcess({
    config: buildConfig({ 'taskmanager.host': '127.0.0.1', 'taskmanager.data.port': 0, 'taskmanager.resource-id': 'tm-f' }),
    jobManager,
    token: null,
    workDir,
    log: createLogger({ level: 'info', json: true, write: (l) => (log.push(JSON.parse(l) as Record<string, unknown>), changes.changed()) }),
  });
  return { tm, log, cleanUp: async () => (await tm.stop(), rmSync(workDir, { recursive: true, force: true })) };
}

const replies = (received: RpcMessage[]) => received.flatMap((m) => (m.type === 'heartbeatReply' ? [m.seq] : []));

test('a JobManager leading again with a newer epoch: a message of its old epoch is refused and logged, the connection stays, current ones are acted on', async (t) => {
  const changes = new Changes();
  const jm = await fakeJobManager(2, changes);
  const { tm, log, cleanUp } = taskManager({ host: '127.0.0.1', port: jm.port }, changes);
  t.after(async () => (await cleanUp(), await jm.close()));
  await tm.start();
  const gateway = await jm.registered();
  // From a job of its leadership before (epoch 1): a commit and a heartbeat; then one of epoch 2.
  gateway.toSlot({ allocation: 'a-old', message: { type: 'notifyCheckpointComplete', attempt: 1, checkpointId: 9 }, leaderEpoch: 1 });
  gateway.heartbeatRequest({ seq: 1, leaderEpoch: 1 });
  gateway.heartbeatRequest({ seq: 2, leaderEpoch: 2 });
  await changes.until('the reply to the current heartbeat', () => replies(jm.received).includes(2));
  assert.deepEqual(replies(jm.received), [2], 'the heartbeat of epoch 1 was not answered');
  const refused = log.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('refused '));
  assert.deepEqual(
    refused.map((l) => [l.type, l.epoch, l.newestEpoch]),
    [
      ['toSlot/notifyCheckpointComplete', 1, 2],
      ['heartbeatRequest', 1, 2],
    ],
  );
  assert.match(String(refused[0]!.msg), /^refused toSlot\/notifyCheckpointComplete of leader epoch 1 from the JobManager at 127\.0\.0\.1:\d+: leader epoch 2 has been seen$/);
  assert.equal(jm.closed, false, 'the JobManager leads: its connection stays');
});

test('a newer leader named by retrieval: the TaskManager leaves the old one, which says nothing, and registers with the new one', async (t) => {
  const changes = new Changes();
  const old = await fakeJobManager(1, changes);
  const fresh = await fakeJobManager(2, changes);
  let listener: ((l: LeaderInformation | null) => void) | undefined;
  const retrieval: LeaderRetrieval = { start: (l) => ((listener = l), changes.changed()), stop: async () => {} };
  const { tm, log, cleanUp } = taskManager({ leaderRetrieval: retrieval }, changes);
  t.after(async () => (await cleanUp(), await old.close(), await fresh.close()));
  await tm.start();
  await changes.until('retrieval started', () => listener);
  listener!({ sessionId: 's1', epoch: 1, address: old.address });
  await old.registered();
  // The old leader is paused from here on: it neither closes nor says anything.
  listener!({ sessionId: 's2', epoch: 2, address: fresh.address });
  await changes.until('the old connection closed by the TaskManager', () => old.closed);
  const gateway = await fresh.registered();
  gateway.heartbeatRequest({ seq: 5, leaderEpoch: 2 });
  await changes.until('the new leader answered', () => replies(fresh.received).includes(5));
  assert.ok(log.some((l) => l.msg === `a newer leader (epoch 2): leaving the JobManager of epoch 1 at 127.0.0.1:${old.port}`), JSON.stringify(log.map((l) => l.msg)));
  assert.ok(log.some((l) => typeof l.msg === 'string' && l.msg.startsWith(`registered with the JobManager at 127.0.0.1:${fresh.port} (leader epoch 2)`)));
});
