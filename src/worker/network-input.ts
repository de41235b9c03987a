import type { Output } from './operators/stream-operator.ts';
import type { BarrierHandler } from './checkpointing/barrier-handler.ts';
import type { DataInputStatus } from './data-input-status.ts';
import type { InputGate } from './input-gate.ts';
import type { RecoveredChannelState } from './recovered-channel-state.ts';
import { NO_TIMESTAMP, type RecordTimestamp } from '../network/record-timestamp.ts';
import { unwrapRecord } from '../network/timestamped-record.ts';
import { StatusWatermarkValve, type ValveOutput } from './status-watermark-valve.ts';

/**
 * A task's input from its channels (Flink's StreamTaskNetworkInput): restored in-flight records
 * first, then buffers and events from the gate, one at a time. Barriers go to the barrier
 * handler; the input has ended when every channel has sent its end of data (barriers may still
 * follow, for the final checkpoint).
 */
export class NetworkInput {
  readonly gate: InputGate;
  readonly #barriers: BarrierHandler;
  readonly #head: Output;
  readonly #recovered: RecoveredChannelState;
  readonly #ended: Uint8Array;
  readonly #time: RecordTimestamp;
  /** The task's input watermark: the minimum over its channels that are not idle. */
  readonly valve: StatusWatermarkValve;
  #endedCount = 0;
  recordsIn = 0;
  /** Bytes of the buffers that came serialized (from another thread); in-thread buffers are not. */
  bytesIn = 0;

  /** `eventTime`: where the task's input watermark goes when it advances (the chain's head). */
  constructor(gate: InputGate, barriers: BarrierHandler, head: Output, recovered: RecoveredChannelState, time: RecordTimestamp, eventTime: ValveOutput) {
    this.gate = gate;
    this.#barriers = barriers;
    this.#head = head;
    this.#recovered = recovered;
    this.#time = time;
    this.#ended = new Uint8Array(gate.channels.length);
    this.valve = new StatusWatermarkValve(gate.channels.length, eventTime);
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
      case 'records':
        if (item.timestamps !== undefined) this.#collectTimed(item.records, item.timestamps);
        else this.#collect(item.records);
        if (item.bytes > 0) {
          this.bytesIn += item.bytes;
          this.#barriers.noteProcessed(item.bytes);
        }
        return 'more-available';
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
        return ++this.#endedCount === this.#ended.length ? 'end-of-input' : 'more-available';
      case 'watermark':
        this.valve.inputWatermark(next.channel, item.timestamp);
        return 'more-available';
      case 'watermark-status':
        this.valve.inputWatermarkStatus(next.channel, item.idle);
        return 'more-available';
    }
  }

  #collect(records: readonly unknown[]): void {
    this.recordsIn += records.length;
    const head = this.#head;
    this.#time.current = NO_TIMESTAMP;
    for (let r = 0; r < records.length; r++) head.collect(records[r]);
  }

  /** Restored in-flight records of an unaligned checkpoint, with their timestamps. */
  #collectReplayed(records: readonly unknown[]): void {
    this.recordsIn += records.length;
    const time = this.#time;
    for (const r of records) {
      const { value, timestamp } = unwrapRecord(r);
      time.current = timestamp;
      this.#head.collect(value);
    }
  }

  #collectTimed(records: readonly unknown[], timestamps: readonly number[]): void {
    this.recordsIn += records.length;
    const head = this.#head;
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
