import { BufferDebloater, type ChannelBudget } from '../network/buffer-debloater.ts';
import { SEGMENT_HEADER, type SegmentRing } from '../network/segment-ring.ts';
import { LOCAL_BACKLOG } from '../network/local-channel.ts';
import type { InputChannel } from '../network/input-channel.ts';
import type { TaskKey } from '../ids/task-key.ts';
import type { WeirConfig } from '../config/configuration.ts';

export interface InputDebloatingSettings {
  readonly targetMs: number;
  readonly periodMs: number;
  readonly samples: number;
}

/** Flink's smallest debloated buffer (taskmanager.memory.min-segment-size): a barrier or watermark still fits. */
const MIN_FILL_BYTES = 256;

interface DebloatedGate {
  readonly rings: SegmentRing[];
  /** The input channels the rings feed, which show the budget as their figure. */
  readonly ringChannels: InputChannel[];
  debloater: BufferDebloater | undefined;
  bytesSeen: number;
  budget: ChannelBudget | undefined;
  /** Channels within the TaskManager: their budget is in buffers of records (the same arithmetic). */
  readonly locals: InputChannel[];
  localDebloater: BufferDebloater | undefined;
  recordsSeen: number;
}

/**
 * Buffer debloating of the subtasks of one slot deployment: every period, each receiving
 * subtask's consumption of its channels from other threads is measured and each of those rings
 * is given the budget its BufferDebloater computes (the reader sets it; the writer obeys it).
 */
export class InputDebloating {
  readonly #s: InputDebloatingSettings;
  readonly #gates = new Map<TaskKey, DebloatedGate>();
  #timer: NodeJS.Timeout | undefined;
  #lastAt = 0;

  constructor(settings: InputDebloatingSettings) {
    this.#s = settings;
  }

  add(consumer: TaskKey, ring: SegmentRing, channel: InputChannel): void {
    const gate = this.#gate(consumer);
    gate.rings.push(ring);
    gate.ringChannels.push(channel);
    // The reader decodes one segment into the input channel and frees it: one more ahead of a barrier.
    gate.debloater ??= new BufferDebloater({ targetMs: this.#s.targetMs, samples: this.#s.samples, segments: ring.segments, segmentPayload: ring.segmentSize - SEGMENT_HEADER, minFillBytes: MIN_FILL_BYTES, heldBeyond: 1 });
    applyToRings(gate, gate.debloater, gate.debloater.budgetFor(gate.rings.length));
  }

  /** A channel within the TaskManager, `credits` buffers of `batchSize` records. */
  addLocal(consumer: TaskKey, input: InputChannel, credits: number, batchSize: number): void {
    const gate = this.#gate(consumer);
    gate.locals.push(input);
    // The sender's backlog and the batch it fills are ahead of a barrier too.
    gate.localDebloater ??= new BufferDebloater({ targetMs: this.#s.targetMs, samples: this.#s.samples, segments: credits, segmentPayload: batchSize, minFillBytes: 1, heldBeyond: LOCAL_BACKLOG + 1 });
    applyToLocals(gate, gate.localDebloater, gate.localDebloater.budgetFor(gate.locals.length));
  }

  #gate(consumer: TaskKey): DebloatedGate {
    const fresh: DebloatedGate = { rings: [], ringChannels: [], debloater: undefined, bytesSeen: 0, budget: undefined, locals: [], localDebloater: undefined, recordsSeen: 0 };
    return this.#gates.get(consumer) ?? this.#gates.set(consumer, fresh).get(consumer)!;
  }

  /** Starts the periods; returns how to stop them. */
  start(): () => void {
    if (this.#gates.size > 0) {
      this.#lastAt = performance.now();
      this.#timer = setInterval(() => this.resize(), this.#s.periodMs);
      this.#timer.unref();
    }
    return () => this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Each subtask's budget per channel now (undefined before the first period). */
  budgetOf(consumer: TaskKey): ChannelBudget | undefined {
    return this.#gates.get(consumer)?.budget;
  }

  /** One period: measure, size, apply. */
  resize(now = performance.now()): void {
    const elapsed = now - this.#lastAt;
    this.#lastAt = now;
    for (const gate of this.#gates.values()) {
      if (gate.debloater) {
        const bytes = gate.rings.reduce((n, r) => n + r.bytesRead, 0);
        const budget = gate.debloater.update(bytes - gate.bytesSeen, elapsed, gate.rings.length);
        gate.bytesSeen = bytes;
        gate.budget = budget;
        applyToRings(gate, gate.debloater, budget);
      }
      if (gate.localDebloater) {
        const records = gate.locals.reduce((n, c) => n + c.recordsTaken, 0);
        const budget = gate.localDebloater.update(records - gate.recordsSeen, elapsed, gate.locals.length);
        gate.recordsSeen = records;
        applyToLocals(gate, gate.localDebloater, budget);
      }
    }
  }
}

/** Every ring of the gate gets the budget (the reader sets it, the writer obeys), its channel the figure. */
function applyToRings(gate: DebloatedGate, debloater: BufferDebloater, budget: ChannelBudget): void {
  for (const ring of gate.rings) ring.setBudget(budget.segments, budget.fillBytes);
  for (const channel of gate.ringChannels) channel.debloatedBufferSize = debloater.heldAhead(budget);
}

/** Every channel of the gate within the TaskManager gets the budget at its sender, and the figure. */
function applyToLocals(gate: DebloatedGate, debloater: BufferDebloater, budget: ChannelBudget): void {
  for (const input of gate.locals) {
    input.debloat?.(budget.segments, budget.fillBytes);
    input.debloatedBufferRecords = debloater.heldAhead(budget);
  }
}

/** The slot's debloating when the job has it on (taskmanager.network.memory.buffer-debloat.enabled). */
export function inputDebloatingOf(config: WeirConfig): InputDebloating | undefined {
  if (!config['taskmanager.network.memory.buffer-debloat.enabled']) return undefined;
  return new InputDebloating({
    targetMs: config['taskmanager.network.memory.buffer-debloat.target'],
    periodMs: config['taskmanager.network.memory.buffer-debloat.period'],
    samples: config['taskmanager.network.memory.buffer-debloat.samples'],
  });
}
