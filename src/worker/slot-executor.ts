import type { WeirConfig } from '../config/configuration.ts';
import { jobNameOf } from '../graph/job-name.ts';
import { forwardingLogger, type Logger, type LogLevel } from '../log/logger.ts';
import type { JobEdge, JobGraph } from '../graph/job-graph.ts';
import type { FromTaskExecutor, ToTaskExecutor } from '../rpc/control-protocol.ts';
import { dispatchMessage, gatewayProxy } from '../rpc/gateway-proxy.ts';
import { JOB_MASTER_METHODS, type JobMasterGateway } from '../rpc/job-master-gateway.ts';
import { TASK_EXECUTOR_METHODS, type OfAttempt, type OfSubtask, type RemoteChannelEndpoint, type SlotDeployment, type TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';
import { serializeError } from '../rpc/serialized-error.ts';
import type { StopReason } from '../lifecycle/service.ts';
import { channelStateKey } from '../checkpoint/channel-state-key.ts';
import { channelKey, taskKey, type ChannelKey, type TaskKey } from '../ids/task-key.ts';
import type { CheckpointStorageWorkerView } from '../checkpoint/checkpoint-storage.ts';
import { InputChannel } from '../network/input-channel.ts';
import { connectLocal } from '../network/local-channel.ts';
import type { OutputChannel } from '../network/output-channel.ts';
import { Doorbell } from '../network/doorbell.ts';
import { DoorbellWaiter } from '../network/doorbell-waiter.ts';
import { connectRingInput } from '../network/ring-input.ts';
import { RingOutputChannel } from '../network/ring-output-channel.ts';
import { SegmentRing } from '../network/segment-ring.ts';
import { edgeCheck, edgeCodec, edgeContext } from './edge-codec.ts';
import { InputGate } from './input-gate.ts';
import { createChannelSelector } from './partitioner.ts';
import { consumersOf, producersOf } from '../graph/edge-connections.ts';
import { RecordWriter } from './record-writer.ts';
import { inputDebloatingOf } from './input-debloating.ts';
import { Task } from './task.ts';
import { SlotScheduler } from './slot-scheduler.ts';
import { systemClock } from '../clock/clock.ts';
import { decodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';
import { JobGraphMismatchError } from './job-graph-mismatch-error.ts';
import { createStateBackend } from '../state/create-state-backend.ts';

export interface SlotExecutorOptions {
  readonly index: number;
  readonly taskManagers: number;
  readonly jobGraph: JobGraph;
  readonly config: WeirConfig;
  readonly send: (message: FromTaskExecutor) => void;
  readonly storage: CheckpointStorageWorkerView;
  /** The JobMaster's log level; lines below it are not sent. Unset: nothing is logged. */
  readonly logLevel?: LogLevel | undefined;
}

const METRICS_INTERVAL_MS = 500;

/**
 * One slot of a job: hosts its subtasks in one thread (a worker thread, a slot thread of a
 * TaskManager process, or the JobMaster's own at parallelism 1) and runs them cooperatively; the
 * JobMaster calls it through its TaskExecutorGateway, as messages (receive), and it answers
 * through the JobMasterGateway. The JobMaster numbers these and names each "TaskManager <index>"
 * in what users read (logs, errors, the `tm` field of control messages). Each round steps every
 * task that has work, and the thread goes back to the event loop often enough for channel
 * messages, timers and I/O to come in.
 */
export class SlotExecutor implements TaskExecutorGateway {
  readonly #o: SlotExecutorOptions;
  readonly #jobMaster: JobMasterGateway;
  #tasks: Task[] = [];
  #attempt = -1;
  readonly #scheduler = new SlotScheduler();
  #closers: Array<() => void> = [];
  #metricsTimer: NodeJS.Timeout | undefined;
  #channelOwners = new Map<ChannelKey, TaskKey>(); // the subtask at this end of each channel to another slot
  #stopped: Promise<void> | undefined;
  readonly #log: Logger;
  readonly #stateBackend: ReturnType<typeof createStateBackend>;

  constructor(options: SlotExecutorOptions) {
    this.#o = options;
    this.#stateBackend = createStateBackend(options.config);
    this.#jobMaster = gatewayProxy(JOB_MASTER_METHODS, options.send);
    this.#log = forwardingLogger((level, message, fields) => this.#jobMaster.log({ level, message, fields }), options.logLevel, { taskManager: options.index });
  }

  /**
   * A message from the JobMaster: a call of this gateway. Calls for another attempt than the one
   * deployed are dropped here, once, except a deploy (it starts one) and a cancel (answered for
   * any attempt: the JobMaster waits for every answer).
   */
  receive(message: ToTaskExecutor): void {
    if ('attempt' in message && message.type !== 'deploy' && message.type !== 'cancel' && message.attempt !== this.#attempt) return;
    dispatchMessage(TASK_EXECUTOR_METHODS, this, message);
  }

  deploy(deployment: SlotDeployment): void {
    void this.#deploy(deployment);
  }

  heartbeat({ seq }: { readonly seq: number }): void {
    this.#jobMaster.heartbeat({ tm: this.#o.index, seq });
  }

  cancel({ attempt }: OfAttempt): void {
    const done = attempt >= this.#attempt ? this.#cancelAll() : Promise.resolve();
    void done.then(() => this.#jobMaster.canceled({ tm: this.#o.index, attempt }));
  }

  triggerCheckpoint(m: Parameters<TaskExecutorGateway['triggerCheckpoint']>[0]): void {
    for (const t of this.#tasks) if (t.vertex.isSource) t.triggerCheckpoint(m.checkpointId, m.timestamp, m.options);
  }

  notifyCheckpointComplete({ checkpointId }: { readonly checkpointId: number }): void {
    for (const t of this.#tasks) t.notifyCheckpointComplete(checkpointId);
  }

  notifyCheckpointAborted({ checkpointId, reason }: { readonly checkpointId: number; readonly reason: string }): void {
    for (const t of this.#tasks) t.notifyCheckpointAborted(checkpointId, reason);
  }

  finish(): void {
    for (const t of this.#tasks) t.finish();
  }

  stopSources({ drain }: { readonly drain: boolean }): void {
    for (const t of this.#tasks) if (t.vertex.isSource) t.source.stopForSavepoint(drain);
  }

  resumeSources(): void {
    for (const t of this.#tasks) if (t.vertex.isSource) t.source.resume();
  }

  addSplits(m: Parameters<TaskExecutorGateway['addSplits']>[0]): void {
    const task = this.#task(m.vertexId, m.subtask);
    if (task) task.addSplits(m.splits, m.noMoreSplits);
    else if (m.splits.length > 0) this.#jobMaster.splitsUndelivered({ attempt: m.attempt, vertexId: m.vertexId, subtask: m.subtask, splits: m.splits });
  }

  sendSourceEvent(m: OfSubtask & { readonly event: unknown }): void {
    this.#task(m.vertexId, m.subtask)?.source.handleSourceEvent(m.event);
  }

  updateWatermarkAlignment(m: OfSubtask & { readonly maxAllowedWatermark: WireWatermark }): void {
    this.#task(m.vertexId, m.subtask)?.source.updateMaxAllowedWatermark(decodeWatermark(m.maxAllowedWatermark));
  }

  channelFailed(m: Parameters<TaskExecutorGateway['channelFailed']>[0]): void {
    const owner = this.#channelOwners.get(channelKey(m.edgeId, m.producer, m.consumer));
    this.#tasks.find((t) => taskKey(t.vertex.id, t.subtask) === owner)?.fail(new Error(m.reason));
  }

  describe({ requestId }: { readonly requestId: number }): void {
    this.#jobMaster.described({ requestId, tasks: this.#tasks.map((t) => t.metrics()) });
  }

  /** Its subtasks are cancelled; the thread that hosts it ends it (see slot-executor-thread.ts). */
  shutdown(): void {
    void this.#cancelAll();
  }

  #task(vertexId: string, subtask: number): Task | undefined {
    return this.#tasks.find((t) => t.vertex.id === vertexId && t.subtask === subtask);
  }

  async #deploy(message: SlotDeployment): Promise<void> {
    await this.#cancelAll();
    this.#attempt = message.attempt;
    const attempt = message.attempt;
    try {
      if (message.fingerprint !== this.#o.jobGraph.fingerprint) throw new JobGraphMismatchError(this.#o.index, this.#o.jobGraph.fingerprint, message.fingerprint);
      await this.#stateBackend.prepare?.();
      const tasks = this.#build(message);
      this.#tasks = tasks;
      // Reported while they initialize too: a long restore is legitimate, but it must be visible.
      this.#jobMaster.reportMetrics({ attempt, tasks: tasks.map((t) => t.metrics()) });
      this.#startMetrics();
      await Promise.all(
        tasks.map(async (t) => {
          try {
            await t.initialize();
          } catch (e) {
            t.fail(e);
          }
        }),
      );
      if (this.#attempt !== attempt) return;
      for (const t of tasks) this.#scheduler.markReady(t);
      // Report once before the first step: a task whose first step blocks its thread is still described.
      this.#jobMaster.reportMetrics({ attempt, tasks: tasks.map((t) => t.metrics()) });
      this.#scheduler.start();
    } catch (e) {
      this.#jobMaster.deployFailed({ tm: this.#o.index, attempt, error: serializeError(e) });
    }
  }

  #build({ jobId, attempt, tasks: deployments, remoteChannels: remote, placement }: SlotDeployment): Task[] {
    const { jobGraph, config, index } = this.#o;
    const local = { credits: config['taskmanager.network.credits-per-channel'], batchSize: config['taskmanager.network.buffer-records'], clock: systemClock };
    const bufferTimeoutMs = config['execution.buffer-timeout.interval'];
    const ringOf = (role: RemoteChannelEndpoint['role'], k: ChannelKey): { ring: SegmentRing; rung: boolean } => {
      const endpoint = remote.find((r) => r.role === role && channelKey(r.edgeId, r.producer, r.consumer) === k);
      if (!endpoint?.ring) throw new Error(`no ring for ${role} channel ${k}`);
      const doorbell = endpoint.doorbell ? Doorbell.attach(endpoint.doorbell) : undefined;
      return { ring: SegmentRing.attach(endpoint.ring, endpoint.shape, doorbell), rung: doorbell !== undefined };
    };
    // The thread waits on its doorbell for all its input rings at once (their writers ring it).
    const bell = remote.find((r) => r.role === 'input' && r.doorbell)?.doorbell;
    const waiter = bell ? new DoorbellWaiter(Doorbell.attach(bell)) : undefined;
    const here = (vertexId: string, subtask: number) => placement[vertexId]?.[subtask] === index;
    const pointwise = (e: JobEdge) => e.partitioner.kind === 'forward';
    const debloating = inputDebloatingOf(config);
    const recordBlocks = config['taskmanager.network.record-blocks'];

    // Input channels first, so local output channels can be connected to them.
    const inputs = new Map<ChannelKey, InputChannel>();
    const gates = new Map<TaskKey, InputGate>();
    for (const d of deployments) {
      const vertex = jobGraph.vertices.find((v) => v.id === d.vertexId)!;
      const channels: InputChannel[] = [];
      for (const edge of vertex.inputs) {
        for (const producer of producersOf(pointwise(edge), edge.source.parallelism, d.subtask)) {
          const ch = new InputChannel(channels.length, `input ${channels.length} (from '${edge.source.name}' subtask ${producer + 1})`, channelStateKey(edge.id, producer));
          channels.push(ch);
          const k = channelKey(edge.id, producer, d.subtask);
          if (here(edge.source.id, producer)) {
            inputs.set(k, ch);
          } else {
            const { ring, rung } = ringOf('input', k);
            const consumer = taskKey(d.vertexId, d.subtask);
            this.#channelOwners.set(k, consumer);
            this.#closers.push(connectRingInput(ring, ch, edgeCodec(edge, recordBlocks), (e) => this.#failTask(consumer, e, ch.description), rung ? waiter : undefined));
            debloating?.add(consumer, ring, ch);
          }
        }
      }
      if (channels.length > 0) gates.set(taskKey(d.vertexId, d.subtask), new InputGate(channels));
    }

    const storage = this.#o.storage;
    const tasks: Task[] = [];
    for (const d of deployments) {
      const vertex = jobGraph.vertices.find((v) => v.id === d.vertexId)!;
      const writers = new Map<number, RecordWriter>();
      for (const edge of vertex.outputs) {
        const outs: OutputChannel[] = consumersOf(pointwise(edge), edge.target.parallelism, d.subtask).map((consumer) => {
          const k = channelKey(edge.id, d.subtask, consumer);
          if (here(edge.target.id, consumer)) {
            const input = inputs.get(k);
            if (!input) throw new Error(`no local input channel for ${k}`);
            const out = connectLocal(input, { ...local, check: edgeCheck(edge) });
            // After connecting: the debloating sets the channel's first budget through it.
            debloating?.addLocal(taskKey(edge.target.id, consumer), input, local.credits, local.batchSize);
            return out;
          }
          this.#channelOwners.set(k, taskKey(d.vertexId, d.subtask));
          const out = new RingOutputChannel(ringOf('output', k).ring, edgeCodec(edge, recordBlocks), systemClock, edgeContext(edge));
          this.#closers.push(() => out.close());
          return out;
        });
        const select = createChannelSelector(edge.partitioner, outs.length, d.subtask, edge.target.maxParallelism);
        writers.set(edge.id, new RecordWriter(outs, select, bufferTimeoutMs === 0));
      }
      const task: Task = new Task({
        jobId,
        jobName: jobNameOf(jobGraph, config['pipeline.name']),
        attempt,
        vertex,
        subtask: d.subtask,
        gate: gates.get(taskKey(d.vertexId, d.subtask)),
        writers,
        splits: d.splits,
        restore: d.restore,
        barrierMode: config['execution.checkpointing.mode'] === 'exactly-once' ? 'aligned' : 'at-least-once',
        report: (m) => this.#o.send(m),
        wake: () => this.#scheduler.markReady(task),
        storage,
        failAfterRecords: d.failAfterRecords,
        bufferTimeoutMs,
        autoWatermarkInterval: config['pipeline.auto-watermark-interval'],
        checkpointing: { intervalMs: config['execution.checkpointing.interval'], timeoutMs: config['execution.checkpointing.timeout'] },
        stateBackend: this.#stateBackend,
        log: this.#log.child({ vertex: vertex.name, subtask: d.subtask, attempt }),
      });
      tasks.push(task);
    }
    if (debloating) this.#closers.push(debloating.start());
    return tasks;
  }

  /** A channel's transport failed outside a task's step (a segment that cannot be decoded): the receiving task fails. */
  #failTask(key: TaskKey, error: unknown, channel: string): void {
    const task = this.#tasks.find((t) => taskKey(t.vertex.id, t.subtask) === key);
    task?.fail(new Error(`reading ${channel} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
  }

  #startMetrics(): void {
    if (this.#metricsTimer) return;
    this.#metricsTimer = setInterval(() => {
      if (this.#tasks.length > 0) this.#jobMaster.reportMetrics({ attempt: this.#attempt, tasks: this.#tasks.map((t) => t.metrics()) });
    }, METRICS_INTERVAL_MS);
    this.#metricsTimer.unref();
  }

  async #cancelAll(): Promise<void> {
    const tasks = this.#tasks;
    this.#tasks = [];
    this.#scheduler.clear();
    await Promise.all(tasks.map((t) => t.cancel()));
    for (const close of this.#closers) close();
    this.#closers = [];
    this.#channelOwners.clear();
  }

  /**
   * Stops everything in this slot: its subtasks, its metrics and its checkpoint storage (the
   * Service contract's stop; whatever the reason, subtasks are cancelled, which is as fast as it gets).
   */
  stop(_reason: StopReason): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    await this.#cancelAll();
    if (this.#metricsTimer) clearInterval(this.#metricsTimer);
    await this.#o.storage.close?.().catch(() => {});
  }
}
