import { ConfigError } from './config-error.ts';
import type { ConfigSource } from './config-source.ts';
import type { ConsistencyMode } from './consistency-mode.ts';
import { parseDuration } from './duration.ts';
import { parseMemorySize } from './memory-size.ts';
import { UPPER_BOUND_MAX_PARALLELISM } from './parallelism-bounds.ts';

/**
 * All of weir's settings in one typed object, keyed like Flink's configuration where a Flink key
 * means the same thing. Durations are milliseconds. `null` means "not set" where Flink has no default.
 */
export interface WeirConfig {
  'parallelism.default': number;
  'pipeline.max-parallelism': number;
  'pipeline.name': string | null;
  'pipeline.auto-watermark-interval': number;
  'execution.checkpointing.interval': number | null;
  'execution.checkpointing.interval-during-backlog': number | null;
  'execution.checkpointing.mode': ConsistencyMode;
  'execution.checkpointing.timeout': number;
  'execution.checkpointing.min-pause': number;
  'execution.checkpointing.max-concurrent-checkpoints': number;
  'execution.checkpointing.tolerable-failed-checkpoints': number;
  'execution.checkpointing.num-retained': number;
  'execution.checkpointing.fallback-past-committed': 'fail' | 'allow';
  'execution.checkpointing.externalized-checkpoint-retention': 'DELETE_ON_CANCELLATION' | 'RETAIN_ON_CANCELLATION';
  'execution.checkpointing.dir': string | null;
  'execution.checkpointing.savepoint-dir': string | null;
  'execution.checkpointing.unaligned.enabled': boolean;
  'execution.checkpointing.aligned-checkpoint-timeout': number;
  'restart-strategy.type': RestartStrategyType | null;
  'restart-strategy.fixed-delay.attempts': number;
  'restart-strategy.fixed-delay.delay': number;
  'restart-strategy.failure-rate.max-failures-per-interval': number;
  'restart-strategy.failure-rate.failure-rate-interval': number;
  'restart-strategy.failure-rate.delay': number;
  'restart-strategy.exponential-delay.initial-backoff': number;
  'restart-strategy.exponential-delay.max-backoff': number;
  'restart-strategy.exponential-delay.backoff-multiplier': number;
  'restart-strategy.exponential-delay.reset-backoff-threshold': number;
  'restart-strategy.exponential-delay.jitter-factor': number;
  'restart-strategy.exponential-delay.attempts-before-reset-backoff': number;
  'taskmanager.network.buffer-records': number;
  'taskmanager.network.credits-per-channel': number;
  'taskmanager.memory.segment-size': number;
  'taskmanager.network.memory.buffers-per-channel': number;
  'execution.buffer-timeout.interval': number;
  'heartbeat.interval': number;
  'heartbeat.timeout': number;
  'task.cancellation.timeout': number;
  'rest.port': number;
  'rest.bind-address': string;
  'rest.token': string | null;
  'rest.token-required-for-reads': boolean | null;
  'high-availability.type': 'none' | 'nats';
  'high-availability.cluster-id': string;
  'high-availability.nats.servers': string | null;
  'high-availability.nats.lease-duration': number;
  'high-availability.nats.connect-timeout': number;
  'high-availability.nats.startup-timeout': number;
  'high-availability.nats.replicas': number;
  'high-availability.nats.bucket': string | null;
  'high-availability.nats.user': string | null;
  'high-availability.nats.password': string | null;
  'high-availability.nats.token': string | null;
  'high-availability.nats.creds-file': string | null;
  'state.checkpoints.nats.servers': string | null;
  'state.checkpoints.nats.timeout': number;
  'jobstore.max-capacity': number;
  'taskmanager.numberOfTaskSlots': number;
  'taskmanager.host': string;
  'taskmanager.data.port': number;
  'taskmanager.resource-id': string | null;
  'slot.request.timeout': number;
  'security.cluster.token': string | null;
  'security.cluster.token-file': string | null;
  'security.ssl.internal.enabled': boolean;
  'security.ssl.internal.key': string | null;
  'security.ssl.internal.cert': string | null;
  'security.ssl.internal.trust': string | null;
}

