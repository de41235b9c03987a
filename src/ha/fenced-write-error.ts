/**
 * A write refused for fencing: SUPERSEDED, the record was written by a newer leader (a higher
 * epoch), or LEADERSHIP_LOST, the writer's own lease is over (it was revoked, closed, or could not
 * renew in time).
 */
export type FencedWriteFailure = 'SUPERSEDED' | 'LEADERSHIP_LOST';

export class FencedWriteError extends Error {
  readonly reason: FencedWriteFailure;
  readonly key: string;
  readonly writerEpoch: number;
  /** SUPERSEDED: the epoch of the leader that owns the record now. */
  readonly recordEpoch: number | undefined;
  constructor(reason: FencedWriteFailure, key: string, writerEpoch: number, detail: { recordEpoch?: number; problem?: string } = {}) {
    const why =
      reason === 'SUPERSEDED'
        ? `the record belongs to leader epoch ${detail.recordEpoch}, the writer has epoch ${writerEpoch}: a newer leader has taken over`
        : `the writer (leader epoch ${writerEpoch}) no longer holds the leadership${detail.problem ? `: ${detail.problem}` : ''}`;
    super(`write to '${key}' refused: ${why}`);
    this.name = 'FencedWriteError';
    this.reason = reason;
    this.key = key;
    this.writerEpoch = writerEpoch;
    this.recordEpoch = detail.recordEpoch;
  }
}
