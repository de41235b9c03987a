import { hostname } from 'node:os';
import { channelStateKey, type ChannelStateKey } from '../checkpoint/channel-state-key.ts';
import type { CheckpointFailureCode } from '../checkpoint/checkpoint-failure-reason.ts';
import type { CheckpointStorageWorkerView, CheckpointTarget, SubtaskInfo } from '../checkpoint/checkpoint-storage.ts';
import type { TaskStateSnapshot } from '../checkpoint/state-handles.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { Logger } from '../log/logger.ts';
import type { TaskFigures } from '../rpc/job-master-gateway.ts';
import type { Barrier } from '../network/stream-event.ts';
import type { CapturedOperatorState } from '../state/captured-state.ts';
import type { OperatorStateEntry } from '../state/operator-state-backend.ts';
import type { AlignmentFigures } from './checkpointing/alignment-figures.ts';
import type { InFlightInput } from './checkpointing/in-flight-input.ts';
import { CheckpointAbortedError } from './checkpointing/checkpoint-aborted-error.ts';
import type { OperatorChain } from './operator-chain.ts';
import type { RecordWriter } from './record-writer.ts';
import { operatorStateBytes } from '../checkpoint/operator-state-size.ts';
import { keyedBytes, keyedBytesWritten } from '../checkpoint/incremental/keyed-state-size.ts';

/** The channel state of an unaligned (or converted) checkpoint, once it is all known. */
interface ChannelStateToWrite {
  readonly outputs: Promise<Array<[ChannelStateKey, unknown[]]>>;
  readonly inputs: InFlightInput | undefined;
  /** An aligned checkpoint whose barrier waited in some channels: channel state only where one was converted. */
  readonly onlyIfConverted?: boolean;
}

/** What a subtask reports about its part of a checkpoint. */
export type CheckpointReport =
  | { readonly type: 'acknowledgeCheckpoint'; readonly checkpointId: number; readonly state: TaskStateSnapshot; readonly figures: TaskFigures }
  | { readonly type: 'declineCheckpoint'; readonly checkpointId: number; readonly code: CheckpointFailureCode; readonly reason: string };

export interface SubtaskCheckpointSetup {
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly chain: OperatorChain;
  /** By job edge id. */
  readonly writers: ReadonlyMap<number, RecordWriter>;
  /** The keys of the input channels, by gate index (unaligned input channel state is filed under them). */
  readonly inputChannelKeys: readonly ChannelStateKey[];
  readonly storage: CheckpointStorageWorkerView;
  readonly report: (message: CheckpointReport) => void;
  /** An operator's asynchronous snapshot part failed: what it was completing (a sink's staged output) is lost, so the task fails. */
  readonly fail: (error: unknown) => void;
  readonly log: Logger;
}

/** An operator's asynchronous snapshot part failed (not the write of the snapshot). */
class SnapshotPartFailure {
  readonly cause: unknown;
  constructor(cause: unknown) {
    this.cause = cause;
  }
}

/**
 * A subtask's side of the checkpoint protocol (Flink's SubtaskCheckpointCoordinator): the
 * synchronous part (operators prepare, state is captured as copy-on-write views, the barrier goes
 * on), then the asynchronous part (state written while processing goes on), then the
 * acknowledgement with the handles and figures, or a decline with its reason.
 */
export class SubtaskCheckpointCoordinator {
  readonly #s: SubtaskCheckpointSetup;
  readonly #info: SubtaskInfo;
  /** Checkpoints whose asynchronous part is still writing: since when, and how to stop it. */
  readonly #writing = new Map<number, { readonly since: number; readonly abort: (reason: string) => void }>();

  constructor(setup: SubtaskCheckpointSetup) {
    this.#s = setup;
    this.#info = { vertexId: setup.vertex.id, subtask: setup.subtask, headUid: setup.vertex.operators[0]!.uid };
  }

