import type {
  ChannelStateHandle,
  FromTaskManager,
  TaskFigures,
  TaskMetrics,
  TaskRestoreState,
  TaskStateSnapshot,
  TaskStatus,
} from '../network/control-messages.ts';
import type { Logger } from '../log/logger.ts';
import { serializeError } from '../network/control-messages.ts';
import type { Barrier, CheckpointOptions } from '../network/stream-event.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { CapturedOperatorState } from '../state/captured-state.ts';
import type { HeapKeyedStateBackend } from '../state/heap-keyed-state-backend.ts';
import { keyGroupRangeForSubtask } from '../state/key-group.ts';
import type { OperatorRestoreState } from '../network/control-messages.ts';
import type { AlignmentFigures } from './checkpointing/alignment-figures.ts';
import { BarrierHandler } from './checkpointing/barrier-handler.ts';
import type { BarrierMode } from './checkpointing/barrier-mode.ts';
import type { InFlightInput } from './checkpointing/in-flight-input.ts';
import { keyGroupFor, operatorIndexForKeyGroup, type Key } from '../state/key-group.ts';
import type { InputGate } from './input-gate.ts';
import { Mailbox } from './mailbox.ts';
import { OperatorChain } from './operator-chain.ts';
import { SourceOperator } from './operators/source-operator.ts';
import type { RecordWriter } from './record-writer.ts';

/** Unaligned checkpoints: persists the in-flight records of each channel (by channel key). */
export type ChannelStateWriter = (
  barrier: Barrier,
  task: { readonly vertexId: string; readonly subtask: number; readonly headUid: string },
  channels: { readonly inputs: ReadonlyArray<readonly [string, unknown[]]>; readonly outputs: ReadonlyArray<readonly [string, unknown[]]> },
) => Promise<{ inputChannels: Record<string, ChannelStateHandle>; outputChannels: Record<string, ChannelStateHandle> }>;

/** The async part of a snapshot: serialize what the sync part captured and write it to storage. */
export type SnapshotWriter = (
  barrier: Barrier,
  captured: CapturedOperatorState[],
  task: { readonly vertexId: string; readonly subtask: number },
  /** Aborted when the checkpoint expires or is aborted: the writer stops and must not read `captured` any more. */
  signal: AbortSignal,
) => Promise<TaskStateSnapshot>;

export interface TaskSetup {
  readonly jobId: string;
  readonly attempt: number;
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly gate: InputGate | undefined;
  readonly writers: ReadonlyMap<number, RecordWriter>;
  readonly splits: unknown[];
  readonly restore: TaskRestoreState | null;
  readonly barrierMode: BarrierMode;
  readonly report: (message: FromTaskManager) => void;
  readonly wake: () => void;
  readonly writeSnapshot: SnapshotWriter;
  readonly writeChannelState: ChannelStateWriter;
  readonly readChannelState: (handle: ChannelStateHandle) => unknown[];
  readonly restoreKeyed: (backend: HeapKeyedStateBackend, state: OperatorRestoreState, directory: string) => Promise<void>;
  readonly failAfterRecords?: number | undefined;
  /** Lines carry the job id, vertex, subtask and attempt. */
  readonly log: Logger;
}

/** A failure made on purpose (weir run --inject-failures, weir verify). */
export class InjectedFailure extends Error {
  constructor(task: string, records: number) {
    super(`injected failure in ${task} after ${records} records`);
    this.name = 'InjectedFailure';
  }
}

/** What an unaligned snapshot persists besides operator state: the in-flight records. */
interface ChannelCapture {
  readonly outputs: ReadonlyArray<readonly [string, unknown[]]>;
  readonly inputs: InFlightInput | undefined;
}

/** A task's message before the task stamps it with its attempt, vertex and subtask. */
type Unstamped<T> = T extends unknown ? Omit<T, 'attempt' | 'vertexId' | 'subtask'> : never;

export type StepResult = 'busy' | 'idle' | 'done';

const BUFFERS_PER_STEP = 8;
const POLLS_PER_STEP = 16;
const FLUSH_INTERVAL_MS = 100;

