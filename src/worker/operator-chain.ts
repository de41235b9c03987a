import type { SinkCheckpointing } from '../api/sink.ts';
import type { TaskInfo } from '../api/functions.ts';
import type { OperatorRestoreState, OperatorStateMap } from '../checkpoint/state-handles.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { KeyGroupRange } from '../state/key-group.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import type { OperatorStateBackend, OperatorStateEntry } from '../state/operator-state-backend.ts';
import type { StateBackend } from '../state/state-backend.ts';
import { createOperator } from './operator-factory.ts';
import { OperatorFailure } from './operator-failure.ts';
import { isTwoInputOperator, type EventTimeOutput, type OperatorMetrics, type Output, type StreamOperator } from './operators/stream-operator.ts';
import type { ProcessingTimeService } from './processing-time-service.ts';
import type { OperatorMails } from './operator-mails.ts';
import type { RecordWriter } from './record-writer.ts';
import { MIN_WATERMARK } from '../api/watermark.ts';
import { RecordTimestamp } from '../network/record-timestamp.ts';
import type { CheckpointType } from '../network/stream-event.ts';
import { isKeyedOperator } from '../graph/stream-graph.ts';

export interface ChainMember {
  readonly uid: string;
  readonly operatorId: string;
  readonly name: string;
  readonly operator: StreamOperator;
  readonly keyedState: KeyedStateBackend | undefined;
  readonly operatorState: OperatorStateBackend;
  readonly metrics: OperatorMetrics;
}

export interface ChainSetup {
  readonly jobId: string;
  readonly attempt: number;
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly keyGroupRange: KeyGroupRange;
  /** Writers by job edge id. */
  readonly writers: ReadonlyMap<number, RecordWriter>;
  readonly restore: Readonly<Record<string, OperatorRestoreState>> | undefined;
  readonly restoreKeyed: (backend: KeyedStateBackend, state: OperatorRestoreState) => Promise<void>;
  /** state.backend.type's factory: every operator's keyed and operator state backends come from it. */
  readonly stateBackend: StateBackend;
  readonly processingTime: ProcessingTimeService;
  /** pipeline.auto-watermark-interval in ms. */
  readonly autoWatermarkInterval: number;
  readonly checkpointing?: SinkCheckpointing;
  readonly mails: OperatorMails;
}

/**
 * The operators of one vertex in one subtask, wired output to input. A record emitted by one
 * operator is a plain call into the next, so a chain costs no more than the functions in it.
 */
export class OperatorChain {
  readonly members: ChainMember[] = [];
  readonly head: StreamOperator;
  /** Entry point of the chain for records, with failures attributed to the operator that threw. */
  readonly input: Output;
  /** The head's inputs, by input index: one, or two for a two-input head (connect). */
  readonly inputs: readonly Output[];

  readonly outputs: Output[];
  /** Each operator's side outputs that something consumes, by tag id. */
  readonly sideOutputs: Array<ReadonlyMap<string, Output>>;
  readonly eventTimeOutputs: EventTimeOutput[];
  /** The timestamp of the record going through the chain now; every writer of the task reads it. */
  readonly timestamps = new RecordTimestamp();
  readonly #vertexName: string;
  readonly #subtask: number;
  readonly #parallelism: number;

  readonly #setup: ChainSetup;
  /** close() has begun: what it awaits. */
  #closing: Promise<void> | undefined;

