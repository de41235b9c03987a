import type { Output } from './operators/stream-operator.ts';
import type { BarrierHandler } from './checkpointing/barrier-handler.ts';
import type { DataInputStatus } from './data-input-status.ts';
import type { InputGate } from './input-gate.ts';
import type { RecoveredChannelState, RecoveredInput } from './recovered-channel-state.ts';
import { NO_TIMESTAMP, type RecordTimestamp } from '../network/record-timestamp.ts';
import { unwrapRecord } from '../network/timestamped-record.ts';
import { StatusWatermarkValve, type ValveOutput } from './status-watermark-valve.ts';
import { MAX_WATERMARK } from '../api/watermark.ts';
import type { TaskActivity } from '../network/task-activity.ts';
import type { SourceInput } from './source-input.ts';
import type { TaskInput } from './task-input.ts';

/** Where a network input's records go: the head operator's input for each logical input, and which input each channel feeds. */
export interface NetworkInputTargets {
  /** By input index: the head's only input, or a two-input operator's first and second. */
  readonly heads: readonly Output[];
  /** By channel: the index of the input it belongs to. */
  readonly inputOfChannel: Uint8Array;
  /** By edge id: the index of the input its channels belong to (for restored in-flight records). */
  readonly inputOfEdge: ReadonlyMap<number, number>;
  /** Every channel of one input has ended (Flink's endInput(inputId)); the last input's end is the task's end of input. */
  readonly inputEnded: (input: number) => void;
}

/**
 * A task's input from its channels (Flink's StreamTaskNetworkInput, and for several logical
 * inputs its StreamMultipleInputProcessor): restored in-flight records first, then buffers and
 * events from the gate, one at a time. All channels of all inputs are one gate, so barriers align
 * across every channel whichever input it belongs to, and the watermark is the minimum over all
 * non-idle channels, which is the minimum over the inputs. Records go to the head's input the
 * channel belongs to. The input has ended when every channel has sent its end of data (barriers
 * may still follow, for the final checkpoint).
 */
export class NetworkInput implements TaskInput {
  readonly gate: InputGate;
  readonly stepBudget = 8;
  readonly runningActivity = 'processing';
  readonly source: SourceInput | undefined = undefined;
  readonly #barriers: BarrierHandler;
  readonly #heads: readonly Output[];
  readonly #inputOf: Uint8Array;
  readonly #inputOfEdge: ReadonlyMap<number, number>;
  readonly #inputEnded: (input: number) => void;
  readonly #recovered: RecoveredChannelState;
  readonly #ended: Uint8Array;
  /** By input: its channels that have not ended yet. */
  readonly #open: number[];
  readonly #time: RecordTimestamp;
  /** The task's input watermark: the minimum over its channels that are not idle. */
  readonly valve: StatusWatermarkValve;
  #endedCount = 0;
  recordsIn = 0;
  /** Bytes of the buffers that came serialized (from another thread); in-thread buffers are not. */
  bytesIn = 0;

  /** `eventTime`: where the task's input watermark goes when it advances (the chain's head). */
  constructor(gate: InputGate, barriers: BarrierHandler, targets: NetworkInputTargets, recovered: RecoveredChannelState, time: RecordTimestamp, eventTime: ValveOutput) {
    this.gate = gate;
    this.#barriers = barriers;
    this.#heads = targets.heads;
    this.#inputOf = targets.inputOfChannel;
    this.#inputOfEdge = targets.inputOfEdge;
    this.#inputEnded = targets.inputEnded;
    this.#recovered = recovered;
    this.#time = time;
    this.#ended = new Uint8Array(gate.channels.length);
    this.#open = targets.heads.map(() => 0);
    for (const input of targets.inputOfChannel) this.#open[input]!++;
    this.valve = new StatusWatermarkValve(gate.channels.length, eventTime);
  }

  get inPoolUsage(): number {
    return this.gate.usage;
  }

  get debloated(): { readonly bytes?: number; readonly records?: number } | undefined {
    return this.gate.debloated;
  }

  get inputWatermark(): number {
    return this.valve.watermark;
  }