export type ConfigKey = keyof WeirConfig;
export type { ConsistencyMode } from './consistency-mode.ts';
export type RestartStrategyType = 'none' | 'fixed-delay' | 'failure-rate' | 'exponential-delay';

type Kind = 'int' | 'duration' | 'memory' | 'number' | 'boolean' | 'string' | { readonly oneOf: readonly string[] };

interface OptionSpec {
  readonly kind: Kind;
  readonly nullable?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly doc: string;
}

/** Node's timers wait at most this long: a longer delay fires at once (with a TimeoutOverflowWarning). */
const TIMER_MAX_MS = 2 ** 31 - 1;

/** The documented options; the README's configuration table is this table. */
export const CONFIG_OPTIONS: { readonly [K in ConfigKey]: OptionSpec } = {
  'parallelism.default': { kind: 'int', min: 1, max: UPPER_BOUND_MAX_PARALLELISM, doc: 'Parallelism of operators that set none.' },
  'pipeline.max-parallelism': {
    kind: 'int',
    min: 1,
    max: UPPER_BOUND_MAX_PARALLELISM,
    doc: 'Number of key groups: the upper bound for rescaling keyed state. Fixed once state exists.',
  },
  'pipeline.name': {
    kind: 'string',
    nullable: true,
    doc: "The job's name in the REST API, the dashboard and `weir list` (env.setJobName, `weir run --name`). Unset: the first source's name.",
  },
  'pipeline.auto-watermark-interval': {
    kind: 'duration',
    max: TIMER_MAX_MS,
    doc: 'How often sources (and assignTimestampsAndWatermarks) ask their watermark generators for a watermark; 0 turns periodic watermarks off (punctuated ones still flow).',
  },
  'execution.checkpointing.interval': {
    kind: 'duration',
    nullable: true,
    min: 10,
    max: TIMER_MAX_MS,
    doc: 'Time between checkpoint triggers. Unset: checkpointing is off.',
  },
  'execution.checkpointing.interval-during-backlog': {
    kind: 'duration',
    nullable: true,
    max: TIMER_MAX_MS,
    doc: 'Interval while a source reports a backlog (e.g. a CDC table snapshot); 0 means no checkpoints during backlog.',
  },
  'execution.checkpointing.mode': {
    kind: { oneOf: ['exactly-once', 'at-least-once', 'at-most-once'] },
    doc: 'Consistency level: exactly-once aligns barriers, at-least-once does not, at-most-once takes no checkpoints.',
  },
  'execution.checkpointing.timeout': { kind: 'duration', min: 1, max: TIMER_MAX_MS, doc: 'A checkpoint not complete after this long expires.' },
  'execution.checkpointing.min-pause': {
    kind: 'duration',
    max: TIMER_MAX_MS,
    doc: 'Least time between the end of one checkpoint and the trigger of the next.',
  },
  'execution.checkpointing.max-concurrent-checkpoints': { kind: 'int', min: 1, doc: 'Checkpoints in flight at once.' },
  'execution.checkpointing.tolerable-failed-checkpoints': {
    kind: 'int',
    min: 0,
    doc: 'Consecutive failed (expired or declined) checkpoints tolerated before the job fails over.',
  },
  'execution.checkpointing.num-retained': { kind: 'int', min: 1, doc: 'Completed checkpoints kept on storage.' },
  'execution.checkpointing.fallback-past-committed': {
    kind: { oneOf: ['fail', 'allow'] },
    doc:
      'A restart whose latest checkpoint cannot be restored (a damaged file) falls back to an older retained one; when a two-phase-commit sink already committed ' +
      'the newer output, that output would be committed twice: fail (the job fails, naming the file) or allow (falls back, logged as an error). ' +
      'Sinks that declare idempotentCommits never stop a fallback. weir run --allow-duplicating-fallback sets allow.',
  },
  'execution.checkpointing.externalized-checkpoint-retention': {
    kind: { oneOf: ['DELETE_ON_CANCELLATION', 'RETAIN_ON_CANCELLATION'] },
    doc: 'Whether retained checkpoints are deleted when the job is cancelled (a failed job always keeps them; a finished one deletes them).',
  },
  'execution.checkpointing.dir': {
    kind: 'string',
    nullable: true,
    doc: 'Checkpoint storage directory. Unset: checkpoints are written under a temporary directory and deleted at the end.',
  },
  'execution.checkpointing.savepoint-dir': { kind: 'string', nullable: true, doc: 'Default savepoint directory.' },
  'execution.checkpointing.unaligned.enabled': {
    kind: 'boolean',
    doc: 'Unaligned checkpoints: barriers overtake in-flight data, which is stored with the checkpoint (exactly-once, max-concurrent-checkpoints 1).',
  },
  'execution.checkpointing.aligned-checkpoint-timeout': {
    kind: 'duration',
    max: TIMER_MAX_MS,
    doc: 'With unaligned checkpoints on: start aligned and switch to unaligned after this long; 0 means always unaligned.',
  },
  'restart-strategy.type': {
    kind: { oneOf: ['none', 'fixed-delay', 'failure-rate', 'exponential-delay'] },
    nullable: true,
    doc: 'none, fixed-delay, failure-rate or exponential-delay. Unset: exponential-delay when checkpointing is on, none when it is off (Flink 1.19+).',
  },
  'restart-strategy.fixed-delay.attempts': { kind: 'int', min: 0, doc: 'Restarts before the job fails.' },
  'restart-strategy.fixed-delay.delay': { kind: 'duration', max: TIMER_MAX_MS, doc: 'Wait before each restart.' },
  'restart-strategy.failure-rate.max-failures-per-interval': {
    kind: 'int',
    min: 1,
    doc: 'Failures allowed within one interval before the job fails.',
  },
  'restart-strategy.failure-rate.failure-rate-interval': { kind: 'duration', min: 1, doc: 'The measuring interval.' },
  'restart-strategy.failure-rate.delay': { kind: 'duration', max: TIMER_MAX_MS, doc: 'Wait before each restart.' },
  'restart-strategy.exponential-delay.initial-backoff': { kind: 'duration', max: TIMER_MAX_MS, doc: 'First restart delay.' },
  'restart-strategy.exponential-delay.max-backoff': { kind: 'duration', max: TIMER_MAX_MS, doc: 'Largest restart delay.' },
  'restart-strategy.exponential-delay.backoff-multiplier': { kind: 'number', min: 1, doc: 'Delay growth per restart.' },
  'restart-strategy.exponential-delay.reset-backoff-threshold': {
    kind: 'duration',
    doc: 'Running this long without failure resets the delay to the initial backoff.',
  },
  'restart-strategy.exponential-delay.jitter-factor': { kind: 'number', min: 0, max: 1, doc: 'Random spread of each delay (0..1).' },
  'restart-strategy.exponential-delay.attempts-before-reset-backoff': {
    kind: 'int',
    min: 1,
    doc: 'Restarts allowed before the backoff resets.',
  },
  'taskmanager.network.buffer-records': {
    kind: 'int',
    min: 1,
    doc: 'Records per buffer of a channel within one TaskManager (records handed over as objects, in batches of this many).',
  },
  'taskmanager.network.credits-per-channel': {
    kind: 'int',
    min: 1,
    doc: 'Buffers a receiver grants each input channel within one TaskManager: what may be in flight before the sender blocks.',
  },
  'taskmanager.memory.segment-size': {
    kind: 'memory',
    min: 1024,
    max: 16 * 1024 * 1024,
    doc: 'Size of a network buffer between TaskManagers (a segment of a channel\'s shared-memory ring): records are serialized into it and it leaves when full, at a barrier, at end of input or after the buffer timeout.',
  },
  'taskmanager.network.memory.buffers-per-channel': {
    kind: 'int',
    min: 1,
    max: 1024,
    doc: 'Segments of each channel between TaskManagers (a power of two): its credits, what may be in flight before the sender blocks. A blocked sender is woken when half are free again (a cross-thread wake-up costs microseconds). Flink has 2 per channel plus 8 floating per gate; weir has no floating buffers.',
  },
  'execution.buffer-timeout.interval': {
    kind: 'duration',
    min: 0,
    max: TIMER_MAX_MS,
    doc: 'A partly filled network buffer leaves after this long (and whenever its task runs out of input); 0 sends every record at once.',
  },
  'heartbeat.interval': {
    kind: 'duration',
    min: 1,
    max: TIMER_MAX_MS,
    doc: 'Time between heartbeats the JobMaster sends each TaskManager thread or slot, and a JobManager process each TaskManager process.',
  },
  'heartbeat.timeout': {
    kind: 'duration',
    min: 1,
    max: TIMER_MAX_MS,
    doc: 'A TaskManager that has not answered a heartbeat for this long is lost (its thread is blocked, its process died or hangs, its host is cut off): its subtasks fail and it is replaced. A TaskManager process that has heard no heartbeat from its JobManager for this long cancels its subtasks and registers again.',
  },
  'task.cancellation.timeout': {
    kind: 'duration',
    max: TIMER_MAX_MS,
    doc: 'Subtasks that have not stopped this long after a cancel take their TaskManager with them (it is ended and replaced); 0 waits forever.',
  },
  'rest.port': { kind: 'int', min: 0, max: 65535, doc: 'REST API port; the next free one is taken if it is in use; 0 takes any free port.' },
  'rest.bind-address': { kind: 'string', doc: 'REST API address. Beyond loopback, `rest.token` is required.' },
  'rest.token': {
    kind: 'string',
    nullable: true,
    doc: 'Bearer token required for mutating REST calls. Unset: only requests addressed to 127.0.0.1, localhost or [::1] are answered, and changes from other web sites (a foreign Origin) are refused.',
  },
  'rest.token-required-for-reads': {
    kind: 'boolean',
    nullable: true,
    doc: "Whether GET calls (other than the dashboard's files) need rest.token too. Unset: when rest.bind-address is beyond loopback.",
  },
  'high-availability.type': {
    kind: { oneOf: ['none', 'nats'] },
    doc: 'none: leadership, checkpoint pointers and job records live in this process only. nats: on NATS JetStream (key-value buckets and an object store, RAFT-replicated), so a standby JobManager can take over.',
  },
  'high-availability.cluster-id': {
    kind: 'string',
    doc: "The cluster's name: its JobManagers contend for one leadership, and its records live in a bucket of its own. Letters, digits, '-' and '_'.",
  },
  'high-availability.nats.servers': {
    kind: 'string',
    nullable: true,
    doc: 'NATS servers, comma-separated (`nats://host:4222,nats://host2:4222`). Required with high-availability.type nats.',
  },
  'high-availability.nats.lease-duration': {
    kind: 'duration',
    min: 500,
    max: TIMER_MAX_MS,
    doc: "How long a leader's lease lasts without a renewal. The leader renews every tenth of it and gives leadership up when it could not renew for four fifths of it; a contender takes over once the record has not changed for a whole lease by its own clock. Losing one NATS node costs its streams a leader election of several seconds (10 s on a loaded host), which a lease much shorter than the default cannot outlast.",
  },
  'high-availability.nats.connect-timeout': {
    kind: 'duration',
    min: 1,
    max: TIMER_MAX_MS,
    doc: 'How long one attempt to connect to NATS may take at the start.',
  },
  'high-availability.nats.startup-timeout': {
    kind: 'duration',
    min: 0,
    max: TIMER_MAX_MS,
    doc: "How long a JobManager or TaskManager waits at its start for NATS to be ready (a server to answer, JetStream and the HA buckets' streams to have leaders), retrying with a backoff and logging each attempt, before it exits with an error naming the servers and what it waited for. 0: one attempt.",
  },
  'high-availability.nats.replicas': {
    kind: 'int',
    min: 1,
    max: 5,
    doc: 'Replicas of the buckets weir creates on NATS (key-value and object stores, also checkpoint storage). 1 for a single server.',
  },
  'high-availability.nats.bucket': {
    kind: 'string',
    nullable: true,
    doc: "The key-value bucket of the cluster's HA records (its job bundles go to `<bucket>-blobs`). Unset: `weir-ha-<cluster-id>`. A bucket written by another cluster id or layout version is refused.",
  },
  'high-availability.nats.user': { kind: 'string', nullable: true, doc: 'NATS user (with high-availability.nats.password).' },
  'high-availability.nats.password': { kind: 'string', nullable: true, doc: 'NATS password. Never shown by the REST API.' },
  'high-availability.nats.token': { kind: 'string', nullable: true, doc: 'NATS authentication token (instead of user and password). Never shown by the REST API.' },
  'high-availability.nats.creds-file': { kind: 'string', nullable: true, doc: 'A NATS credentials file (JWT and NKey seed).' },
  'state.checkpoints.nats.servers': {
    kind: 'string',
    nullable: true,
    doc: 'NATS servers of `nats-obj://<bucket>/<prefix>` checkpoint storage. Unset: high-availability.nats.servers. Credentials are the high-availability.nats ones.',
  },
  'state.checkpoints.nats.timeout': {
    kind: 'duration',
    min: 1,
    max: TIMER_MAX_MS,
    doc: 'How long an operation of `nats-obj://` checkpoint storage may go without progress (no chunk read or acknowledged, no answer) before it fails: a store without quorum fails checkpoints and restores instead of hanging them.',
  },
  'jobstore.max-capacity': {
    kind: 'int',
    min: 0,
    doc: 'Finished, failed and cancelled jobs a JobManager keeps visible (status, exceptions, checkpoint history); the oldest goes first.',
  },
  'taskmanager.numberOfTaskSlots': {
    kind: 'int',
    min: 1,
    max: 1024,
    doc: 'Slots of a TaskManager process (`weir taskmanager --slots`): each is a worker thread and holds one subtask of every vertex, so a job of parallelism p needs p slots.',
  },
  'taskmanager.host': {
    kind: 'string',
    doc: 'The address a TaskManager process binds its data port to and announces to the JobManager (`weir taskmanager --host`). Beyond loopback, `security.cluster.token` is required.',
  },
  'taskmanager.data.port': {
    kind: 'int',
    min: 0,
    max: 65535,
    doc: 'The port other TaskManagers send records to (one TCP connection per TaskManager pair); 0 takes any free port.',
  },
  'taskmanager.resource-id': {
    kind: 'string',
    nullable: true,
    doc: 'The id of a TaskManager process in the cluster; a second TaskManager with the id of a registered one is refused. Unset: host:data-port and a random suffix.',
  },
  'slot.request.timeout': {
    kind: 'duration',
    min: 1,
    max: TIMER_MAX_MS,
    doc: 'How long a job waits for enough free slots (at its start and at each restart) before it fails, naming how many it needed and how many were offered.',
  },
  'security.cluster.token': {
    kind: 'string',
    nullable: true,
    doc: 'The cluster secret TaskManagers and clients present to the JobManager and to each other (handshake of every internal connection; REST bearer token unless rest.token is set). Required beyond loopback.',
  },
  'security.cluster.token-file': {
    kind: 'string',
    nullable: true,
    doc: 'A file whose first line is security.cluster.token (so the secret stays off the command line).',
  },
  'security.ssl.internal.enabled': {
    kind: 'boolean',
    doc: "TLS with mutual authentication on the cluster's internal connections (TaskManager RPC, after its HTTP upgrade, and data between TaskManagers): every process presents security.ssl.internal.cert and accepts only peers whose certificate security.ssl.internal.trust signed.",
  },
  'security.ssl.internal.key': { kind: 'string', nullable: true, doc: "This process's private key for internal TLS (a PEM file)." },
  'security.ssl.internal.cert': { kind: 'string', nullable: true, doc: "This process's certificate for internal TLS (a PEM file)." },
  'security.ssl.internal.trust': { kind: 'string', nullable: true, doc: "The certificate authority (PEM) whose certificates internal TLS accepts: the cluster's own." },
};

