import { randomBytes } from 'node:crypto';
import { availableParallelism, freemem, hostname, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { WeirConfig } from '../config/configuration.ts';
import type { Logger } from '../log/logger.ts';
import { SHUTDOWN, type Service, type StopReason } from '../lifecycle/service.ts';
import type { RpcMessage, TaskManagerMessage } from '../rpc/control-protocol.ts';
import { dispatchMessage, gatewayProxy } from '../rpc/gateway-proxy.ts';
import { JOB_MASTER_METHODS } from '../rpc/job-master-gateway.ts';
import { RESOURCE_MANAGER_METHODS, type ResourceManagerGateway } from '../rpc/resource-manager-gateway.ts';
import { TASK_MANAGER_METHODS, type SlotInit, type TaskManagerGateway } from '../rpc/task-manager-gateway.ts';
import { serializeError } from '../rpc/serialized-error.ts';
import { BundleCache } from './bundle-cache.ts';
import { DataPlane } from './data-plane.ts';
import { greetHandshake } from './handshake.ts';
import { ConnectionRefusedError } from './refusal.ts';
import { RpcConnection } from './rpc-connection.ts';
import { dialRpc } from './rpc-upgrade.ts';
import { InternalTls } from './internal-tls.ts';
import { LeaderEpochFence } from './leader-epoch-fence.ts';
import { SlotChannels } from './slot-channels.ts';
import { SlotThread } from './slot-thread.ts';
import type { LeaderInformation, LeaderRetrieval } from '../ha/leader-retrieval.ts';
import { workerResourceLimits } from '../config/worker-resource-limits.ts';

/** A JobManager to register with, and the leader epoch it was published with (none for a fixed address). */
interface JobManagerTarget {
  readonly host: string;
  readonly port: number;
  readonly epoch: number | undefined;
}

export interface TaskManagerProcessOptions {
  readonly config: WeirConfig;
  /** Where the JobManager is: an address given (--jobmanager), or the leader as high availability publishes it. */
  readonly jobManager: { readonly host: string; readonly port: number } | { readonly leaderRetrieval: LeaderRetrieval };
  /** The cluster secret (security.cluster.token or its file), or null on loopback without one. */
  readonly token: string | null;
  /** Where bundles are cached; not where the job's files are. */
  readonly workDir: string;
  readonly log: Logger;
}

/** A TaskManager whose first registration was refused for good (another one has its id, another version). */
export class RegistrationRefusedError extends Error {
  readonly jobManager: string;

  constructor(jobManager: string, cause: ConnectionRefusedError) {
    super(`the JobManager at ${jobManager} refused this TaskManager (${cause.code}): ${cause.detail}`, { cause });
    this.name = 'RegistrationRefusedError';
    this.jobManager = jobManager;
  }
}

const RECONNECT_MIN_MS = 200;
const RECONNECT_MAX_MS = 5_000;

/**
 * A TaskManager process (`weir taskmanager`): its data port, its registration with the JobManager
 * and the slots it offers, each a worker thread while a job holds it. Its states:
 *
 *   connecting --welcome + registered--> registered --connection closed, or no heartbeat from
 *   the JobManager within heartbeat.timeout--> lost: every slot's thread is ended (its subtasks
 *   cancelled, nothing of them runs on) --> connecting again, with a growing pause.
 *
 * A refusal of its very first registration (its id is taken, another weir version, a wrong token)
 * ends the process with the reason; later ones are retried, as the JobManager may not yet have
 * noticed that this TaskManager's previous connection is gone.
 *
 * With high availability it registers with the leader that leader retrieval names. Every message
 * of a JobManager carries its leader epoch, and the fence (leader-epoch-fence.ts) keeps the newest
 * epoch seen from retrieval, the `registered` reply or any message: one of an older epoch is
 * refused, and once a newer epoch is seen the slots started under older ones are cancelled and
 * the connection of an older one is closed. The fence is here, on the TaskManager, because a
 * paused old leader cannot stop anything itself.
 */
export class TaskManagerProcess implements Service {
  readonly id: string;
  readonly #o: TaskManagerProcessOptions;
  readonly #data: DataPlane;
  readonly #tls: InternalTls | undefined;
  readonly #channels: SlotChannels;
  readonly #bundles: BundleCache;
  readonly #slots = new Map<number, SlotThread>();
  readonly #byAllocation = new Map<string, SlotThread>();
  #rpc: RpcConnection | undefined;
  readonly #bundleRequests = new Map<string, Array<{ resolve: (code: Uint8Array) => void; reject: (e: Error) => void }>>();
  #registeredOnce = false;
  /** The latest leader retrieval named (HA only), and a wake-up for a connect loop waiting for one. */
  #leader: LeaderInformation | null = null;
  #leaderKnown: (() => void) | undefined;
  readonly #fence: LeaderEpochFence<RpcConnection, SlotThread>;
  /** The connection each slot was started over, which hears of the slot's end. */
  readonly #rpcOf = new WeakMap<SlotThread, RpcConnection>();
  #target: JobManagerTarget | undefined;
  #stopped = false;
  #jmSilence: NodeJS.Timeout | undefined;
  #done!: (e?: Error) => void;
  readonly done: Promise<void>;

  constructor(o: TaskManagerProcessOptions) {
    this.#o = o;
    const c = o.config;
    this.id = c['taskmanager.resource-id'] ?? `${c['taskmanager.host']}-${randomBytes(3).toString('hex')}`;
    this.#tls = InternalTls.fromConfig(c);
    this.#data = new DataPlane({ id: this.id, host: c['taskmanager.host'], port: c['taskmanager.data.port'], token: o.token, log: o.log, tls: this.#tls });
    this.#channels = new SlotChannels(this.id, this.#data);
    this.#bundles = new BundleCache(o.workDir, `the JobManager at ${this.jobManagerAddress}`, (hash) => this.#fetchBundle(hash));
    this.done = new Promise((resolve, reject) => (this.#done = (e) => (e ? reject(e) : resolve())));
    this.#fence = new LeaderEpochFence({
      cancel: (s, epoch, newest) => {
        const text = `slot ${s.slot} (job ${s.jobId}) was started under leader epoch ${epoch}; leader epoch ${newest} has been seen: cancelling its subtasks`;
        o.log.warn(text, { slot: s.slot, jobId: s.jobId, epoch, newestEpoch: newest });
        // Its JobManager hears of it if it still listens (one leading again, with a newer epoch, does).
        const rpc = this.#rpcOf.get(s);
        if (rpc && !rpc.closed) resourceManagerOf(rpc).slotLost({ allocation: s.allocation, error: serializeError(new Error(text)) });
        void this.#stopSlot(s, { code: 'replaced' });
      },
      leave: (rpc, epoch, newest) => {
        o.log.warn(`a newer leader (epoch ${newest}): leaving the JobManager of epoch ${epoch} at ${rpc.address}`, { epoch, newestEpoch: newest });
        rpc.close(new Error(`superseded by leader epoch ${newest}`));
      },
    });
  }

  get dataPort(): number {
    return this.#data.port;
  }

  get jobManagerAddress(): string {
    const jm = this.#o.jobManager;
    if ('host' in jm) return `${jm.host}:${jm.port}`;
    const t = this.#target;
    return t ? `${t.host}:${t.port} (leader epoch ${t.epoch})` : 'the leader (not known yet)';
  }

  /** Binds the data port and registers; `done` settles when the process is stopped (or refused for good). */
  async start(): Promise<void> {
    await this.#data.listen();
    const jm = this.#o.jobManager;
    if ('leaderRetrieval' in jm) jm.leaderRetrieval.start((l) => this.#leaderChanged(l));
    void this.#connectLoop();
  }

  #leaderChanged(leader: LeaderInformation | null): void {
    this.#leader = leader;
    if (!leader) return;
    this.#fence.observe(leader.epoch);
    this.#leaderKnown?.();
  }

  /** The JobManager to register with next: the given address, or the leader once one is known. */
  async #nextTarget(): Promise<JobManagerTarget | undefined> {
    const jm = this.#o.jobManager;
    if ('host' in jm) return { host: jm.host, port: jm.port, epoch: undefined };
    while (!this.#leader && !this.#stopped) await new Promise<void>((r) => (this.#leaderKnown = r));
    const leader = this.#leader;
    if (!leader) return undefined;
    const url = new URL(leader.address);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), epoch: leader.epoch };
  }

  /** Ends the process's work: its slots' threads (asked first), its connection, its data port. */
  async stop(reason: StopReason = SHUTDOWN): Promise<void> {
    this.#stopped = true;
    this.#leaderKnown?.();
    const jm = this.#o.jobManager;
    if ('leaderRetrieval' in jm) void jm.leaderRetrieval.stop({ code: 'shutdown' });
    clearTimeout(this.#jmSilence);
    this.#rpc?.close();
    await this.#stopSlots(reason);
    await this.#data.stop({ code: 'shutdown' });
    this.#done();
  }

  async #connectLoop(): Promise<void> {
    const { log } = this.#o;
    for (let pause = RECONNECT_MIN_MS; !this.#stopped; pause = Math.min(pause * 2, RECONNECT_MAX_MS)) {
      try {
        const target = await this.#nextTarget();
        if (!target) return;
        this.#target = target;
        await this.#register(target);
        pause = RECONNECT_MIN_MS;
        await new Promise<void>((resolve) => this.#rpc!.onClose(() => resolve()));
        if (this.#stopped) return;
        log.warn(`lost the JobManager at ${this.jobManagerAddress}: cancelling every subtask and registering again`);
        await this.#stopSlots({ code: 'failed', cause: new Error(`lost the JobManager at ${this.jobManagerAddress}`) });
        // Superseded by a newer leader: go to it at once.
        if (this.#fence.isStale(target.epoch)) continue;
      } catch (e) {
        if (e instanceof ConnectionRefusedError && !this.#registeredOnce) {
          this.#stopped = true;
          await this.#data.stop({ code: 'failed', cause: e });
          this.#done(new RegistrationRefusedError(this.jobManagerAddress, e));
          return;
        }
        log.warn(`cannot register with the JobManager at ${this.jobManagerAddress}: ${(e as Error).message}; trying again in ${pause} ms`);
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  async #register(target: JobManagerTarget): Promise<void> {
    const { host, port } = target;
    const conn = await dialRpc(host, port, 10_000, this.#tls);
    try {
      await greetHandshake(conn, { role: 'taskmanager', token: this.#o.token, id: this.id });
    } catch (e) {
      conn.destroy();
      throw e;
    }
    const rpc = new RpcConnection(conn);
    this.#fence.connected(rpc, target.epoch);
    rpc.onClose(() => this.#fence.disconnected(rpc));
    const c = this.#o.config;
    const registered = new Promise<void>((resolve, reject) => {
      rpc.onClose((e) => reject(new Error(`the JobManager closed the connection before it answered the registration${e ? `: ${e.message}` : ''}`)));
      rpc.onMessage((m) => {
        const accepted = this.#receive(rpc, m);
        if (m.type !== 'registered') return;
        // A refused one (of a deposed leader): the registration fails, the connection goes.
        if (accepted) resolve();
        else rpc.close(new Error('its registration reply was refused'));
      });
    });
    resourceManagerOf(rpc).register({
      registration: {
        id: this.id,
        host: c['taskmanager.host'],
        dataPort: this.#data.port,
        slots: c['taskmanager.numberOfTaskSlots'],
        pid: process.pid,
        hostname: hostname(),
        hardware: { cpuCores: availableParallelism(), physicalMemory: totalmem(), freeMemory: freemem(), heapLimit: getHeapStatistics().heap_size_limit },
      },
    });
    await registered;
    const epoch = this.#fence.epochOf(rpc);
    if (rpc.closed || this.#fence.isStale(epoch)) {
      rpc.close();
      throw new Error(`leader epoch ${epoch} was superseded by ${this.#fence.newest} while registering`);
    }
    this.#rpc = rpc;
    this.#registeredOnce = true;
    this.#expectHeartbeat(rpc);
    this.#o.log.info(`registered with the JobManager at ${this.jobManagerAddress} as ${this.id}: ${c['taskmanager.numberOfTaskSlots']} slot(s), data port ${c['taskmanager.host']}:${this.#data.port}`, { taskManager: this.id });
  }

  /** The JobManager's heartbeats are this side's heartbeat: none for heartbeat.timeout, and it is lost. */
  #expectHeartbeat(rpc: RpcConnection): void {
    clearTimeout(this.#jmSilence);
    const timeoutMs = this.#o.config['heartbeat.timeout'];
    this.#jmSilence = setTimeout(() => {
      this.#o.log.warn(`no heartbeat from the JobManager at ${this.jobManagerAddress} for ${timeoutMs / 1000} s (heartbeat.timeout)`);
      rpc.close(new Error('heartbeat timeout'));
    }, timeoutMs);
  }

  #fetchBundle(hash: string): Promise<Uint8Array> {
    const rpc = this.#rpc;
    if (!rpc || rpc.closed) return Promise.reject(new Error('not connected to the JobManager'));
    return new Promise((resolve, reject) => {
      const waiting = this.#bundleRequests.get(hash);
      if (waiting) return void waiting.push({ resolve, reject });
      this.#bundleRequests.set(hash, [{ resolve, reject }]);
      resourceManagerOf(rpc).fetchBundle({ hash });
      rpc.onClose(() => {
        for (const w of this.#bundleRequests.get(hash) ?? []) w.reject(new Error('the connection to the JobManager closed'));
        this.#bundleRequests.delete(hash);
      });
    });
  }

  /** Acts on a JobManager's message unless the fence refuses it; false when it was refused. */
  #receive(rpc: RpcConnection, m: RpcMessage): boolean {
    if (!isFromJobManager(m)) {
      this.#o.log.warn(`the JobManager sent an unexpected ${m.type} message; ignored`);
      return false;
    }
    const verdict = this.#fence.admit(rpc, m);
    if (verdict.kind === 'refused') {
      // A deposed leader's command (it may not know yet that it is one): refused, whatever it is.
      const e = verdict.error;
      this.#o.log.warn(e.message, { type: e.messageType, epoch: e.epoch, newestEpoch: e.newestEpoch, jobManager: e.jobManager });
      // The connection goes with its deposed JobManager; one leading again (with a newer epoch)
      // keeps it, this was only a message of one of its jobs of before.
      if (this.#fence.isStale(this.#fence.epochOf(rpc))) rpc.close(e);
      return false;
    }
    dispatchMessage(TASK_MANAGER_METHODS, this.#endpoint(rpc, verdict.epoch), m);
    return true;
  }

  /** The JobManager's calls over `rpc`, admitted under `epoch`, as this process acts on them. */
  #endpoint(rpc: RpcConnection, epoch: number | undefined): TaskManagerGateway {
    return {
      registered: () => {},
      bundle: (m) => {
        const waiting = this.#bundleRequests.get(m.hash) ?? [];
        this.#bundleRequests.delete(m.hash);
        for (const w of waiting) m.code ? w.resolve(m.code) : w.reject(new Error(m.error ?? 'no such bundle'));
      },
      heartbeatRequest: (m) => {
        this.#expectHeartbeat(rpc);
        resourceManagerOf(rpc).heartbeatReply({ seq: m.seq, freeMemory: freemem() });
      },
      startSlot: (m) => void this.#startSlot(rpc, m.allocation, m.slot, m.init, epoch),
      toSlot: (m) => this.#byAllocation.get(m.allocation)?.post(m.message),
      stopSlot: (m) => {
        const s = this.#byAllocation.get(m.allocation);
        if (s) void this.#stopSlot(s, SHUTDOWN);
      },
    };
  }

  async #startSlot(rpc: RpcConnection, allocation: string, slot: number, init: SlotInit, epoch: number | undefined): Promise<void> {
    const { log } = this.#o;
    // The slot's previous thread may still be ending.
    await this.#slots.get(slot)?.stop({ code: 'replaced' });
    if (rpc.closed) return;
    let bundlePath: string;
    try {
      bundlePath = await this.#bundles.get(init.bundle);
    } catch (e) {
      const jobMaster = gatewayProxy(JOB_MASTER_METHODS, (message) => resourceManagerOf(rpc).fromSlot({ allocation, message }));
      jobMaster.deployFailed({ tm: init.index, attempt: -1, error: serializeError(e) });
      return;
    }
    if (rpc.closed || this.#rpc !== rpc) return;
    // A newer leader may have been seen while the bundle came: the old one's slot does not start.
    if (this.#fence.isStale(epoch)) {
      log.warn(`slot ${slot} (job ${init.jobId}) not started: it was asked for under leader epoch ${epoch}, and leader epoch ${this.#fence.newest} has been seen`, { slot, jobId: init.jobId, epoch });
      return;
    }
    const thread = new SlotThread({ allocation, slot, init, bundlePath, channels: this.#channels, jobManager: resourceManagerOf(rpc), log, resourceLimits: workerResourceLimits(this.#o.config) });
    this.#slots.set(slot, thread);
    this.#byAllocation.set(allocation, thread);
    this.#rpcOf.set(thread, rpc);
    this.#fence.slotStarted(thread, epoch);
    log.info(`slot ${slot}: TaskManager ${init.index} of job ${init.jobId}${epoch === undefined ? '' : ` (leader epoch ${epoch})`}`, { slot, jobId: init.jobId, ...(epoch === undefined ? {} : { epoch }) });
    void thread.exited.then(() => {
      this.#fence.slotEnded(thread);
      if (this.#slots.get(slot) === thread) this.#slots.delete(slot);
      this.#byAllocation.delete(allocation);
    });
  }

  async #stopSlot(s: SlotThread, reason: StopReason): Promise<void> {
    this.#fence.slotEnded(s);
    this.#byAllocation.delete(s.allocation);
    await s.stop(reason);
    if (this.#slots.get(s.slot) === s) this.#slots.delete(s.slot);
  }

  async #stopSlots(reason: StopReason): Promise<void> {
    await Promise.all([...this.#slots.values()].map((s) => this.#stopSlot(s, reason)));
  }
}

function isFromJobManager(m: RpcMessage): m is TaskManagerMessage {
  return Object.hasOwn(TASK_MANAGER_METHODS, m.type);
}

/** The JobManager's ResourceManagerGateway, over this connection. */
function resourceManagerOf(rpc: RpcConnection): ResourceManagerGateway {
  return gatewayProxy(RESOURCE_MANAGER_METHODS, (m) => rpc.send(m));
}