  get eventTimeEnded(): boolean {
    return this.valve.watermark >= MAX_WATERMARK;
  }

  abortCheckpoint(checkpointId: number, reason: string): void {
    this.#barriers.abort(checkpointId, reason);
  }

  aligning(): Extract<TaskActivity, { kind: 'aligning' }> | undefined {
    return this.#barriers.activity();
  }

  /** Takes one buffer or event. */
  processInput(): DataInputStatus {
    const replayed = this.#recovered.next();
    if (replayed !== undefined) {
      this.#collectReplayed(replayed);
      return 'more-available';
    }
    const next = this.gate.pollNext();
    if (next === undefined) return 'nothing-available';
    const item = next.item;
    switch (item.kind) {
      case 'records': {
        const head = this.#heads[this.#inputOf[next.channel]!]!;
        if (item.timestamps !== undefined) this.#collectTimed(head, item.records, item.timestamps);
        else this.#collect(head, item.records);
        if (item.bytes > 0) {
          this.bytesIn += item.bytes;
          this.#barriers.noteProcessed(item.bytes);
        }
        return 'more-available';
      }
      case 'barrier':
        this.#barriers.onBarrier(next.channel, item);
        return 'more-available';
      case 'cancel-barrier':
        this.#barriers.onCancelBarrier(item.checkpointId);
        return 'more-available';
      case 'end-of-data':
        if (this.#ended[next.channel]) return 'more-available';
        this.#ended[next.channel] = 1;
        this.#barriers.onEndOfPartition(next.channel);
        return this.#channelEnded(next.channel);
      case 'watermark':
        this.valve.inputWatermark(next.channel, item.timestamp);
        return 'more-available';
      case 'watermark-status':
        this.valve.inputWatermarkStatus(next.channel, item.idle);
        return 'more-available';
    }
  }

  /** The last channel of an input ends that input; the last of all ends the task's input (whose end the task handles). */
  #channelEnded(channel: number): DataInputStatus {
    if (++this.#endedCount === this.#ended.length) return 'end-of-input';
    const input = this.#inputOf[channel]!;
    if (--this.#open[input]! === 0) this.#inputEnded(input);
    return 'more-available';
  }

  #collect(head: Output, records: readonly unknown[]): void {
    this.recordsIn += records.length;
    this.#time.current = NO_TIMESTAMP;
    for (let r = 0; r < records.length; r++) head.collect(records[r]);
  }

  /** Restored in-flight records of an unaligned checkpoint, with their timestamps. */
  #collectReplayed({ records, edgeId }: RecoveredInput): void {
    this.recordsIn += records.length;
    const time = this.#time;
    const head = this.#heads[this.#inputOfEdge.get(edgeId) ?? 0]!;
    for (const r of records) {
      const { value, timestamp } = unwrapRecord(r);
      time.current = timestamp;
      head.collect(value);
    }
  }

  #collectTimed(head: Output, records: readonly unknown[], timestamps: readonly number[]): void {
    this.recordsIn += records.length;
    const time = this.#time;
    for (let r = 0; r < records.length; r++) {
      time.current = timestamps[r]!;
      head.collect(records[r]);
    }
  }

  /**
   * Unaligned checkpoints: a priority barrier at the head of an input channel is taken now, even
   * when the outputs are full, and before a sink is asked whether it is ready, as Flink processes
   * priority events ahead of its suspended default action. Such a barrier overtakes all queued
   * data anyway (and is sent on with priority), so waiting for output credit would only hold it
   * back by however long downstream takes to free a buffer, at every hop. Restored input still to
   * be replayed must come first (it belongs before any barrier). `stop`: the snapshot a barrier
   * started must finish before anything else is taken.
   */
  takePriorityBarriers(stop: () => boolean): void {
    const gate = this.gate;
    if (this.#recovered.pending) return;
    for (let c = 0; c < gate.channels.length && !stop(); c++) {
      if (gate.isBlocked(c)) continue;
      const channel = gate.channels[c]!;
      const head = channel.peek();
      if (head === undefined || head.kind !== 'barrier' || !head.options.unaligned) continue;
      channel.poll();
      this.#barriers.onBarrier(c, head);
    }
  }
}