  constructor(setup: ChainSetup) {
    this.#setup = setup;
    const { vertex, subtask } = setup;
    this.#vertexName = vertex.name;
    this.#subtask = subtask;
    this.#parallelism = vertex.parallelism;
    const ops = vertex.operators;
    const instances = ops.map((op) => createOperator(op.spec));
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const keyed = isKeyedOperator(op.spec.kind);
      const restored = setup.restore?.[op.uid];
      const keyedState = keyed
        ? setup.stateBackend.createKeyedStateBackend({
            jobId: setup.jobId,
            uid: op.uid,
            subtask,
            attempt: setup.attempt,
            keyGroupRange: setup.keyGroupRange,
            maxParallelism: vertex.maxParallelism,
            describe: () => `subtask ${subtask} of '${op.name}'`,
          })
        : undefined;
      const operatorState = setup.stateBackend.createOperatorStateBackend(restored ? toEntries(restored.operator) : undefined, op.uid);
      const metrics: OperatorMetrics = { numLateRecordsDropped: 0, currentOutputWatermark: MIN_WATERMARK };
      this.members.push({ uid: op.uid, operatorId: op.operatorId, name: op.name, operator: instances[i]!, keyedState, operatorState, metrics });
    }
    for (const w of setup.writers.values()) w.timestamps = this.timestamps;
    const head = instances[0]!;
    this.head = head;
    this.input = this.#guarded(0);
    this.inputs = isTwoInputOperator(head) ? [this.#guarded(0, (v) => head.processElement1(v)), this.#guarded(0, (v) => head.processElement2(v))] : [this.input];
    const tagOf = (edgeId: number) => vertex.outputs.find((e) => e.id === edgeId)?.outputTag;
    const targetsOf = (chained: readonly number[], edges: readonly number[]): Output[] => [
      ...chained.map((next) => this.#guarded(next)),
      ...edges.map((edgeId): Output => setup.writers.get(edgeId)!),
    ];
    this.outputs = ops.map((op) => {
      const targets = targetsOf(op.chainedOutputs, op.networkOutputs.filter((id) => tagOf(id) === undefined));
      return targets.length === 1 ? targets[0]! : fanOut(targets, this.timestamps);
    });
    this.sideOutputs = ops.map((op) => {
      const tags = new Set([...op.chainedSideOutputs.map((c) => c.tag), ...op.networkOutputs.map(tagOf).filter((t) => t !== undefined)]);
      const byTag = new Map<string, Output>();
      for (const tag of tags) {
        const targets = targetsOf(
          op.chainedSideOutputs.filter((c) => c.tag === tag).map((c) => c.index),
          op.networkOutputs.filter((id) => tagOf(id) === tag),
        );
        byTag.set(tag, targets.length === 1 ? targets[0]! : fanOut(targets, this.timestamps));
      }
      return byTag;
    });
    this.eventTimeOutputs = ops.map((op, i) => this.#eventTimeOutput(i, [...op.chainedOutputs, ...op.chainedSideOutputs.map((c) => c.index)], op.networkOutputs.map((id) => setup.writers.get(id)!)));
  }

  /**
   * Watermarks and watermark status go to every output, side outputs included (as in Flink),
   * through the chained operators first and then to the channels, in order with the records.
   */
  #eventTimeOutput(index: number, chained: readonly number[], writers: readonly RecordWriter[]): EventTimeOutput {
    const metrics = this.members[index]!.metrics;
    return {
      emitWatermark: (watermark) => {
        metrics.currentOutputWatermark = watermark;
        for (const next of chained) this.#attemptSync(next, () => this.members[next]!.operator.processWatermark(watermark));
        for (const w of writers) w.broadcastEvent({ kind: 'watermark', timestamp: watermark });
      },
      emitWatermarkStatus: (idle) => {
        for (const next of chained) this.#attemptSync(next, () => this.members[next]!.operator.processWatermarkStatus(idle));
        for (const w of writers) w.broadcastEvent({ kind: 'watermark-status', idle });
      },
    };
  }

  /** Event time has advanced at the head of the chain (the task's input watermark, or a source's end). */
  processWatermark(watermark: number): void {
    this.#attemptSync(0, () => this.head.processWatermark(watermark));
  }

  processWatermarkStatus(idle: boolean): void {
    this.#attemptSync(0, () => this.head.processWatermarkStatus(idle));
  }

  #attemptSync(index: number, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (e instanceof OperatorFailure) throw e;
      const m = this.members[index]!;
      throw new OperatorFailure(e, m.name, m.uid, this.#vertexName, this.#subtask, this.#parallelism);
    }
  }

  #guarded(index: number, process?: (value: unknown) => void): Output {
    const member = this.members[index]!;
    const op = member.operator;
    const fail = (e: unknown): never => {
      if (e instanceof OperatorFailure) throw e;
      throw new OperatorFailure(e, member.name, member.uid, this.#vertexName, this.#subtask, this.#parallelism);
    };
    // One input (every member but a two-input head): the record goes straight in, no routing call per record.
    if (process === undefined) {
      return {
        collect(value: unknown): void {
          try {
            op.processElement(value);
          } catch (e) {
            fail(e);
          }
        },
      };
    }
    return {
      collect(value: unknown): void {
        try {
          process(value);
        } catch (e) {
          fail(e);
        }
      },
    };
  }

