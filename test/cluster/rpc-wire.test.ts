// The RPC wire: an HTTP upgrade on the JobManager's one port, then a versioned handshake with the
// cluster token, then the RPC union in frames. A peer with a wrong token, another protocol or weir
// version, or garbage bytes is refused with a log line naming its address, and nothing it sent
// reaches the protocol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { acceptHandshake, greetHandshake } from '../../src/cluster/handshake.ts';
import { acceptRpcUpgrades, dialRpc, JobManagerUnreachableError } from '../../src/cluster/rpc-upgrade.ts';
import { RpcConnection } from '../../src/cluster/rpc-connection.ts';
import { ConnectionRefusedError } from '../../src/cluster/refusal.ts';
import { FrameReader, frame, FrameTooLargeError } from '../../src/cluster/frame-reader.ts';
import { createLogger } from '../../src/log/logger.ts';
import { CONTROL_PROTOCOL_VERSION, type RpcMessage } from '../../src/rpc/control-protocol.ts';
import { gatewayProxy } from '../../src/rpc/gateway-proxy.ts';
import { RESOURCE_MANAGER_METHODS } from '../../src/rpc/resource-manager-gateway.ts';
import { TASK_MANAGER_METHODS } from '../../src/rpc/task-manager-gateway.ts';
import { PACKAGE_VERSION } from '../../src/cli/package-version.ts';

interface Harness {
  port: number;
  received: RpcMessage[];
  logs: Array<{ msg: string; peer?: string; code?: string }>;
  server: Server;
}

async function startServer(token: string | null): Promise<Harness> {
  const h: Harness = { port: 0, received: [], logs: [], server: createServer((_req, res) => res.end('rest')) };
  const log = createLogger({ level: 'info', json: true, write: (l) => h.logs.push(JSON.parse(l)) });
  acceptRpcUpgrades(h.server, (conn) => {
    void acceptHandshake(conn, { role: 'taskmanager', token, id: 'jm', log }).then((hello) => {
      if (!hello) return;
      const rpc = new RpcConnection(conn);
      const taskManager = gatewayProxy(TASK_MANAGER_METHODS, (m) => rpc.send(m));
      rpc.onMessage((m) => {
        h.received.push(m);
        taskManager.registered({ jobManager: `hello ${hello.id}`, leaderEpoch: 7 });
      });
    });
  });
  await new Promise<void>((resolve) => h.server.listen(0, '127.0.0.1', resolve));
  h.port = (h.server.address() as AddressInfo).port;
  return h;
}

const registration = {
  id: 'tm-1',
  host: '127.0.0.1',
  dataPort: 1,
  slots: 2,
  pid: 1,
  hostname: 'h',
  hardware: { cpuCores: 2, physicalMemory: 1, freeMemory: 1, heapLimit: 1 },
};

test('frames: split anywhere, gathered whole; a frame beyond the limit is refused', () => {
  const frames = [Buffer.from('a'), Buffer.alloc(70_000, 7), Buffer.alloc(0), Buffer.from('xyz')];
  const bytes = Buffer.concat(frames.map((f) => frame(f)));
  for (const cut of [1, 3, 5, 4096, 65_536]) {
    const r = new FrameReader(1 << 20);
    const got: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += cut) r.push(bytes.subarray(i, i + cut), (f) => got.push(Buffer.from(f)));
    assert.deepEqual(got, frames);
  }
  assert.throws(() => new FrameReader(10).push(frame(Buffer.alloc(11)), () => {}), FrameTooLargeError);
});

test('an RPC connection by HTTP upgrade, with the token: messages as structured clones both ways', async (t) => {
  const h = await startServer('s3cret');
  t.after(() => h.server.close());
  const conn = await dialRpc('127.0.0.1', h.port);
  const welcome = await greetHandshake(conn, { role: 'taskmanager', token: 's3cret', id: 'tm-1' });
  assert.equal(welcome.protocol, CONTROL_PROTOCOL_VERSION);
  const rpc = new RpcConnection(conn);
  const answer = new Promise<RpcMessage>((resolve) => rpc.onMessage(resolve));
  const jobManager = gatewayProxy(RESOURCE_MANAGER_METHODS, (m) => rpc.send(m));
  const fromSlot = { allocation: 'a1', message: { type: 'requestSplit', attempt: 0, vertexId: 'v', subtask: 1 } } as const;
  jobManager.register({ registration });
  jobManager.fromSlot(fromSlot);
  // The JobManager's leader epoch crosses with every message of its (what TaskManagers fence by).
  assert.deepEqual(await answer, { type: 'registered', jobManager: 'hello tm-1', leaderEpoch: 7 });
  await new Promise<void>((resolve) => {
    const check = () => (h.received.length >= 2 ? resolve() : setTimeout(check, 5));
    check();
  });
  assert.deepEqual(h.received[1], { type: 'fromSlot', ...fromSlot });
  // Splits and state are what a worker thread would get: Maps, BigInts and Dates survive.
  const { deserialize, serialize } = await import('node:v8');
  const splits = [{ positions: new Map([['a', 12n]]), at: new Date(5) }];
  assert.deepEqual(deserialize(serialize(splits)), splits);
  rpc.close();
});

