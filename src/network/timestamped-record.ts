import { addExtension } from 'msgpackr';
import { NO_TIMESTAMP } from './record-timestamp.ts';
import type { RecordBuffer } from './stream-event.ts';

/**
 * A record with its event-time timestamp where in-flight records are kept apart from their
 * buffers: the channel state of an unaligned checkpoint. Records without a timestamp stay as
 * they are. A MessagePack extension of its own, so that channel state files keep it.
 */
export class TimestampedRecord {
  readonly value: unknown;
  readonly timestamp: number;
  constructor(value: unknown, timestamp: number) {
    this.value = value;
    this.timestamp = timestamp;
  }
}

addExtension({
  Class: TimestampedRecord,
  type: 0x57,
  write: (r: TimestampedRecord) => [r.timestamp, r.value],
  read: ([timestamp, value]: [number, unknown]) => new TimestampedRecord(value, timestamp),
});

/** The records of a buffer from `from` on, each with its timestamp where it has one. */
export function persistedRecords(buffer: RecordBuffer, from = 0): unknown[] {
  const ts = buffer.timestamps;
  const records = buffer.records;
  if (ts === undefined) return from === 0 ? records : records.slice(from);
  const out: unknown[] = [];
  for (let i = from; i < records.length; i++) out.push(ts[i] === NO_TIMESTAMP ? records[i] : new TimestampedRecord(records[i], ts[i]!));
  return out;
}

/** A persisted record's value and timestamp. */
export function unwrapRecord(r: unknown): { value: unknown; timestamp: number } {
  return r instanceof TimestampedRecord ? { value: r.value, timestamp: r.timestamp } : { value: r, timestamp: NO_TIMESTAMP };
}