/** Keys whose values are secrets: no view of the configuration shows them. */
export const SECRET_CONFIG_KEYS: ReadonlySet<ConfigKey> = new Set<ConfigKey>(['rest.token', 'high-availability.nats.password', 'high-availability.nats.token']);

export const DEFAULT_CONFIG: Readonly<WeirConfig> = Object.freeze({
  'parallelism.default': 1,
  'pipeline.max-parallelism': 128,
  'pipeline.name': null,
  'pipeline.auto-watermark-interval': 200,
  'execution.checkpointing.interval': null,
  'execution.checkpointing.interval-during-backlog': null,
  'execution.checkpointing.mode': 'exactly-once',
  'execution.checkpointing.timeout': 10 * 60_000,
  'execution.checkpointing.min-pause': 0,
  'execution.checkpointing.max-concurrent-checkpoints': 1,
  'execution.checkpointing.tolerable-failed-checkpoints': 0,
  'execution.checkpointing.num-retained': 1,
  'execution.checkpointing.fallback-past-committed': 'fail',
  'execution.checkpointing.externalized-checkpoint-retention': 'DELETE_ON_CANCELLATION',
  'execution.checkpointing.dir': null,
  'execution.checkpointing.savepoint-dir': null,
  'execution.checkpointing.unaligned.enabled': false,
  'execution.checkpointing.aligned-checkpoint-timeout': 0,
  'restart-strategy.type': null,
  'restart-strategy.fixed-delay.attempts': 1,
  'restart-strategy.fixed-delay.delay': 1000,
  'restart-strategy.failure-rate.max-failures-per-interval': 1,
  'restart-strategy.failure-rate.failure-rate-interval': 60_000,
  'restart-strategy.failure-rate.delay': 1000,
  'restart-strategy.exponential-delay.initial-backoff': 1000,
  'restart-strategy.exponential-delay.max-backoff': 60_000,
  'restart-strategy.exponential-delay.backoff-multiplier': 1.5,
  'restart-strategy.exponential-delay.reset-backoff-threshold': 3_600_000,
  'restart-strategy.exponential-delay.jitter-factor': 0.1,
  'restart-strategy.exponential-delay.attempts-before-reset-backoff': Number.MAX_SAFE_INTEGER,
  'taskmanager.network.buffer-records': 512,
  'taskmanager.network.credits-per-channel': 16,
  'taskmanager.memory.segment-size': 32 * 1024,
  'taskmanager.network.memory.buffers-per-channel': 8,
  'execution.buffer-timeout.interval': 100,
  'heartbeat.interval': 10_000,
  'heartbeat.timeout': 50_000,
  'task.cancellation.timeout': 180_000,
  'rest.port': 8081,
  'rest.bind-address': '127.0.0.1',
  'rest.token': null,
  'rest.token-required-for-reads': null,
  'high-availability.type': 'none',
  'high-availability.cluster-id': 'default',
  'high-availability.nats.servers': null,
  'high-availability.nats.lease-duration': 15_000,
  'high-availability.nats.connect-timeout': 5_000,
  'high-availability.nats.startup-timeout': 180_000,
  'high-availability.nats.replicas': 3,
  'high-availability.nats.bucket': null,
  'high-availability.nats.user': null,
  'high-availability.nats.password': null,
  'high-availability.nats.token': null,
  'high-availability.nats.creds-file': null,
  'state.checkpoints.nats.servers': null,
  'state.checkpoints.nats.timeout': 10_000,
  'jobstore.max-capacity': Number.MAX_SAFE_INTEGER,
  'taskmanager.numberOfTaskSlots': 1,
  'taskmanager.host': '127.0.0.1',
  'taskmanager.data.port': 0,
  'taskmanager.resource-id': null,
  'slot.request.timeout': 5 * 60_000,
  'security.cluster.token': null,
  'security.cluster.token-file': null,
  'security.ssl.internal.enabled': false,
  'security.ssl.internal.key': null,
  'security.ssl.internal.cert': null,
  'security.ssl.internal.trust': null,
});

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_OPTIONS, key);
}