/**
 * One subtask: an operator chain fed by a source reader or an input gate, run as a mailbox
 * loop. The TaskManager calls step() whenever the task may have work; each step first runs
 * mails (checkpoint triggers, notifications), then takes a bounded amount of input.
 */
export class Task {
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly mailbox = new Mailbox();
  readonly #setup: TaskSetup;
  readonly #chain: OperatorChain;
  readonly #writers: RecordWriter[];
  readonly #gate: InputGate | undefined;
  readonly #source: SourceOperator | undefined;
  readonly #barriers: BarrierHandler | undefined;
  #status: TaskStatus = 'initializing';
  #blockedOn: Promise<unknown> | undefined;
  #waitingForSource = false;
  /** Stop with savepoint: the source reads no more (until resumed, if the savepoint fails). */
  #sourceStopped = false;
  #endedChannels: Uint8Array;
  #endedCount = 0;
  #lastFlush = 0;
  #recordsIn = 0;
  #backpressureMs = 0;
  #backpressureSince = -1;
  #activity = 'starting';
  /** In-flight input restored from an unaligned checkpoint, processed before the gate's input. */
  readonly #replay: unknown[][] = [];
  /** Checkpoints whose asynchronous part is still writing: since when, and how to stop it. */
  readonly #writing = new Map<number, { readonly since: number; readonly abort: (reason: string) => void }>();
  #activitySince = Date.now();

