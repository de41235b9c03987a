import type { SourceOutput } from '../../api/source.ts';

/**
 * The per-split outputs of a reader (Flink's split-local watermark generation): every assigned
 * split gets its output at the first pollNext after it was assigned, records or not. A split
 * whose output opens only with its first record would neither hold the reader's watermark back
 * while it is empty nor ever be marked idle by withIdleness: the reader's watermark would run
 * ahead on the other splits alone, and the empty partition's first records would come late.
 * Outputs are made through the output pollNext is given (only there can the reader reach it).
 */
export class SplitOutputs<T> {
  /** Assigned, not opened yet: opened by the next openAssigned. */
  readonly #assigned = new Set<string>();
  readonly #open = new Set<string>();

  /** A split the reader now reads: its output opens at the next pollNext. */
  assign(splitId: string): void {
    if (!this.#open.has(splitId)) this.#assigned.add(splitId);
  }

  /** Whether some split still waits for its output (the reader should be polled to open it). */
  get pending(): boolean {
    return this.#assigned.size > 0;
  }

  /** Opens the output of every split assigned since the last call. */
  openAssigned(output: SourceOutput<T>): void {
    for (const id of this.#assigned) this.of(id, output);
    this.#assigned.clear();
  }

  /**
   * The split's output, asked of the output this pollNext was given, never kept from an earlier
   * poll: a wrapping reader may hand each poll an output of its own, whose split outputs count
   * that poll's records (the test suite's rate-limiting wrapper does).
   */
  of(splitId: string, output: SourceOutput<T>): SourceOutput<T> {
    this.#assigned.delete(splitId);
    this.#open.add(splitId);
    // An output without split outputs (a wrapper's) is the one output of every split.
    return output.createOutputForSplit?.(splitId) ?? output;
  }

  /** The split is finished or no longer read: its watermark no longer holds the reader back. */
  release(splitId: string, output: SourceOutput<T>): void {
    this.#assigned.delete(splitId);
    if (!this.#open.delete(splitId)) return;
    output.releaseOutputForSplit?.(splitId);
  }

  /** The splits whose outputs are open, for tests and descriptions. */
  get openIds(): string[] {
    return [...this.#open];
  }
}