/** A value of the key's kind to show in an error ("write it like this"). */
export function exampleValue(key: string): string {
  if (!isConfigKey(key)) return 'VALUE';
  const kind = CONFIG_OPTIONS[key].kind;
  if (typeof kind === 'object') return kind.oneOf[0]!;
  const examples: Record<Exclude<Kind, object>, string> = { int: '4', duration: "'10 s'", memory: '32kb', number: '0.5', boolean: 'true', string: 'VALUE' };
  return examples[kind];
}

/** Checks and converts one value (from a -D flag, a config file or the API); throws ConfigError naming the key. */
export function parseConfigValue<K extends ConfigKey>(key: K, raw: unknown): WeirConfig[K] {
  const spec = CONFIG_OPTIONS[key];
  if (raw === null || raw === undefined || raw === '') {
    if (spec.nullable) return null as WeirConfig[K];
    throw new ConfigError(key, raw, 'a value is required');
  }
  const kind = spec.kind;
  let value: unknown;
  if (typeof kind === 'object') {
    const text = String(raw);
    const match = kind.oneOf.find((v) => v.toLowerCase() === text.toLowerCase().replace(/_/g, '-') || v === text);
    if (!match) throw new ConfigError(key, raw, `expected one of ${kind.oneOf.join(', ')}, got '${text}'`);
    value = match;
  } else if (kind === 'boolean') {
    if (raw === true || raw === 'true') value = true;
    else if (raw === false || raw === 'false') value = false;
    else throw new ConfigError(key, raw, `expected true or false, got '${String(raw)}'`);
  } else if (kind === 'string') {
    value = String(raw);
  } else {
    const n = kind === 'duration' ? parseDuration(raw as string | number) : kind === 'memory' ? parseMemorySize(raw as string | number) : Number(raw);
    if (n === undefined || !Number.isFinite(n)) {
      const expected = kind === 'duration' ? "a duration such as '200', '10 s' or '1 min'" : kind === 'memory' ? "a memory size such as '32kb', '1 mb' or '4096'" : 'a number';
      throw new ConfigError(key, raw, `expected ${expected}, got '${String(raw)}'`);
    }
    if (kind === 'int' && !Number.isInteger(n)) throw new ConfigError(key, raw, `expected a whole number, got '${String(raw)}'`);
    const unit = kind === 'duration' ? ' ms' : kind === 'memory' ? ' bytes' : '';
    if (spec.min !== undefined && n < spec.min) throw new ConfigError(key, raw, `must be at least ${spec.min}${unit}, got ${n}${unit}`);
    if (spec.max !== undefined && n > spec.max) throw new ConfigError(key, raw, `must be at most ${spec.max}${unit}, got ${n}${unit}`);
    value = n;
  }
  return value as WeirConfig[K];
}

