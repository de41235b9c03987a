import type { WeirConfig } from '../config/configuration.ts';
import { forwardingLogger, type Logger, type LogLevel } from '../log/logger.ts';
import type { JobEdge, JobGraph } from '../graph/job-graph.ts';
import type { FromTaskManager, RemoteChannelEndpoint, TaskDeployment, ToTaskManager } from '../network/control-messages.ts';
import type { CheckpointStorageWorkerView } from '../checkpoint/checkpoint-storage.ts';
import { serializeError } from '../network/control-messages.ts';
import { InputChannel } from '../network/input-channel.ts';
import { connectLocal } from '../network/local-channel.ts';
import type { OutputChannel } from '../network/output-channel.ts';
import { connectRingInput } from '../network/ring-input.ts';
import { RingOutputChannel } from '../network/ring-output-channel.ts';
import { SegmentRing } from '../network/segment-ring.ts';
import { edgeCheck, edgeCodec, edgeContext } from './edge-codec.ts';
import { InputGate } from './input-gate.ts';
import { createChannelSelector } from './partitioner.ts';
import { consumersOf, producersOf } from '../graph/edge-connections.ts';
import { RecordWriter } from './record-writer.ts';
import { Task } from './task.ts';
import { systemClock } from '../clock/clock.ts';
import { decodeWatermark } from '../network/wire-watermark.ts';
import { JobGraphMismatchError } from './job-graph-mismatch-error.ts';

export interface SlotExecutorOptions {
  readonly index: number;
  readonly taskManagers: number;
  readonly jobGraph: JobGraph;
  readonly config: WeirConfig;
  readonly send: (message: FromTaskManager) => void;
  readonly storage: CheckpointStorageWorkerView;
  /** The JobMaster's log level; lines below it are not sent. Unset: nothing is logged. */
  readonly logLevel?: LogLevel | undefined;
}

const SLICE_MS = 8;
const METRICS_INTERVAL_MS = 500;

/**
 * One slot of a job: hosts its subtasks in one thread (a worker thread, a slot thread of a
 * TaskManager process, or the JobMaster's own at parallelism 1) and runs them cooperatively. The
 * JobMaster numbers these and names each "TaskManager <index>" in what users read (logs, errors,
 * the `tm` field of control messages). Each round steps every task that has work, and the thread
 * goes back to the event loop often enough for channel messages, timers and I/O to come in.
 */
export class SlotExecutor {
  readonly #o: SlotExecutorOptions;
  #tasks: Task[] = [];
  #attempt = -1;
  #wakeup: (() => void) | undefined;
  #ready = new Set<Task>();
  #closers: Array<() => void> = [];
  #loop: Promise<void> | undefined;
  #metricsTimer: NodeJS.Timeout | undefined;
  /** The subtask at this end of each channel to another TaskManager, by `<edge>:<producer>:<consumer>`. */
  #channelOwners = new Map<string, string>();

  readonly #log: Logger;

  constructor(options: SlotExecutorOptions) {
    this.#o = options;
    this.#log = forwardingLogger((level, message, fields) => options.send({ type: 'log', level, message, fields }), options.logLevel, { taskManager: options.index });
  }

