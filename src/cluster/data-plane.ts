import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Stoppable, StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import type { SlotLocation } from '../rpc/task-executor-gateway.ts';
import { DataFrame, dataHeader, DATA_FRAME_HEADER, type DataFrameKind } from '../network/data-frames.ts';
import { RingReceiver } from '../network/ring-receiver.ts';
import { RingSender } from '../network/ring-sender.ts';
import type { SegmentRing } from '../network/segment-ring.ts';
import { FramedSocket, peerAddress } from './framed-socket.ts';
import { acceptHandshake, greetHandshake, HANDSHAKE_MAX_FRAME } from './handshake.ts';
import type { InternalTls } from './internal-tls.ts';
import { ConnectionRefusedError } from './refusal.ts';
import type { Duplex } from 'node:stream';

/** What the owner of a channel is told when its connection fails: the subtask at this end fails. */
export type ChannelFailure = (reason: string) => void;

interface OutgoingChannel {
  readonly sender: RingSender;
  readonly key: string;
  readonly failed: ChannelFailure;
}

interface IncomingChannel {
  readonly receiver: RingReceiver;
  readonly key: string;
  readonly failed: ChannelFailure;
}

/** A receiver waiting for its sender's OPEN, or an OPEN waiting for its receiver. */
interface Registration {
  readonly ring: SegmentRing;
  readonly window: number;
  readonly failed: ChannelFailure;
  bound?: { connection: DataConnection; channel: number; receiver: RingReceiver };
}

/**
 * One TCP connection between two TaskManager processes, multiplexing every channel between them
 * in both directions (Flink's Netty shuffle: one connection per pair). Each channel's frames carry
 * the number its sender gave it.
 */
class DataConnection {
  readonly peer: string;
  readonly conn: FramedSocket;
  readonly outgoing = new Map<number, OutgoingChannel>();
  readonly incoming = new Map<number, IncomingChannel>();
  #nextChannel = 1;

  constructor(peer: string, conn: FramedSocket) {
    this.peer = peer;
    this.conn = conn;
  }

  newChannel(): number {
    return this.#nextChannel++;
  }

  send(kind: DataFrameKind, channel: number, body?: Uint8Array): void {
    if (body) this.conn.write(dataHeader(kind, channel), body);
    else this.conn.write(dataHeader(kind, channel));
  }
}

export interface DataPlaneOptions {
  /** This TaskManager's resource id: peers find their connection to it by it. */
  readonly id: string;
  readonly host: string;
  readonly port: number;
  readonly token: string | null;
  readonly log: Logger;
  readonly tls?: InternalTls | undefined;
}

/**
 * A TaskManager process's side of the data plane between processes: its data port, its
 * connections to other TaskManager processes, and the channels on them. An output channel whose
 * consumer runs elsewhere gets a RingSender on the connection to that process; an input channel
 * whose producer runs elsewhere gets a RingReceiver, bound when its sender's OPEN (which names
 * the channel: job, attempt, edge, producer, consumer) arrives, whichever comes first. Started by
 * listen() (it returns the port), stopped once with the process.
 */
export class DataPlane implements Stoppable {
  readonly #o: DataPlaneOptions;
  #server: Server | undefined;
  readonly #connections = new Map<string, DataConnection>();
  /** Every open connection, also the older one of two processes that dialed each other at once. */
  readonly #all = new Set<FramedSocket>();
  readonly #dialing = new Map<string, Promise<DataConnection>>();
  readonly #registrations = new Map<string, Registration>();
  /** OPENs whose receiver is not registered yet (its deploy has not reached this process). */
  readonly #unclaimed = new Map<string, { connection: DataConnection; channel: number }>();
  #port = 0;