  get writing(): Array<{ checkpointId: number; since: number }> {
    return [...this.#writing].map(([checkpointId, w]) => ({ checkpointId, since: w.since }));
  }

  /**
   * The synchronous part; the asynchronous part starts when it is done. Unaligned: the barrier
   * overtakes what this subtask has not sent yet, and a copy of that is persisted.
   */
  async checkpointState(barrier: Barrier, alignment: AlignmentFigures, inFlight?: InFlightInput): Promise<void> {
    const start = performance.now();
    const { chain, writers } = this.#s;
    await chain.prepareSnapshot(barrier.checkpointId, barrier.options.type);
    const parts = chain.snapshotAsync(barrier.checkpointId);
    const request = { checkpointId: barrier.checkpointId, type: barrier.options.type, location: barrier.options.targetDir, ...(barrier.options.incrementalBase !== undefined ? { incrementalBase: barrier.options.incrementalBase } : {}) };
    const captured = chain.members.map((m) => ({ uid: m.uid, operatorId: m.operatorId, operator: m.operatorState.snapshot(), keyed: m.keyedState?.snapshot(request) ?? null }));
    let channels: ChannelStateToWrite | undefined;
    if (barrier.options.unaligned) {
      const outputs: Array<[ChannelStateKey, unknown[]]> = [];
      for (const [edgeId, w] of writers) w.inFlight().forEach((records, c) => outputs.push([channelStateKey(edgeId, c), records]));
      for (const w of writers.values()) w.broadcastPriorityEvent(barrier);
      channels = { outputs: Promise.resolve(outputs), inputs: inFlight };
    } else {
      channels = this.#sendAligned(barrier);
    }
    this.#writeAsync(barrier, completeCaptured(captured, parts), performance.now() - start, alignment, channels);
  }

  /**
   * An aligned barrier goes out after the records before it. Where it has to wait in a channel
   * and may time out, the checkpoint is acknowledged once it has left; if the channel converted
   * it to a priority barrier instead, what it overtook there is this subtask's channel state.
   */
  #sendAligned(barrier: Barrier): ChannelStateToWrite | undefined {
    const waiting: Array<Promise<[ChannelStateKey, unknown[]] | undefined>> = [];
    for (const [edgeId, w] of this.#s.writers) {
      for (const { channel, settled } of w.broadcastEvent(barrier)) waiting.push(settled.then((records) => (records ? [channelStateKey(edgeId, channel), records] : undefined)));
    }
    if (waiting.length === 0) return undefined;
    return { outputs: Promise.all(waiting).then((all) => all.filter((x) => x !== undefined)), inputs: undefined, onlyIfConverted: true };
  }