  handle(message: ToTaskManager): void {
    if (message.type === 'heartbeat') {
      this.#o.send({ type: 'heartbeat', tm: this.#o.index, seq: message.seq });
      return;
    }
    // A cancel is answered even for an attempt this TaskManager never saw deployed: the JobMaster waits for every answer.
    if (message.type === 'cancel') {
      const done = message.attempt >= this.#attempt ? this.#cancelAll() : Promise.resolve();
      void done.then(() => this.#o.send({ type: 'canceled', tm: this.#o.index, attempt: message.attempt }));
      return;
    }
    if ('attempt' in message && message.type !== 'deploy' && message.attempt !== this.#attempt) return;
    switch (message.type) {
      case 'deploy':
        void this.#deploy(message);
        return;
      case 'trigger-checkpoint':
        for (const t of this.#tasks) if (t.vertex.isSource) t.triggerCheckpoint(message.checkpointId, message.timestamp, message.options);
        return;
      case 'checkpoint-complete':
        for (const t of this.#tasks) t.notifyCheckpointComplete(message.checkpointId);
        return;
      case 'checkpoint-aborted':
        for (const t of this.#tasks) t.notifyCheckpointAborted(message.checkpointId, message.reason);
        return;
      case 'finish':
        for (const t of this.#tasks) t.finish();
        return;
      case 'stop-sources':
        for (const t of this.#tasks) if (t.vertex.isSource) t.source.stopForSavepoint(message.drain);
        return;
      case 'resume-sources':
        for (const t of this.#tasks) if (t.vertex.isSource) t.source.resume();
        return;
      case 'source-splits': {
        const task = this.#task(message.vertexId, message.subtask);
        if (task) task.addSplits(message.splits, message.noMoreSplits);
        else if (message.splits.length > 0) this.#o.send({ type: 'splits-undelivered', attempt: message.attempt, vertexId: message.vertexId, subtask: message.subtask, splits: message.splits });
        return;
      }
      case 'source-event':
        this.#task(message.vertexId, message.subtask)?.source.handleSourceEvent(message.event);
        return;
      case 'watermark-alignment':
        this.#task(message.vertexId, message.subtask)?.source.updateMaxAllowedWatermark(decodeWatermark(message.maxAllowedWatermark));
        return;
      case 'channel-failed': {
        const k = `${message.edgeId}:${message.producer}:${message.consumer}`;
        const owner = this.#channelOwners.get(k);
        this.#tasks.find((t) => `${t.vertex.id}:${t.subtask}` === owner)?.fail(new Error(message.reason));
        return;
      }
      case 'describe':
        this.#o.send({ type: 'described', requestId: message.requestId, tasks: this.#tasks.map((t) => t.metrics()) });
        return;
      case 'shutdown':
        void this.#cancelAll();
        return;
    }
  }

  #task(vertexId: string, subtask: number): Task | undefined {
    return this.#tasks.find((t) => t.vertex.id === vertexId && t.subtask === subtask);
  }

  async #deploy(message: Extract<ToTaskManager, { type: 'deploy' }>): Promise<void> {
    await this.#cancelAll();
    this.#attempt = message.attempt;
    const attempt = message.attempt;
    try {
      if (message.fingerprint !== this.#o.jobGraph.fingerprint) throw new JobGraphMismatchError(this.#o.index, this.#o.jobGraph.fingerprint, message.fingerprint);
      const tasks = this.#build(message);
      this.#tasks = tasks;
      // Reported while they initialize too: a long restore is legitimate, but it must be visible.
      this.#o.send({ type: 'metrics', attempt, tasks: tasks.map((t) => t.metrics()) });
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
      for (const t of tasks) this.#ready.add(t);
      // Report once before the first step: a task whose first step blocks its thread is still described.
      this.#o.send({ type: 'metrics', attempt, tasks: tasks.map((t) => t.metrics()) });
      this.#loop ??= this.#run();
      this.#wake();
    } catch (e) {
      this.#o.send({ type: 'deploy-failed', tm: this.#o.index, attempt, error: serializeError(e) });
    }
  }

  #build({ jobId, attempt, tasks: deployments, remoteChannels: remote, placement }: Extract<ToTaskManager, { type: 'deploy' }>): Task[] {
    const { jobGraph, config, index } = this.#o;
    const local = { credits: config['taskmanager.network.credits-per-channel'], batchSize: config['taskmanager.network.buffer-records'], clock: systemClock };
    const bufferTimeoutMs = config['execution.buffer-timeout.interval'];
    const key = (edgeId: number, producer: number, consumer: number) => `${edgeId}:${producer}:${consumer}`;
    const remoteByKey = new Map(remote.map((r) => [`${key(r.edgeId, r.producer, r.consumer)}:${r.role}`, r]));
    const here = (vertexId: string, subtask: number) => placement[vertexId]?.[subtask] === index;
    const pointwise = (e: JobEdge) => e.partitioner.kind === 'forward';

    // Input channels first, so local output channels can be connected to them.
    const inputs = new Map<string, InputChannel>();
    const gates = new Map<string, InputGate>();
    for (const d of deployments) {
      const vertex = jobGraph.vertices.find((v) => v.id === d.vertexId)!;
      const channels: InputChannel[] = [];
      for (const edge of vertex.inputs) {
        for (const producer of producersOf(pointwise(edge), edge.source.parallelism, d.subtask)) {
          const ch = new InputChannel(channels.length, `input ${channels.length} (from '${edge.source.name}' subtask ${producer + 1})`, `${edge.id}:${producer}`);
          channels.push(ch);
          const k = key(edge.id, producer, d.subtask);
          if (here(edge.source.id, producer)) {
            inputs.set(k, ch);
          } else {
            const endpoint = remoteByKey.get(`${k}:input`);
            if (!endpoint?.ring) throw new Error(`no ring for input channel ${k}`);
            const ring = SegmentRing.attach(endpoint.ring, endpoint.shape);
            const consumer = `${d.vertexId}:${d.subtask}`;
            this.#channelOwners.set(k, consumer);
            this.#closers.push(connectRingInput(ring, ch, edgeCodec(edge), (e) => this.#failTask(consumer, e, ch.description)));
          }
        }
      }
      if (channels.length > 0) gates.set(`${d.vertexId}:${d.subtask}`, new InputGate(channels));
    }

    const storage = this.#o.storage;
    const tasks: Task[] = [];
    for (const d of deployments) {
      const vertex = jobGraph.vertices.find((v) => v.id === d.vertexId)!;
      const writers = new Map<number, RecordWriter>();
      for (const edge of vertex.outputs) {
        const outs: OutputChannel[] = consumersOf(pointwise(edge), edge.target.parallelism, d.subtask).map((consumer) => {
          const k = key(edge.id, d.subtask, consumer);
          if (here(edge.target.id, consumer)) {
            const input = inputs.get(k);
            if (!input) throw new Error(`no local input channel for ${k}`);
            return connectLocal(input, { ...local, check: edgeCheck(edge) });
          }
          const endpoint = remoteByKey.get(`${k}:output`);
          if (!endpoint?.ring) throw new Error(`no ring for output channel ${k}`);
          this.#channelOwners.set(k, `${d.vertexId}:${d.subtask}`);
          const out = new RingOutputChannel(SegmentRing.attach(endpoint.ring, endpoint.shape), edgeCodec(edge), systemClock, edgeContext(edge));
          this.#closers.push(() => out.close());
          return out;
        });
        const select = createChannelSelector(edge.partitioner, outs.length, d.subtask, edge.target.maxParallelism);
        writers.set(edge.id, new RecordWriter(outs, select, bufferTimeoutMs === 0));
      }
      const task: Task = new Task({
        jobId,
        attempt,
        vertex,
        subtask: d.subtask,
        gate: gates.get(`${d.vertexId}:${d.subtask}`),
        writers,
        splits: d.splits,
        restore: d.restore,
        barrierMode: config['execution.checkpointing.mode'] === 'exactly-once' ? 'aligned' : 'at-least-once',
        report: (m) => this.#o.send(m),
        wake: () => this.#markReady(task),
        storage,
        failAfterRecords: d.failAfterRecords,
        bufferTimeoutMs,
        autoWatermarkInterval: config['pipeline.auto-watermark-interval'],
        log: this.#log.child({ vertex: vertex.name, subtask: d.subtask, attempt }),
      });
      tasks.push(task);
    }
    return tasks;
  }

  /** A channel's transport failed outside a task's step (a segment that cannot be decoded): the receiving task fails. */
  #failTask(taskKey: string, error: unknown, channel: string): void {
    const task = this.#tasks.find((t) => `${t.vertex.id}:${t.subtask}` === taskKey);
    task?.fail(new Error(`reading ${channel} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
  }

  #markReady(task: Task): void {
    this.#ready.add(task);
    this.#wake();
  }

  #wake(): void {
    const w = this.#wakeup;
    if (w) {
      this.#wakeup = undefined;
      w();
    }
  }

  /** The scheduler: run ready tasks in rounds; yield to the event loop every few milliseconds. */
  async #run(): Promise<void> {
    for (;;) {
      this.#runSlice();
      if (this.#ready.size > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else {
        await new Promise<void>((resolve) => {
          this.#wakeup = resolve;
        });
      }
    }
  }

  /**
   * One slice of rounds. A function of its own so that the suspended #run keeps no reference to
   * the last round's tasks: after a failover those (and all their state) would otherwise stay
   * reachable while the next attempt restores its state, until the loop ran again.
   */
  #runSlice(): void {
    const sliceEnd = performance.now() + SLICE_MS;
    while (this.#ready.size > 0 && performance.now() < sliceEnd) {
      const round = [...this.#ready];
      this.#ready.clear();
      for (const task of round) {
        if (task.step() === 'busy') this.#ready.add(task);
      }
    }
  }

  #startMetrics(): void {
    if (this.#metricsTimer) return;
    this.#metricsTimer = setInterval(() => {
      if (this.#tasks.length > 0) this.#o.send({ type: 'metrics', attempt: this.#attempt, tasks: this.#tasks.map((t) => t.metrics()) });
    }, METRICS_INTERVAL_MS);
    this.#metricsTimer.unref();
  }

  async #cancelAll(): Promise<void> {
    const tasks = this.#tasks;
    this.#tasks = [];
    this.#ready.clear();
    await Promise.all(tasks.map((t) => t.cancel()));
    for (const close of this.#closers) close();
    this.#closers = [];
    this.#channelOwners.clear();
  }

  /** Stops everything in this TaskManager (in-thread TaskManagers at the end of a job). */
  async shutdown(): Promise<void> {
    await this.#cancelAll();
    if (this.#metricsTimer) clearInterval(this.#metricsTimer);
    await this.#o.storage.close?.().catch(() => {});
  }
}
