import type { QueueOutput, RecordEntry, StreamElementQueue } from './stream-element-queue.ts';

/** The records between two watermarks: they may leave in any order among themselves. */
interface Segment {
  readonly incomplete: Set<RecordEntry>;
  completed: RecordEntry[];
}

type Item = { readonly segment: Segment } | { readonly watermark: number };

/**
 * A record leaves as soon as it completes, but records and watermarks keep their order relative
 * to each other (Flink's UnorderedStreamElementQueue): the queue is segments separated by
 * watermarks, and only the oldest segment may emit; a watermark leaves once the segment before it
 * is empty, so no result overtakes a watermark and none falls behind one.
 */
export class UnorderedQueue implements StreamElementQueue {
  readonly #items: Item[] = [];
  /** Which segment each incomplete record is in. */
  readonly #segmentOf = new Map<RecordEntry, Segment>();
  #records = 0;

  addRecord(entry: RecordEntry): void {
    const last = this.#items.at(-1);
    let segment: Segment;
    if (last !== undefined && 'segment' in last) segment = last.segment;
    else {
      segment = { incomplete: new Set(), completed: [] };
      this.#items.push({ segment });
    }
    segment.incomplete.add(entry);
    this.#segmentOf.set(entry, segment);
    this.#records++;
  }

  addWatermark(watermark: number): void {
    this.#items.push({ watermark });
  }

  complete(entry: RecordEntry, results: readonly unknown[]): void {
    entry.results = results;
    const segment = this.#segmentOf.get(entry);
    if (!segment) return;
    this.#segmentOf.delete(entry);
    segment.incomplete.delete(entry);
    segment.completed.push(entry);
  }

  emitCompleted(output: QueueOutput): void {
    const items = this.#items;
    while (items.length > 0) {
      const item = items[0]!;
      if ('watermark' in item) {
        items.shift();
        output.watermark(item.watermark);
        continue;
      }
      const segment = item.segment;
      const ready = segment.completed;
      segment.completed = [];
      for (const entry of ready) {
        this.#records--;
        output.record(entry);
      }
      // The oldest segment stays while it waits for records, or while it is the newest (new records join it).
      if (segment.incomplete.size > 0 || items.length === 1) break;
      items.shift();
    }
  }

  get size(): number {
    return this.#records;
  }

  get isEmpty(): boolean {
    return this.#records === 0 && !this.#items.some((i) => 'watermark' in i);
  }

  records(): RecordEntry[] {
    const out: RecordEntry[] = [];
    for (const item of this.#items) if ('segment' in item) out.push(...item.segment.completed, ...item.segment.incomplete);
    return out;
  }
}
