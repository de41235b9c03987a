import type { QueueOutput, RecordEntry, StreamElementQueue } from './stream-element-queue.ts';

type Item = { readonly record: RecordEntry } | { readonly watermark: number };

/** Entries leave strictly in the order they came (Flink's OrderedStreamElementQueue). */
export class OrderedQueue implements StreamElementQueue {
  #items: Item[] = [];
  /** Index of the oldest item still queued: shift() on a long array is linear. */
  #head = 0;
  #records = 0;

  addRecord(entry: RecordEntry): void {
    this.#items.push({ record: entry });
    this.#records++;
  }

  addWatermark(watermark: number): void {
    this.#items.push({ watermark });
  }

  complete(entry: RecordEntry, results: readonly unknown[]): void {
    entry.results = results;
  }

  emitCompleted(output: QueueOutput): void {
    const items = this.#items;
    while (this.#head < items.length) {
      const item = items[this.#head]!;
      if ('watermark' in item) {
        this.#head++;
        output.watermark(item.watermark);
        continue;
      }
      if (item.record.results === undefined) break;
      this.#head++;
      this.#records--;
      output.record(item.record);
    }
    if (this.#head > 1024 && this.#head * 2 > items.length) {
      this.#items = items.slice(this.#head);
      this.#head = 0;
    }
  }

  get size(): number {
    return this.#records;
  }

  get isEmpty(): boolean {
    return this.#head === this.#items.length;
  }

  records(): RecordEntry[] {
    const out: RecordEntry[] = [];
    for (let i = this.#head; i < this.#items.length; i++) {
      const item = this.#items[i]!;
      if ('record' in item) out.push(item.record);
    }
    return out;
  }
}