  constructor(setup: TaskSetup) {
    this.#setup = setup;
    this.vertex = setup.vertex;
    this.subtask = setup.subtask;
    this.#gate = setup.gate;
    this.#writers = [...setup.writers.values()];
    this.#chain = new OperatorChain({
      jobId: setup.jobId,
      attempt: setup.attempt,
      vertex: setup.vertex,
      subtask: setup.subtask,
      keyGroupRange: keyGroupRangeForSubtask(setup.subtask, setup.vertex.parallelism, setup.vertex.maxParallelism),
      writers: setup.writers,
      restore: setup.restore?.operators,
      restoreKeyed: (backend, state) => setup.restoreKeyed(backend, state, setup.restore!.directory),
    });
    const head = this.#chain.head;
    if (head instanceof SourceOperator) {
      this.#source = head;
      head.assignInitialSplits(setup.splits);
      head.onSplitRequest = () => setup.report({ type: 'split-request', attempt: setup.attempt, vertexId: setup.vertex.id, subtask: setup.subtask });
      head.onReaderEvent = (event) =>
        setup.report({ type: 'reader-event', attempt: setup.attempt, vertexId: setup.vertex.id, subtask: setup.subtask, event });
    }
    this.#endedChannels = new Uint8Array(setup.gate?.channels.length ?? 0);
    if (setup.gate) {
      setup.gate.onData = setup.wake;
      this.#barriers = new BarrierHandler(
        setup.gate,
        setup.barrierMode,
        {
          triggerSnapshot: (barrier, figures, inFlight) => void this.#snapshot(barrier, figures, inFlight),
          abortCheckpoint: (id, reason) => this.#decline(id, reason),
        },
        () => this.mailbox.put({ description: 'aligned checkpoint timeout', run: () => this.#barriers!.checkTimeout() }),
      );
    }
    for (const w of this.#writers) for (const ch of w.channels) ch.onWritable = setup.wake;
    this.mailbox.onMail = setup.wake;
  }

  get status(): TaskStatus {
    return this.#status;
  }

  get name(): string {
    return `${this.vertex.name} (${this.subtask + 1}/${this.vertex.parallelism})`;
  }

  async initialize(): Promise<void> {
    const restoring = this.#setup.restore;
    this.#setActivity(restoring ? `initializing: restoring the state of checkpoint ${restoring.checkpointId}` : 'initializing: opening operators');
    await this.#chain.open({
      jobId: this.#setup.jobId,
      subtaskIndex: this.subtask,
      parallelism: this.vertex.parallelism,
      maxParallelism: this.vertex.maxParallelism,
      attemptNumber: this.#setup.attempt,
      log: this.#setup.log,
    });
    this.#restoreChannelState();
    const restore = this.#setup.restore;
    if (restore) this.#setup.log.info(`restored the state of checkpoint ${restore.checkpointId}`, { checkpointId: restore.checkpointId });
    this.#setStatus('running');
    this.#setActivity(this.#source ? 'reading' : 'processing');
  }

  /**
   * An unaligned checkpoint's in-flight data comes back first: persisted output goes out ahead of
   * any new output, persisted input is processed ahead of any new input. After a rescale each
   * subtask keeps the records that are now its own.
   */
  #restoreChannelState(): void {
    const channels = this.#setup.restore?.channels;
    if (!channels) return;
    const read = (handle: ChannelStateHandle) => this.#setup.readChannelState(handle);
    const edgeOf = (key: string) => Number(key.split(':')[0]);
    let rebalanced = 0;
    for (const { key, handle } of channels.inputs) {
      let records = read(handle);
      if (channels.rescaled) {
        const edge = this.vertex.inputs.find((e) => e.id === edgeOf(key))!;
        const p = this.vertex.parallelism;
        const maxP = this.vertex.maxParallelism;
        if (edge.partitioner.kind === 'hash') {
          const select = edge.partitioner.keySelector;
          records = records.filter((r) => operatorIndexForKeyGroup(keyGroupFor(select(r) as Key, maxP), p, maxP) === this.subtask);
        } else {
          records = records.filter(() => rebalanced++ % p === this.subtask);
        }
      }
      if (records.length > 0) this.#replay.push(records);
    }
    for (const { key, handle } of channels.outputs) {
      const writer = this.#setup.writers.get(edgeOf(key));
      if (!writer) continue;
      const records = read(handle);
      if (channels.rescaled) for (const r of records) writer.emit(r);
      else writer.emitToChannel(Number(key.split(':')[1]), records);
    }
  }

  // ---- the mailbox loop, one bounded step at a time ----

  step(): StepResult {
    if (this.#status === 'finished' || this.#status === 'failed' || this.#status === 'canceled') return 'done';
    if (this.#blockedOn !== undefined) return 'idle';
    try {
      for (let mail = this.mailbox.take(); mail !== undefined; mail = this.mailbox.take()) {
        const r = mail.run();
        if (r instanceof Promise) {
          this.#blockUntil(r, mail.description);
          return 'idle';
        }
        if (this.#isTerminal()) return 'done';
      }
      if (this.#status === 'initializing') return 'idle';
      this.#takePriorityBarriers();
      if (this.#blockedOn !== undefined) return 'idle';
      if (!this.#outputsWritable()) return 'idle';
      const ready = this.#chain.ready();
      if (ready !== undefined) {
        this.#blockUntil(ready, 'waiting for the sink');
        return 'idle';
      }
      const result = this.#source ? this.#stepSource() : this.#stepGate();
      this.#checkInjectedFailure();
      return result;
    } catch (e) {
      this.fail(e);
      return 'done';
    }
  }

  #stepSource(): StepResult {
    if (this.#status !== 'running' || this.#waitingForSource || this.#sourceStopped) return 'idle';
    const source = this.#source!;
    for (let i = 0; i < POLLS_PER_STEP; i++) {
      const status = source.pollNext();
      if (status === 'more') {
        if (!this.#outputsWritable()) return 'idle';
        continue;
      }
      if (status === 'end') {
        this.#endOfInput();
        return 'idle';
      }
      this.#flushIfIdle();
      this.#waitingForSource = true;
      source.reader.isAvailable().then(
        () => {
          this.#waitingForSource = false;
          this.#setup.wake();
        },
        (e) => this.fail(e),
      );
      return 'idle';
    }
    this.#maybeTimedFlush();
    return 'busy';
  }

  /**
   * Unaligned checkpoints: a priority barrier at the head of an input channel is taken now, even
   * when the outputs are full, and before a sink is asked whether it is ready, as Flink processes
   * priority events ahead of its suspended default action. Such a barrier overtakes all queued
   * data anyway (and is sent on with priority), so waiting for output credit would only hold it
   * back by however long downstream takes to free a buffer, at every hop. Restored input still to
   * be replayed must come first (it belongs before any barrier).
   */
  #takePriorityBarriers(): void {
    const gate = this.#gate;
    if (gate === undefined || this.#replay.length > 0) return;
    for (let c = 0; c < gate.channels.length && this.#blockedOn === undefined; c++) {
      if (gate.isBlocked(c)) continue;
      const channel = gate.channels[c]!;
      const head = channel.peek();
      if (head === undefined || head.kind !== 'barrier' || !head.options.unaligned) continue;
      channel.poll();
      this.#barriers!.onBarrier(c, head);
    }
  }

  #stepGate(): StepResult {
    const gate = this.#gate!;
    const head = this.#chain.input;
    for (let i = 0; i < BUFFERS_PER_STEP; i++) {
      const replayed = this.#replay.shift();
      if (replayed !== undefined) {
        this.#recordsIn += replayed.length;
        for (let r = 0; r < replayed.length; r++) head.collect(replayed[r]);
        if (!this.#outputsWritable()) return 'idle';
        continue;
      }
      const next = gate.pollNext();
      if (next === undefined) {
        this.#flushIfIdle();
        return 'idle';
      }
      const item = next.item;
      switch (item.kind) {
        case 'records': {
          const records = item.records;
          this.#recordsIn += records.length;
          for (let r = 0; r < records.length; r++) head.collect(records[r]);
          if (item.bytes > 0) this.#barriers!.noteProcessed(item.bytes);
          break;
        }
        case 'barrier':
          this.#barriers!.onBarrier(next.channel, item);
          if (this.#blockedOn !== undefined) return 'idle';
          break;
        case 'cancel-barrier':
          this.#barriers!.onCancelBarrier(item.checkpointId);
          break;
        case 'end-of-data':
          this.#onEndOfData(next.channel);
          if (this.#blockedOn !== undefined) return 'idle';
          break;
      }
      if (!this.#outputsWritable()) return 'idle';
    }
    this.#maybeTimedFlush();
    return 'busy';
  }

  #checkInjectedFailure(): void {
    const limit = this.#setup.failAfterRecords;
    if (limit === undefined) return;
    const taken = this.#source ? this.#source.emitted : this.#recordsIn;
    if (taken >= limit) throw new InjectedFailure(this.name, taken);
  }

  #onEndOfData(channel: number): void {
    if (this.#endedChannels[channel]) return;
    this.#endedChannels[channel] = 1;
    if (++this.#endedCount === this.#endedChannels.length) this.#endOfInput();
  }

  /** All input consumed: let operators flush, tell downstream, and wait for the JobMaster's finish. */
  #endOfInput(): void {
    this.#setActivity('finishing input');
    this.#blockUntil(
      this.#chain.endInput().then(() => {
        // An armed failure that the input was too short to reach fires at its end.
        if (this.#setup.failAfterRecords !== undefined) throw new InjectedFailure(this.name, this.#source?.emitted ?? this.#recordsIn);
        for (const w of this.#writers) w.broadcastEvent({ kind: 'end-of-data' });
        this.#setStatus('end-of-data');
        this.#setActivity('input finished, waiting for the job to end');
      }),
      'finishing input',
    );
  }

  // ---- checkpoints ----

  /** A source task's trigger, run as mail: between two polls, never inside one. */
  triggerCheckpoint(checkpointId: number, timestamp: number, options: CheckpointOptions): void {
    this.mailbox.put({
      description: `checkpoint ${checkpointId}`,
      run: () => {
        if (this.#status !== 'running' && this.#status !== 'end-of-data') {
          this.#decline(checkpointId, `subtask was ${this.#status} when checkpoint ${checkpointId} was triggered`);
          return;
        }
        return this.#snapshot({ kind: 'barrier', checkpointId, timestamp, options }, { alignmentMs: 0, startDelayMs: Date.now() - timestamp, processedBytes: 0 });
      },
    });
  }

  #snapshot(barrier: Barrier, alignment: AlignmentFigures, inFlight?: InFlightInput): Promise<void> {
    const id = barrier.checkpointId;
    const start = performance.now();
    this.#setActivity(`taking the synchronous snapshot of checkpoint ${id}`);
    const unaligned = barrier.options.unaligned;
    const work = (async () => {
      await this.#chain.prepareSnapshot(id);
      const captured = this.#capture();
      let channels: ChannelCapture | undefined;
      if (unaligned) {
        // The barrier overtakes what this task has not sent yet; a copy of it is persisted.
        const outputs: Array<[string, unknown[]]> = [];
        for (const [edgeId, w] of this.#setup.writers) w.inFlight().forEach((records, c) => outputs.push([`${edgeId}:${c}`, records]));
        for (const w of this.#writers) w.broadcastPriorityEvent(barrier);
        channels = { outputs, inputs: inFlight };
      } else {
        for (const w of this.#writers) w.broadcastEvent(barrier);
      }
      const syncMs = performance.now() - start;
      this.#setActivity(this.#source ? 'reading' : 'processing');
      this.#writeAsync(barrier, captured, syncMs, alignment, channels);
    })();
    if (this.#gate) this.#blockUntil(work, `synchronous snapshot of checkpoint ${id}`);
    return work;
  }

  #capture(): CapturedOperatorState[] {
    return this.#chain.members.map((m) => ({
      uid: m.uid,
      operatorId: m.operatorId,
      operator: m.operatorState.snapshot(),
      keyed: m.keyedState
        ? {
            keyGroupRange: m.keyedState.keyGroupRange,
            maxParallelism: m.keyedState.maxParallelism,
            tables: [...m.keyedState.states.values()].map((s) => ({ descriptor: s.descriptor, snapshot: s.table.snapshot() })),
          }
        : null,
    }));
  }

  #writeAsync(barrier: Barrier, captured: CapturedOperatorState[], syncMs: number, alignment: AlignmentFigures, channels?: ChannelCapture): void {
    const start = performance.now();
    const checkpointId = barrier.checkpointId;
    const controller = new AbortController();
    const release = () => {
      this.#writing.delete(checkpointId);
      for (const c of captured) for (const t of c.keyed?.tables ?? []) t.snapshot.release();
    };
    // An expired or aborted checkpoint must not hold its snapshot (and every later snapshot's
    // copy-on-write) for as long as a slow or hung write takes: it is released at once.
    this.#writing.set(checkpointId, {
      since: Date.now(),
      abort: (reason) => {
        controller.abort(new Error(reason));
        release();
      },
    });
    const task = { vertexId: this.vertex.id, subtask: this.subtask, headUid: this.vertex.operators[0]!.uid };
    const writeChannels = async () => {
      if (!channels) return { alignmentMs: alignment.alignmentMs, handles: { inputChannels: {}, outputChannels: {} } };
      // The input side is complete when the last barrier has arrived.
      const alignmentMs = channels.inputs ? await channels.inputs.complete : 0;
      const inputs = (channels.inputs?.buffers ?? []).map((buffers, i) => [this.#gate!.channels[i]!.key, buffers.flat()] as const);
      return { alignmentMs, handles: await this.#setup.writeChannelState(barrier, task, { inputs, outputs: channels.outputs }) };
    };
    Promise.all([this.#setup.writeSnapshot(barrier, captured, task, controller.signal), writeChannels()])
      .then(
        ([operators, { alignmentMs, handles }]) => {
          release();
          const state: TaskStateSnapshot = { ...operators, ...handles };
          const persisted = [...Object.values(handles.inputChannels), ...Object.values(handles.outputChannels)].reduce((n, h) => n + h.length, 0);
          const figures: TaskFigures = {
            syncMs,
            asyncMs: performance.now() - start,
            alignmentMs,
            startDelayMs: alignment.startDelayMs,
            processedBytes: alignment.processedBytes,
            persistedBytes: persisted,
            stateBytes: operators.operators.reduce((n, o) => n + (o.keyed?.bytes ?? 0), 0) + persisted,
            unaligned: channels !== undefined,
          };
          this.#setup.log.debug(`acknowledged checkpoint ${checkpointId}`, { checkpointId, syncMs: Math.round(figures.syncMs), asyncMs: Math.round(figures.asyncMs), alignmentMs: Math.round(figures.alignmentMs), stateBytes: figures.stateBytes });
          this.#report({ type: 'ack-checkpoint', checkpointId, state, figures });
        },
        (e: unknown) => {
          release();
          if (controller.signal.aborted) return;
          this.#decline(checkpointId, `writing the snapshot failed: ${e instanceof Error ? e.message : String(e)}`, true);
        },
      );
  }

  #decline(checkpointId: number, reason: string, counts = false): void {
    this.#setup.log.warn(`declined checkpoint ${checkpointId}: ${reason}`, { checkpointId });
    for (const w of this.#writers) w.broadcastEvent({ kind: 'cancel-barrier', checkpointId });
    this.#report({ type: 'decline-checkpoint', checkpointId, reason, counts });
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.mailbox.put({ description: `commit of checkpoint ${checkpointId}`, run: () => this.#chain.notifyCheckpointComplete(checkpointId) });
  }

  notifyCheckpointAborted(checkpointId: number, reason: string): void {
    this.mailbox.put({
      description: `abort of checkpoint ${checkpointId}`,
      run: () => {
        this.#writing.get(checkpointId)?.abort(reason);
        this.#barriers?.abort(checkpointId, reason);
        return this.#chain.notifyCheckpointAborted(checkpointId);
      },
    });
  }

  // ---- split enumerator -> reader ----

  /** Mail, so splits land between two polls and in the order the enumerator sent them relative to triggers. */
  addSplits(splits: unknown[], noMoreSplits: boolean): void {
    this.mailbox.put({
      description: `adding ${splits.length} split(s)`,
      run: () => {
        if (this.#isTerminal()) return;
        this.#source?.addSplits(splits, noMoreSplits);
      },
    });
  }

  handleSourceEvent(event: unknown): void {
    this.mailbox.put({ description: 'event from the split enumerator', run: () => void this.#source?.handleSourceEvent(event) });
  }

  // ---- lifecycle ----

  /** Stop with savepoint, as mail so it lands between two polls and before the savepoint's trigger. */
  stopSource(drain: boolean): void {
    this.mailbox.put({
      description: drain ? 'draining for stop-with-savepoint' : 'stopping for stop-with-savepoint',
      run: () => {
        if (this.#sourceStopped || this.#status !== 'running') return;
        this.#sourceStopped = true;
        this.#flushIfIdle();
        if (drain) this.#endOfInput();
        else this.#setActivity('stopped for a savepoint');
      },
    });
  }

  resumeSource(): void {
    this.mailbox.put({
      description: 'resuming after a failed stop-with-savepoint',
      run: () => {
        this.#sourceStopped = false;
        this.#setActivity('reading');
      },
    });
  }

  /** The JobMaster saw every task reach the end of its data (and the final checkpoint): close. */
  finish(): void {
    this.mailbox.put({
      description: 'closing',
      run: async () => {
        for (const w of this.#writers) w.flushAll();
        await this.#chain.close();
        this.#setStatus('finished');
      },
    });
  }

  async cancel(): Promise<void> {
    if (this.#isTerminal()) return;
    this.#status = 'canceled';
    this.#report({ type: 'task-status', status: 'canceled', ...this.#positions() });
    await this.#chain.dispose();
  }

  fail(error: unknown): void {
    if (this.#isTerminal()) return;
    this.#status = 'failed';
    this.#setup.log.warn(`failed: ${error instanceof Error ? error.message : String(error)}`, { error: error instanceof Error ? error.name : 'Error' });
    this.#report({
      type: 'task-status',
      status: 'failed',
      error: serializeError(error, { vertex: this.vertex.name, subtask: this.subtask }),
      ...this.#positions(),
    });
    this.#setup.wake();
    void this.#chain.dispose();
  }

  metrics(): TaskMetrics {
    const now = performance.now();
    const bp = this.#backpressureMs + (this.#backpressureSince >= 0 ? now - this.#backpressureSince : 0);
    return {
      vertexId: this.vertex.id,
      subtask: this.subtask,
      recordsIn: this.#source ? this.#source.emitted : this.#recordsIn,
      recordsOut: this.#writers.reduce((n, w) => n + w.recordsOut, 0),
      backpressure: bp,
      activity: this.describeActivity(),
      activityBase: this.#currentActivity(),
      activitySince: this.#activitySince,
      ...(this.#source?.reader?.metrics ? { source: this.#source.reader.metrics() } : {}),
    };
  }

  describeActivity(): string {
    const since = Math.round((Date.now() - this.#activitySince) / 1000);
    const aligning = this.#barriers?.describe();
    if (aligning) return aligning;
    const writing = [...this.#writing].map(([id, w]) => `; writing the state of checkpoint ${id} (for ${Math.round((Date.now() - w.since) / 1000)} s)`).join('');
    if (this.#backpressureSince >= 0 && this.#blockedOn === undefined) {
      // Blocked on a full output: the barrier waits behind the records this task cannot send.
      const secs = Math.round((performance.now() - this.#backpressureSince) / 1000);
      return `blocked on a full output channel (backpressure from downstream) for ${secs} s${writing}`;
    }
    const what = this.#currentActivity();
    // A reader that times its own work (e.g. one chunk read) says so; the task's time would mislead.
    const timed = since >= 1 && !/\bfor \d+ s\b/.test(what);
    return (timed ? `${what} (for ${since} s)` : what) + writing;
  }

  #currentActivity(): string {
    const reading = this.#source && this.#status === 'running' ? this.#source.reader.describeActivity?.() : undefined;
    return reading ?? this.#activity;
  }

  // ---- helpers ----

  /** Where a source's reader stands: an at-most-once restart goes on from here. */
  #positions(): { positions?: unknown[] } {
    if (!this.#source || this.#status === 'initializing') return {};
    try {
      return { positions: this.#source.reader.snapshotState(-1) };
    } catch {
      return {};
    }
  }

  #report(message: Unstamped<Extract<FromTaskManager, { vertexId: string }>>): void {
    this.#setup.report({ ...message, attempt: this.#setup.attempt, vertexId: this.vertex.id, subtask: this.subtask } as FromTaskManager);
  }

  #setStatus(status: TaskStatus): void {
    // Work that was in flight when the task was cancelled or failed (the end of input, closing)
    // must not bring it back to life or report a status over 'canceled'.
    if (this.#isTerminal()) return;
    this.#status = status;
    this.#report({ type: 'task-status', status });
  }

  #setActivity(activity: string): void {
    this.#activity = activity;
    this.#activitySince = Date.now();
  }

  #isTerminal(): boolean {
    return this.#status === 'finished' || this.#status === 'failed' || this.#status === 'canceled';
  }

  #blockUntil(promise: Promise<unknown>, activity: string): void {
    const previous = this.#activity;
    this.#setActivity(activity);
    const blocked = promise.then(
      () => {
        if (this.#blockedOn === blocked) this.#blockedOn = undefined;
        if (this.#activity === activity) this.#setActivity(previous);
        this.#setup.wake();
      },
      (e) => {
        if (this.#blockedOn === blocked) this.#blockedOn = undefined;
        this.fail(e);
      },
    );
    this.#blockedOn = blocked;
  }

  #outputsWritable(): boolean {
    for (let i = 0; i < this.#writers.length; i++) {
      if (!this.#writers[i]!.writable) {
        if (this.#backpressureSince < 0) {
          // On becoming blocked, ship partial buffers: downstream must not wait on records held here.
          this.#backpressureSince = performance.now();
          for (const w of this.#writers) w.flushAll();
        }
        return false;
      }
    }
    if (this.#backpressureSince >= 0) {
      this.#backpressureMs += performance.now() - this.#backpressureSince;
      this.#backpressureSince = -1;
    }
    return true;
  }

  #flushIfIdle(): void {
    for (const w of this.#writers) w.flushAll();
    this.#lastFlush = performance.now();
  }

  #maybeTimedFlush(): void {
    const now = performance.now();
    if (now - this.#lastFlush > FLUSH_INTERVAL_MS) {
      for (const w of this.#writers) w.flushAll();
      this.#lastFlush = now;
    }
  }
}
