import { taskManagerStateRows } from '../rest/task-manager-state.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WeirConfig } from '../config/configuration.ts';
import type { Service, StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import { startRestServer, type RestServer } from '../rest/rest-server.ts';
import { BlobStore, isBundleHash } from './blob-store.ts';
import { Dispatcher, type JarRunRequest } from './dispatcher.ts';
import { acceptHandshake } from './handshake.ts';
import { JobStore } from './job-store.ts';
import { ResourceManager } from './resource-manager.ts';
import { RpcConnection } from './rpc-connection.ts';
import { acceptRpcUpgrades } from './rpc-upgrade.ts';
import { InternalTls } from './internal-tls.ts';
import { parseUpload } from './jar-upload.ts';
import { jobManagerConfig, taskManagerDetails, taskManagersView, type HaStatus } from './cluster-views.ts';
import { restId } from '../rest/task-manager-view-parts.ts';
import { createHighAvailabilityServices } from '../ha/create-high-availability-services.ts';
import type { HighAvailabilityServices } from '../ha/high-availability-services.ts';
import { JobManagerLeadership } from './job-manager-leadership.ts';
import { NotLeaderError } from './not-leader-error.ts';
import { leaderProxy } from './leader-proxy.ts';

export interface JobManagerOptions {
  readonly config: WeirConfig;
  /** The JobManager's own settings as given (config file and -D): the defaults of every job it runs. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly token: string | null;
  readonly workDir: string;
  readonly log: Logger;
  /** A port in use is an error (the port was asked for), not a reason to take the next. */
  readonly exactPort?: boolean;
}

/**
 * The JobManager process (`weir jobmanager`): on one address, the REST API and dashboard for every
 * job it runs and keeps, job submission (Flink's /jars), the bundles TaskManagers fetch, and the
 * TaskManagers' RPC by HTTP upgrade; the ResourceManager with their slots, and a JobMaster per job.
 */
export class JobManager implements Service {
  readonly resources: ResourceManager;
  readonly store: JobStore;
  readonly bundles: BlobStore;
  readonly #o: JobManagerOptions;
  readonly #dispatcher: Dispatcher;
  #rest: RestServer | undefined;
  #ha: HighAvailabilityServices | undefined;
  #leadership: JobManagerLeadership | undefined;
  #heldEpoch = 0;

  constructor(o: JobManagerOptions) {
    this.#o = o;
    const c = o.config;
    const self = this;
    this.bundles = new BlobStore(o.workDir);
    this.resources = new ResourceManager({ heartbeatIntervalMs: c['heartbeat.interval'], heartbeatTimeoutMs: c['heartbeat.timeout'], log: o.log, bundle: (hash) => (isBundleHash(hash) ? this.bundles.read(hash) : undefined), leaderEpoch: () => this.#leaderEpoch() });
    this.store = new JobStore(c['jobstore.max-capacity']);
    this.#dispatcher = new Dispatcher({ bundles: this.bundles, store: this.store, resources: this.resources, defaults: o.settings, slotRequestTimeoutMs: c['slot.request.timeout'],
      log: o.log,
      // With high-availability.type nats only the leader takes and runs jobs, and they survive it.
      ...(c['high-availability.type'] === 'nats'
        ? {
            ha: {
              // Connected in start(), before the first grant can come.
              get services() {
                return self.#ha!;
              },
              leadership: () => this.#leadership?.leadership,
              leaderAddress: () => this.#leadership?.leader?.address,
              retainedCheckpoints: c['execution.checkpointing.num-retained'],
            },
          }
        : {}),
    });
  }

  /** With high availability: standby, recovering, leading or closed. */
  get leadership(): JobManagerLeadership | undefined {
    return this.#leadership;
  }

  get url(): string {
    return this.#rest!.url;
  }

  get port(): number {
    return this.#rest!.port;
  }

  async start(): Promise<void> {
    const c = this.#o.config;
    // NATS unreachable is an error at start, naming the servers (from the HA services).
    if (c['high-availability.type'] === 'nats') this.#ha = await createHighAvailabilityServices(c, this.#o.log);
    this.#rest = await startRestServer({
      jobs: { list: () => this.store.list(), get: (id) => this.store.get(id), absent: () => this.#notLeader() },
      host: c['rest.bind-address'],
      port: c['rest.port'],
      exactPort: this.#o.exactPort ?? false,
      token: c['rest.token'] ?? this.#o.token,
      tokenRequiredForReads: c['rest.token-required-for-reads'],
      log: this.#o.log,
      cluster: () => ({ taskmanagers: this.resources.taskManagers().length, 'slots-total': this.resources.slotsTotal, 'slots-available': this.resources.slotsAvailable, ...this.#leadershipView() }),
      ...(c['high-availability.type'] === 'nats' ? { forward: leaderProxy({ leader: () => this.#standbyOf(), self: () => this.url, log: this.#o.log }) } : {}),
      extend: (app) => this.#routes(app),
    });
    if (this.#ha) {
      this.#leadership = new JobManagerLeadership({ services: this.#ha, dispatcher: () => this.#dispatcher, address: () => this.url, retainedCheckpoints: c['execution.checkpointing.num-retained'], recoveryRetryMs: Math.max(200, Math.round(c['high-availability.nats.lease-duration'] / 5)), log: this.#o.log });
      await this.#leadership.start();
    }
  }

  /**
   * The epoch on this JobManager's own messages to TaskManagers: of the leadership it holds, or
   * else the last one it held, never lower. So a deposed leader that has not noticed yet (paused)
   * still says its old epoch, which TaskManagers that have seen the new one refuse. 0 without HA.
   */
  #leaderEpoch(): number {
    const s = this.#leadership?.state;
    if (s && (s.kind === 'leading' || s.kind === 'recovering') && s.leadership.epoch > this.#heldEpoch) this.#heldEpoch = s.leadership.epoch;
    return this.#heldEpoch;
  }

  /** The leader's REST URL while this JobManager is a standby (or still recovering) and another one leads. */
  #standbyOf(): string | undefined {
    const l = this.#leadership;
    if (!l || l.state.kind === 'leading' || l.state.kind === 'recovering') return undefined;
    return l.leader?.address;
  }

  /** With HA, while this JobManager does not lead: why a job it does not have may still exist (503, not 404). */
  #notLeader(): NotLeaderError | undefined {
    const l = this.#leadership;
    if (!l || l.state.kind === 'leading' || l.state.kind === 'closed') return undefined;
    const other = l.leader?.address !== undefined && l.leader.address !== this.url ? l.leader.address : undefined;
    return new NotLeaderError(other, l.state.kind === 'recovering');
  }

  /** With HA: who leads, with which epoch, and what this JobManager is. */
  #haStatus(): HaStatus | undefined {
    const l = this.#leadership;
    if (!l) return undefined;
    const state = l.state;
    return {
      role: state.kind,
      leaderAddress: l.leader?.address ?? null,
      leaderEpoch: state.kind === 'leading' || state.kind === 'recovering' ? state.leadership.epoch : (l.leader?.epoch ?? null),
    };
  }

  /** /overview with HA: the same facts as /jobmanager/config's high-availability.status keys. */
  #leadershipView(): Record<string, unknown> {
    const ha = this.#haStatus();
    if (!ha) return {};
    return { 'ha-role': ha.role, 'ha-leader': ha.leaderAddress, 'ha-leader-epoch': ha.leaderEpoch, 'ha-cluster-id': this.#ha!.clusterId };
  }

  submit(hash: string, request: JarRunRequest) {
    return this.#dispatcher.submit(hash, request);
  }

  async stop(reason: StopReason): Promise<void> {
    // Leadership goes first (its jobs are suspended, their checkpoints kept) so a standby takes over at once.
    if (this.#leadership) await this.#dispatcher.suspendAll('the JobManager is closing');
    await this.#leadership?.stop(reason);
    await Promise.all(this.store.list().map((m) => m.cancel().catch(() => {})));
    await this.#ha?.stop(reason);
    this.resources.close();
    await this.#rest?.stop(reason, 0);
  }

  async #routes(app: FastifyInstance): Promise<void> {
    acceptRpcUpgrades(app.server, (conn) => void this.#acceptTaskManager(conn), { tls: InternalTls.fromConfig(this.#o.config), log: this.#o.log });
    const routes = async (r: FastifyInstance) => {
      // Bundles come as Flink's web UI sends jars (multipart, field `jarfile`) or as the bytes themselves.
      for (const type of ['multipart/form-data', 'application/octet-stream', 'application/javascript', 'text/javascript']) {
        r.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: 512 * 1024 * 1024 }, (_req, body, done) => done(null, body));
      }
      r.post('/jars/upload', { bodyLimit: 512 * 1024 * 1024 }, async (req) => {
        const upload = parseUpload(req.headers['content-type'] ?? '', req.body as Buffer, (req.headers['x-weir-bundle-name'] as string | undefined) ?? 'job.mjs');
        const stored = this.bundles.put(upload.code, upload.name);
        this.#o.log.info(`job bundle ${upload.name} uploaded: ${stored.hash}`, { bundle: stored.hash });
        return { filename: `${stored.hash}_${stored.name}`, status: 'success' };
      });
      r.get('/jars', async () => ({
        address: this.#rest?.url ?? '',
        files: this.bundles.list().map((b) => ({ id: `${b.hash}_${b.name}`, name: b.name, uploaded: Math.round(b.uploaded), entry: [] })),
      }));
      r.post('/jars/:jarid/run', async (req, reply) => {
        const hash = (req.params as { jarid: string }).jarid.split('_')[0]!;
        if (!isBundleHash(hash)) return reply.code(404).send({ errors: [`no uploaded job ${(req.params as { jarid: string }).jarid}`] });
        try {
          const master = await this.#dispatcher.submit(hash, (req.body ?? {}) as JarRunRequest);
          return { jobid: master.jobId };
        } catch (e) {
          // The error handler answers 500 for 5xx; a standby's refusal is a 503 that names the leader.
          if (e instanceof NotLeaderError) return reply.code(503).send({ errors: [e.message], ...(e.leaderAddress ? { leader: e.leaderAddress } : {}) });
          throw e;
        }
      });
      r.get('/blobs/:hash', async (req: FastifyRequest, reply) => {
        const hash = (req.params as { hash: string }).hash;
        const code = isBundleHash(hash) ? this.bundles.read(hash) : undefined;
        if (!code) return reply.code(404).send({ errors: [`no bundle ${hash}`] });
        return reply.type('text/javascript').send(code);
      });
      r.get('/taskmanagers', async () => taskManagersView(this.resources, taskManagerStateRows(this.store.list())));
      r.get('/taskmanagers/:taskmanagerid', async (req, reply) => {
        const id = (req.params as { taskmanagerid: string }).taskmanagerid;
        // By Flink's 32-hex id, or by the resource id.
        const tm = this.resources.get(id) ?? this.resources.taskManagers().find((t) => restId(t.id) === id);
        if (!tm) return reply.code(404).send({ errors: [`no TaskManager ${(req.params as { taskmanagerid: string }).taskmanagerid}`] });
        return taskManagerDetails(tm, taskManagerStateRows(this.store.list()));
      });
      r.get('/jobmanager/config', async () => jobManagerConfig(this.#o.config, this.#haStatus()));
    };
    await app.register(routes);
    await app.register(routes, { prefix: '/v1' });
  }

  async #acceptTaskManager(conn: import('./framed-socket.ts').FramedSocket): Promise<void> {
    const hello = await acceptHandshake(conn, {
      role: 'taskmanager',
      token: this.#o.token,
      id: 'jobmanager',
      log: this.#o.log,
      admit: (h) => (this.resources.isRegistered(h.id) ? { code: 'duplicate-id', reason: `TaskManager ${h.id} is registered from ${this.resources.get(h.id)!.address} and alive` } : undefined),
    });
    if (!hello) return;
    const rpc = new RpcConnection(conn);
    let registered = false;
    rpc.onMessage((m) => {
      if (registered) return;
      if (m.type !== 'register' || m.registration.id !== hello.id) {
        this.#o.log.warn(`TaskManager ${hello.id} from ${conn.address} sent ${m.type} before registering; closed`);
        rpc.close();
        return;
      }
      registered = true;
      // A TaskManager bound to every address announces the one it reached the JobManager from.
      const r = m.registration;
      const host = r.host === '0.0.0.0' || r.host === '::' ? conn.address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '') : r.host;
      this.resources.register({ ...r, host }, rpc);
    });
  }
}