test('a wrong token, another weir version, another protocol, garbage: refused, logged with the address, nothing delivered', async (t) => {
  const h = await startServer('s3cret');
  t.after(() => h.server.close());

  const wrong = await dialRpc('127.0.0.1', h.port);
  await assert.rejects(greetHandshake(wrong, { role: 'taskmanager', token: 'guess', id: 'tm-x' }), (e: Error) => e instanceof ConnectionRefusedError && e.code === 'bad-token');
  const none = await dialRpc('127.0.0.1', h.port);
  await assert.rejects(greetHandshake(none, { role: 'taskmanager', token: null, id: 'tm-x' }), (e: Error) => e instanceof ConnectionRefusedError && e.code === 'bad-token');

  // Another weir version and another protocol: a hello written by hand.
  for (const [hello, code] of [
    [{ type: 'hello', protocol: CONTROL_PROTOCOL_VERSION, weir: '0.0.1-old', role: 'taskmanager', id: 'old', token: 's3cret' }, 'weir-version'],
    // The protocol before this one (its message types were not the gateways' method names).
    [{ type: 'hello', protocol: CONTROL_PROTOCOL_VERSION - 1, weir: PACKAGE_VERSION, role: 'taskmanager', id: 'old', token: 's3cret' }, 'protocol-version'],
  ] as const) {
    const conn = await dialRpc('127.0.0.1', h.port);
    conn.write(Buffer.from(JSON.stringify(hello)));
    const answer = await new Promise<string>((resolve) => conn.onFrame((f) => resolve(f.toString())));
    assert.equal(JSON.parse(answer).code, code);
  }

  // Garbage after the upgrade: not JSON; and a length prefix of gigabytes.
  for (const bytes of [frame(Buffer.from([0xde, 0xad, 0xbe, 0xef])), Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3])]) {
    const conn = await dialRpc('127.0.0.1', h.port);
    conn.socket.write(bytes);
    await new Promise<void>((resolve) => conn.onClose(() => resolve()));
  }
  // A raw TCP connection speaking no HTTP at all is answered by the HTTP server, not by RPC.
  await new Promise<void>((resolve) => {
    const s = connect(h.port, '127.0.0.1', () => s.end('\x00\x01garbage\r\n\r\n'));
    s.on('close', () => resolve());
    s.resume();
  });

  assert.deepEqual(h.received, [], 'nothing a refused peer sent reached the protocol');
  const refusals = h.logs.filter((l) => l.msg.startsWith('refused the connection from 127.0.0.1:'));
  assert.deepEqual(refusals.map((l) => l.code).sort(), ['bad-token', 'bad-token', 'garbage', 'garbage', 'protocol-version', 'weir-version']);
  for (const l of refusals) assert.match(l.msg, /^refused the connection from 127\.0\.0\.1:\d+ \(/);
});

test('dialing an address where no JobManager answers names the address', async () => {
  const server = createServer((_req, res) => res.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await assert.rejects(dialRpc('127.0.0.1', port), (e: Error) => e instanceof JobManagerUnreachableError && e.message === `no weir JobManager answers at 127.0.0.1:${port}: ECONNREFUSED`);
  // An HTTP server that is not a JobManager (weir run's REST, say) answers the upgrade with a status.
  const other = createServer((_req, res) => res.writeHead(404).end());
  other.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const otherPort = (other.address() as AddressInfo).port;
  await assert.rejects(dialRpc('127.0.0.1', otherPort), /no weir JobManager answers at 127\.0\.0\.1:\d+: it answered HTTP 400/);
  other.close();
});
