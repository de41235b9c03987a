/**
 * A leader's right to write (Flink's fencing token): its epoch, which grows with every new
 * leadership, and a synchronous check that the leadership still holds by the leader's own clock.
 * Records written under a fence carry its epoch, so a write with an older epoch than the record's
 * fails however long its writer was paused.
 */
export interface Fence {
  readonly epoch: number;
  readonly sessionId: string;
  /** Throws FencedWriteError (LEADERSHIP_LOST) when this leadership is over, before anything is written. */
  check(key: string): void;
}