/** One layer of settings, and where it came from (named in errors about its keys). */
export interface ConfigLayer {
  readonly source?: ConfigSource;
  readonly settings?: Readonly<Record<string, unknown>> | undefined;
}

/** Merges layers of settings over the defaults, later layers winning; every key and value is checked. */
export function buildConfig(...layers: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>): WeirConfig {
  return buildLayeredConfig(layers.map((settings) => ({ settings })));
}

/** buildConfig for layers that know where they came from: an error names the layer of the bad key. */
export function buildLayeredConfig(layers: readonly ConfigLayer[]): WeirConfig {
  const config: WeirConfig = { ...DEFAULT_CONFIG };
  const origins = new Map<ConfigKey, ConfigSource | undefined>();
  for (const { source, settings } of layers) {
    for (const [key, raw] of Object.entries(settings ?? {})) {
      if (!isConfigKey(key)) throw new ConfigError(key, raw, `unknown key${suggest(key)}`, source ? { source } : {});
      try {
        (config as unknown as Record<string, unknown>)[key] = parseConfigValue(key, raw);
      } catch (e) {
        throw e instanceof ConfigError ? e.from(source) : e;
      }
      origins.set(key, source);
    }
  }
  try {
    validateConfig(config);
  } catch (e) {
    // A rule between two keys: the layer that set the key the error names.
    throw e instanceof ConfigError && isConfigKey(e.key) ? e.from(origins.get(e.key)) : e;
  }
  return config;
}

