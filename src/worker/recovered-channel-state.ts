import { parseChannelStateKey } from '../checkpoint/channel-state-key.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { ChannelStateHandle, RestoredChannelState } from '../checkpoint/state-handles.ts';
import { keyGroupFor, operatorIndexForKeyGroup, type Key } from '../state/key-group.ts';
import type { RecordWriter } from './record-writer.ts';
import { unwrapRecord } from '../network/timestamped-record.ts';

export interface RecoveredChannelStateSetup {
  readonly channels: RestoredChannelState | null | undefined;
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly writers: ReadonlyMap<number, RecordWriter>;
  readonly read: (handle: ChannelStateHandle) => unknown[];
}

/** Restored in-flight input of one channel; the edge says which input of the task it belongs to. */
export interface RecoveredInput {
  readonly records: unknown[];
  readonly edgeId: number;
}

/**
 * An unaligned checkpoint's in-flight data coming back (Flink's recovered channel state):
 * persisted output goes out ahead of any new output, persisted input is replayed ahead of any new
 * input. After a rescale each subtask keeps the records that are now its own.
 */
export class RecoveredChannelState {
  readonly #replay: RecoveredInput[] = [];
  readonly #setup: RecoveredChannelStateSetup;

  constructor(setup: RecoveredChannelStateSetup) {
    this.#setup = setup;
  }

  /** Reads the persisted data back: output is sent now, input queued for replay. Once, when the task starts. */
  restore(): void {
    const setup = this.#setup;
    const channels = setup.channels;
    if (!channels) return;
    let rebalanced = 0;
    for (const { key, handle } of channels.inputs) {
      let records = setup.read(handle);
      const { edgeId } = parseChannelStateKey(key);
      if (channels.rescaled) {
        const { vertex, subtask } = setup;
        const edge = vertex.inputs.find((e) => e.id === edgeId)!;
        const p = vertex.parallelism;
        const maxP = vertex.maxParallelism;
        if (edge.partitioner.kind === 'hash') {
          const select = edge.partitioner.keySelector;
          records = records.filter((r) => operatorIndexForKeyGroup(keyGroupFor(select(unwrapRecord(r).value) as Key, maxP), p, maxP) === subtask);
        } else {
          records = records.filter(() => rebalanced++ % p === subtask);
        }
      }
      if (records.length > 0) this.#replay.push({ records, edgeId });
    }
    for (const { key, handle } of channels.outputs) {
      const { edgeId, channel } = parseChannelStateKey(key);
      const writer = setup.writers.get(edgeId);
      if (!writer) continue;
      const records = setup.read(handle);
      if (channels.rescaled) for (const r of records) writer.emitRestored(r);
      else writer.emitToChannel(channel, records);
    }
  }

  /** Whether restored input is still to be replayed (it belongs before any barrier in the channels). */
  get pending(): boolean {
    return this.#replay.length > 0;
  }

  /** The next buffer of restored input, oldest first (records with a timestamp are TimestampedRecords), with the edge it came by. */
  next(): RecoveredInput | undefined {
    return this.#replay.shift();
  }
}