  /** Restores keyed state (asynchronously: it may be large), then opens the operators. */
  async open(info: Omit<TaskInfo, 'operatorName' | 'operatorUid'>): Promise<void> {
    for (let i = 0; i < this.members.length; i++) {
      const m = this.members[i]!;
      const restored = this.#setup.restore?.[m.uid];
      if (m.keyedState && restored) await this.#attempt(i, () => this.#setup.restoreKeyed(m.keyedState!, restored));
    }
    // Each operator's lines name it; the task's fields (vertex, subtask) come with info.log.
    // Open from the end of the chain backwards, so no operator emits into one that is not open.
    for (let i = this.members.length - 1; i >= 0; i--) {
      const m = this.members[i]!;
      await this.#attempt(i, () =>
        m.operator.open({
          ...info,
          operatorName: m.name,
          operatorUid: m.uid,
          log: info.log.child({ operator: m.uid }),
          output: this.outputs[i]!,
          keyedState: m.keyedState,
          operatorState: m.operatorState,
          timestamps: this.timestamps,
          eventTimeOutput: this.eventTimeOutputs[i]!,
          sideOutput: (tag: string) => this.sideOutputs[i]!.get(tag),
          processingTime: {
            now: () => this.#setup.processingTime.now(),
            registerTimer: (time, description, callback) => this.#setup.processingTime.registerTimer(time, description, (t) => this.#attemptSync(i, () => callback(t))),
          },
          autoWatermarkInterval: this.#setup.autoWatermarkInterval,
          ...(this.#setup.checkpointing ? { checkpointing: this.#setup.checkpointing } : {}),
          metrics: m.metrics,
          mailboxExecutor: { execute: (description, run) => this.#setup.mails.executor.execute(description, () => this.#attemptSync(i, run)) },
          inputThrottle: this.#setup.mails.throttle(i),
        }),
      );
    }
  }

  /** One input of a two-input head has ended; the chain's endInput() comes when all have. */
  endInputOf(input: number): void {
    const head = this.head;
    if (isTwoInputOperator(head)) this.#attemptSync(0, () => head.endInputOf?.(input));
  }

  async endInput(): Promise<void> {
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.operator.endInput());
  }

  ready(): Promise<void> | undefined {
    for (const m of this.members) {
      const r = m.operator.ready();
      if (r !== undefined) return r;
    }
    return undefined;
  }

  async prepareSnapshot(checkpointId: number, type: CheckpointType): Promise<void> {
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.operator.prepareSnapshot(checkpointId, type));
  }

  /** Each member's asynchronous snapshot part (undefined: none), its failure attributed to the operator. */
  snapshotAsync(checkpointId: number): Array<Promise<ReadonlyMap<string, OperatorStateEntry>> | undefined> {
    return this.members.map((m) => {
      const part = m.operator.snapshotAsync(checkpointId);
      return part?.catch((e: unknown) => {
        throw e instanceof OperatorFailure ? e : new OperatorFailure(e, m.name, m.uid, this.#vertexName, this.#subtask, this.#parallelism);
      });
    });
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.operator.notifyCheckpointComplete(checkpointId));
  }

  async notifyCheckpointAborted(checkpointId: number): Promise<void> {
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.operator.notifyCheckpointAborted(checkpointId));
  }

  /** The clean end (Flink's finishOperators): each operator finishes, head first; the first failure is the task's. */
  async finish(): Promise<void> {
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.operator.finish());
  }

  /**
   * Always the last call (Flink's closeAllOperators): after finish() on a clean end, alone on
   * cancellation or failure. Every operator is closed even when one fails (the attempt is over
   * either way); the first failure is thrown once all are. A second call waits for the first.
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    let failure: unknown;
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.operator.close()).catch((e: unknown) => (failure ??= e));
    // The backends let go of their state (an on-disk one, of its local files) once the operators are done with it.
    for (let i = 0; i < this.members.length; i++) await this.#attempt(i, () => this.members[i]!.keyedState?.close()).catch((e: unknown) => (failure ??= e));
    if (failure !== undefined) throw failure;
  }

  async #attempt(index: number, fn: () => void | Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (e instanceof OperatorFailure) throw e;
      const m = this.members[index]!;
      throw new OperatorFailure(e, m.name, m.uid, this.#vertexName, this.#subtask, this.#parallelism);
    }
  }
}

/** Every target gets the record with its timestamp, whatever an earlier target did to the task's current one. */
function fanOut(targets: readonly Output[], time: RecordTimestamp): Output {
  return {
    collect(value: unknown): void {
      const ts = time.current;
      for (let i = 0; i < targets.length; i++) {
        time.current = ts;
        targets[i]!.collect(value);
      }
    },
  };
}

function toEntries(state: OperatorStateMap): Map<string, OperatorStateEntry> {
  return new Map(Object.entries(state).map(([name, e]) => [name, { mode: e.mode, values: e.values, ...(e.serializer ? { serializer: e.serializer } : {}) }]));
}