function suggest(key: string): string {
  const tail = key.split('.').pop() ?? key;
  const near = Object.keys(CONFIG_OPTIONS).filter((k) => k.endsWith(tail) || k.includes(tail));
  return near.length > 0 ? ` (did you mean ${near.slice(0, 3).join(', ')}?)` : '';
}

function validateConfig(c: WeirConfig): void {
  const backlog = c['execution.checkpointing.interval-during-backlog'];
  const interval = c['execution.checkpointing.interval'];
  if (backlog !== null && backlog !== 0 && interval !== null && backlog < interval) {
    throw new ConfigError(
      'execution.checkpointing.interval-during-backlog',
      backlog,
      `must be 0 or at least execution.checkpointing.interval (${interval} ms)`,
    );
  }
  if (c['heartbeat.timeout'] <= c['heartbeat.interval']) {
    throw new ConfigError('heartbeat.timeout', c['heartbeat.timeout'], `must be longer than heartbeat.interval (${c['heartbeat.interval']} ms)`);
  }
  const segments = c['taskmanager.network.memory.buffers-per-channel'];
  if ((segments & (segments - 1)) !== 0) {
    throw new ConfigError('taskmanager.network.memory.buffers-per-channel', segments, `must be a power of two (1, 2, 4, 8, ...), got ${segments}`);
  }
  if (c['taskmanager.memory.segment-size'] % 8 !== 0) {
    throw new ConfigError('taskmanager.memory.segment-size', c['taskmanager.memory.segment-size'], 'must be a multiple of 8 bytes');
  }
  if (c['rest.token-required-for-reads'] === true && c['rest.token'] === null) {
    throw new ConfigError('rest.token-required-for-reads', true, 'needs rest.token, the token reads must then present');
  }
  validateHighAvailability(c);
  if (c['security.ssl.internal.enabled']) {
    for (const k of ['security.ssl.internal.key', 'security.ssl.internal.cert', 'security.ssl.internal.trust'] as const) {
      if (c[k] === null) throw new ConfigError(k, null, 'security.ssl.internal.enabled is true: set the key, the certificate and the trusted authority (PEM files)');
    }
  }
  if (c['execution.checkpointing.unaligned.enabled']) {
    if (c['execution.checkpointing.mode'] !== 'exactly-once') {
      throw new ConfigError('execution.checkpointing.unaligned.enabled', true, 'unaligned checkpoints need mode exactly-once');
    }
    if (c['execution.checkpointing.max-concurrent-checkpoints'] !== 1) {
      throw new ConfigError('execution.checkpointing.unaligned.enabled', true, 'unaligned checkpoints need max-concurrent-checkpoints 1');
    }
  }
}