  decline(checkpointId: number, code: CheckpointFailureCode, reason: string): void {
    this.#s.log.warn(`declined checkpoint ${checkpointId}: ${reason}`, { checkpointId, code });
    for (const w of this.#s.writers.values()) w.broadcastEvent({ kind: 'cancel-barrier', checkpointId });
    this.#s.report({ type: 'declineCheckpoint', checkpointId, code, reason });
  }

  /** The checkpoint expired or was aborted: a write still running stops, and its snapshot is let go. */
  abort(checkpointId: number, reason: string): void {
    this.#writing.get(checkpointId)?.abort(reason);
  }

  /** The task is cancelled or failed: no write of it may go on landing files in checkpoints that the JobMaster has discarded. */
  abortAll(reason: string): void {
    for (const w of [...this.#writing.values()]) w.abort(reason);
  }

  #writeAsync(barrier: Barrier, completing: { captured: CapturedOperatorState[]; complete: Promise<CapturedOperatorState[]> }, syncMs: number, alignment: AlignmentFigures, channels: ChannelStateToWrite | undefined): void {
    const start = performance.now();
    const checkpointId = barrier.checkpointId;
    const target: CheckpointTarget = { checkpointId, location: barrier.options.targetDir };
    const controller = new AbortController();
    const { captured, complete } = completing;
    const releaseSnapshots = () => {
      this.#writing.delete(checkpointId);
      for (const c of captured) for (const t of [...(c.keyed?.tables ?? []), ...(c.keyed?.incremental?.tables ?? [])]) t.snapshot.release();
    };
    // An expired or aborted checkpoint must not hold its snapshot (and every later snapshot's
    // copy-on-write) for as long as a slow or hung write takes: it is released at once.
    this.#writing.set(checkpointId, { since: Date.now(), abort: (reason) => (controller.abort(new Error(reason)), releaseSnapshots()) });
    const storage = this.#s.storage;
    type Handles = Awaited<ReturnType<CheckpointStorageWorkerView['writeChannelState']>>;
    const none = { alignmentMs: alignment.alignmentMs, unaligned: false, handles: { inputChannels: {}, outputChannels: {} } as Handles };
    const writeChannels = async (): Promise<{ alignmentMs: number; unaligned: boolean; handles: Handles }> => {
      if (!channels) return none;
      const outputs = await channels.outputs;
      if (channels.onlyIfConverted && outputs.length === 0) return none;
      // The input side is complete when the last barrier has arrived.
      const alignmentMs = channels.inputs ? await channels.inputs.complete : channels.onlyIfConverted ? alignment.alignmentMs : 0;
      const inputs = (channels.inputs?.buffers ?? []).map((buffers, i) => [this.#s.inputChannelKeys[i]!, buffers.flat()] as const);
      return { alignmentMs, unaligned: true, handles: await storage.writeChannelState(target, this.#info, { inputs, outputs }) };
    };
    Promise.all([complete.then((all) => storage.writeSnapshot(target, all, this.#info, controller.signal)), writeChannels()]).then(
      ([operators, { alignmentMs, unaligned, handles }]) => {
        releaseSnapshots();
        const persisted = [...Object.values(handles.inputChannels), ...Object.values(handles.outputChannels)].reduce((n, h) => n + h.length, 0);
        const figures: TaskFigures = {
          syncMs,
          asyncMs: performance.now() - start,
          alignmentMs,
          startDelayMs: alignment.startDelayMs,
          processedBytes: alignment.processedBytes,
          persistedBytes: persisted,
          stateBytes: operators.operators.reduce((n, o) => n + keyedBytes(o.keyed) + operatorStateBytes(o.operator), 0) + persisted,
          checkpointedBytes: operators.operators.reduce((n, o) => n + keyedBytesWritten(o.keyed, checkpointId) + operatorStateBytes(o.operator), 0) + persisted,
          unaligned,
        };
        this.#s.log.debug(`acknowledged checkpoint ${checkpointId}`, { checkpointId, syncMs: Math.round(syncMs), asyncMs: Math.round(figures.asyncMs), alignmentMs: Math.round(alignmentMs), stateBytes: figures.stateBytes });
        this.#s.report({ type: 'acknowledgeCheckpoint', checkpointId, state: { ...operators, ...handles }, figures });
      },
      (e: unknown) => {
        releaseSnapshots();
        if (e instanceof SnapshotPartFailure) {
          this.#s.fail(e.cause);
          return;
        }
        // Aborted here (the write was told to stop, or the barrier handler gave up on the
        // unaligned input and has declined already): nothing more to say, and nothing to count.
        if (controller.signal.aborted || e instanceof CheckpointAbortedError) return;
        // The host too: in a cluster each TaskManager writes to the shared storage as it sees it.
        this.decline(checkpointId, 'TASK_CHECKPOINT_FAILURE', `writing the snapshot failed: ${e instanceof Error ? e.message : String(e)} (on host ${hostname()})`);
      },
    );
  }
}

/** The captured state with each operator's asynchronous part merged in once it settles. */
function completeCaptured(captured: CapturedOperatorState[], parts: ReadonlyArray<Promise<ReadonlyMap<string, OperatorStateEntry>> | undefined>): { captured: CapturedOperatorState[]; complete: Promise<CapturedOperatorState[]> } {
  if (parts.every((p) => p === undefined)) return { captured, complete: Promise.resolve(captured) };
  const complete = Promise.all(
    captured.map(async (c, i) => {
      const part = parts[i];
      if (!part) return c;
      const extra = await part.catch((e: unknown) => Promise.reject(new SnapshotPartFailure(e)));
      return { ...c, operator: new Map([...c.operator, ...extra]) };
    }),
  );
  return { captured, complete };
}