  constructor(o: DataPlaneOptions) {
    this.#o = o;
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<number> {
    const server = createServer((socket) => void this.#accept(socket));
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.port, this.#o.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    this.#port = typeof address === 'object' && address ? address.port : this.#o.port;
    return this.#port;
  }

  /** Pumps a local producer's ring to the consumer's process; returns how to tear the channel down. */
  send(peer: SlotLocation, key: string, ring: SegmentRing, failed: ChannelFailure): () => void {
    let stopped = false;
    let connection: DataConnection | undefined;
    let channel = 0;
    const sender = new RingSender(ring, {
      // A copy: the socket may hold the bytes after this returns, and the ring reuses the segment at once.
      segment: (bytes, forced) => connection!.send(forced ? DataFrame.FORCED : DataFrame.DATA, channel, Buffer.from(bytes)),
      priority: (bytes) => connection!.send(DataFrame.PRIORITY, channel, bytes),
      close: () => {
        connection!.send(DataFrame.CLOSE, channel);
        connection!.outgoing.delete(channel);
      },
    });
    this.#connectionTo(peer).then(
      (c) => {
        if (stopped) return;
        connection = c;
        channel = c.newChannel();
        c.outgoing.set(channel, { sender, key, failed });
        c.send(DataFrame.OPEN, channel, Buffer.from(key, 'utf8'));
        // No credit yet: the first segments go when the receiver has bound and granted its window.
        sender.start();
      },
      (e: Error) => {
        if (!stopped) failed(`the data connection to TaskManager ${peer.taskManagerId} at ${peer.host}:${peer.dataPort} could not be made: ${e.message}`);
      },
    );
    return () => {
      if (stopped) return;
      stopped = true;
      sender.stop();
      if (connection?.outgoing.delete(channel)) connection.send(DataFrame.CLOSE, channel);
    };
  }

  /** Fills a local consumer's ring from its producer's process; returns how to tear the channel down. */
  receive(key: string, ring: SegmentRing, window: number, failed: ChannelFailure): () => void {
    const reg: Registration = { ring, window, failed };
    this.#registrations.set(key, reg);
    const waiting = this.#unclaimed.get(key);
    if (waiting) {
      this.#unclaimed.delete(key);
      this.#bind(reg, key, waiting.connection, waiting.channel);
    }
    return () => {
      if (this.#registrations.get(key) !== reg) return;
      this.#registrations.delete(key);
      const b = reg.bound;
      if (b) {
        b.receiver.stop();
        if (b.connection.incoming.delete(b.channel)) b.connection.send(DataFrame.GONE, b.channel);
      } else {
        ring.close();
      }
    };
  }

  async stop(_reason: StopReason): Promise<void> {
    const closing = new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    // The server's close waits for its connections: every one is ended at once.
    for (const c of this.#all) c.destroy(new Error('this TaskManager is stopping'));
    await closing;
  }

  #bind(reg: Registration, key: string, connection: DataConnection, channel: number): void {
    const receiver = new RingReceiver(reg.ring, reg.window);
    reg.bound = { connection, channel, receiver };
    connection.incoming.set(channel, { receiver, key, failed: reg.failed });
    receiver.attach({
      credit: (n) => {
        const b = Buffer.allocUnsafe(4);
        b.writeUInt32BE(n, 0);
        connection.send(DataFrame.CREDIT, channel, b);
      },
      gone: () => connection.send(DataFrame.GONE, channel),
      budget: (segments, fillBytes) => {
        const b = Buffer.allocUnsafe(8);
        b.writeUInt32BE(segments, 0);
        b.writeUInt32BE(fillBytes, 4);
        connection.send(DataFrame.BUDGET, channel, b);
      },
    });
  }

  // ---- connections ----

  #connectionTo(peer: SlotLocation): Promise<DataConnection> {
    const open = this.#connections.get(peer.taskManagerId);
    if (open && !open.conn.closed) return Promise.resolve(open);
    let dialing = this.#dialing.get(peer.taskManagerId);
    if (!dialing) {
      dialing = this.#dial(peer).finally(() => this.#dialing.delete(peer.taskManagerId));
      this.#dialing.set(peer.taskManagerId, dialing);
    }
    return dialing;
  }

  async #dial(peer: SlotLocation): Promise<DataConnection> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: peer.host, port: peer.dataPort });
      s.once('connect', () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
    socket.setNoDelay(true);
    const address = `${peer.host}:${peer.dataPort}`;
    let stream: Duplex = socket;
    if (this.#o.tls) {
      try {
        stream = await this.#o.tls.connect(socket);
      } catch (e) {
        throw new ConnectionRefusedError(address, 'tls', (e as Error).message, 'peer');
      }
    }
    const conn = new FramedSocket(stream, HANDSHAKE_MAX_FRAME, address);
    this.#track(conn);
    const welcome = await greetHandshake(conn, { role: 'data', token: this.#o.token, id: this.#o.id });
    if (welcome.id !== peer.taskManagerId) {
      conn.destroy();
      throw new Error(`${peer.host}:${peer.dataPort} is TaskManager ${welcome.id}, not ${peer.taskManagerId}`);
    }
    return this.#open(peer.taskManagerId, conn);
  }

  async #accept(socket: Socket): Promise<void> {
    socket.setNoDelay(true);
    const address = peerAddress(socket);
    let stream: Duplex = socket;
    if (this.#o.tls) {
      try {
        stream = await this.#o.tls.accept(socket);
      } catch (e) {
        this.#o.log.warn(new ConnectionRefusedError(address, 'tls', (e as Error).message, 'us').message, { peer: address, code: 'tls' });
        return;
      }
    }
    const conn = new FramedSocket(stream, HANDSHAKE_MAX_FRAME, address);
    this.#track(conn);
    const hello = await acceptHandshake(conn, { role: 'data', token: this.#o.token, id: this.#o.id, log: this.#o.log });
    if (hello) this.#open(hello.id, conn);
  }

  #track(conn: FramedSocket): void {
    this.#all.add(conn);
    conn.onClose(() => this.#all.delete(conn));
  }

  #open(peer: string, conn: FramedSocket): DataConnection {
    const c = new DataConnection(peer, conn);
    // Two processes that dialed each other at once keep both connections; new channels use the latest.
    this.#connections.set(peer, c);
    conn.onFrame((frame) => this.#frame(c, frame));
    conn.onClose((e) => this.#closed(c, e));
    return c;
  }

  #frame(c: DataConnection, frame: Buffer): void {
    if (frame.length < DATA_FRAME_HEADER) return c.conn.destroy(new Error(`a data frame of ${frame.length} bytes`));
    const kind = frame[0] as DataFrameKind;
    const channel = frame.readUInt32BE(1);
    const body = frame.subarray(DATA_FRAME_HEADER);
    try {
      switch (kind) {
        case DataFrame.DATA:
        case DataFrame.FORCED:
          return c.incoming.get(channel)?.receiver.segment(body, kind === DataFrame.FORCED);
        case DataFrame.PRIORITY:
          // The ring copies it into a priority slot later, maybe: keep bytes of its own.
          return c.incoming.get(channel)?.receiver.priority(Buffer.from(body));
        case DataFrame.CREDIT:
          return c.outgoing.get(channel)?.sender.credit(body.readUInt32BE(0));
        case DataFrame.BUDGET:
          return c.outgoing.get(channel)?.sender.budget(body.readUInt32BE(0), body.readUInt32BE(4));
        case DataFrame.OPEN: {
          const key = body.toString('utf8');
          const reg = this.#registrations.get(key);
          if (reg && !reg.bound) this.#bind(reg, key, c, channel);
          else this.#unclaimed.set(key, { connection: c, channel });
          return;
        }
        case DataFrame.CLOSE: {
          const ch = c.incoming.get(channel);
          c.incoming.delete(channel);
          ch?.receiver.senderClosed();
          return;
        }
        case DataFrame.GONE: {
          const ch = c.outgoing.get(channel);
          c.outgoing.delete(channel);
          ch?.sender.stop();
          return;
        }
        default:
          c.conn.destroy(new Error(`a data frame of kind ${kind}`));
      }
    } catch (e) {
      c.conn.destroy(e as Error);
    }
  }

  #closed(c: DataConnection, e: Error | undefined): void {
    if (this.#connections.get(c.peer) === c) this.#connections.delete(c.peer);
    for (const [key, u] of this.#unclaimed) if (u.connection === c) this.#unclaimed.delete(key);
    const reason = `the data connection with TaskManager ${c.peer} (${c.conn.address}) closed${e ? `: ${e.message}` : ''}`;
    if (c.outgoing.size + c.incoming.size > 0) this.#o.log.warn(reason, { peer: c.peer, channels: c.outgoing.size + c.incoming.size });
    for (const ch of c.outgoing.values()) {
      ch.sender.stop();
      ch.failed(reason);
    }
    for (const ch of c.incoming.values()) ch.failed(reason);
    c.outgoing.clear();
    c.incoming.clear();
  }
}