function validateHighAvailability(c: WeirConfig): void {
  if (!/^[A-Za-z0-9_-]+$/.test(c['high-availability.cluster-id'])) {
    throw new ConfigError('high-availability.cluster-id', c['high-availability.cluster-id'], "may hold only letters, digits, '-' and '_' (it names NATS buckets)");
  }
  const bucket = c['high-availability.nats.bucket'];
  if (bucket !== null && !/^[A-Za-z0-9_-]+$/.test(bucket)) {
    throw new ConfigError('high-availability.nats.bucket', bucket, "may hold only letters, digits, '-' and '_' (a NATS bucket name)");
  }
  if (c['high-availability.type'] === 'nats' && c['high-availability.nats.servers'] === null) {
    throw new ConfigError('high-availability.type', 'nats', 'needs high-availability.nats.servers (the NATS servers, comma-separated)');
  }
  if (c['high-availability.nats.password'] !== null && c['high-availability.nats.user'] === null) {
    throw new ConfigError('high-availability.nats.password', '(secret)', 'needs high-availability.nats.user');
  }
  if (c['high-availability.nats.token'] !== null && c['high-availability.nats.user'] !== null) {
    throw new ConfigError('high-availability.nats.token', '(secret)', 'is an alternative to high-availability.nats.user and password: set one of the two');
  }
  const dir = c['execution.checkpointing.dir'];
  if (dir !== null && dir.startsWith('nats-obj:') && c['state.checkpoints.nats.servers'] === null && c['high-availability.nats.servers'] === null) {
    throw new ConfigError('execution.checkpointing.dir', dir, 'checkpoint storage on NATS needs state.checkpoints.nats.servers or high-availability.nats.servers');
  }
}
