import type { RuntimeContext, Collector } from './functions.ts';
import type { OutputTag } from './output-tag.ts';

/** What a ProcessJoinFunction is told about a joined pair (Flink's ProcessJoinFunction.Context). */
export interface ProcessJoinContext {
  leftTimestamp(): number;
  rightTimestamp(): number;
  /** The joined record's timestamp: the larger of the two. */
  timestamp(): number;
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Flink's ProcessJoinFunction, for `a.keyBy(k).intervalJoin(b.keyBy(k)).between(lo, hi).process(fn)`:
 * called once per pair of records with one key whose timestamps satisfy
 * `left.ts + lo <= right.ts <= left.ts + hi`. Emitted records carry the pair's larger timestamp.
 */
export interface ProcessJoinFunction<L, R, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement(left: L, right: R, ctx: ProcessJoinContext, out: Collector<O>): void;
  close?(): void | Promise<void>;
}
