/** Which clock a timer belongs to (Flink's TimeDomain). */
export type TimeDomain = 'EVENT_TIME' | 'PROCESSING_TIME';
export const TimeDomain = { EVENT_TIME: 'EVENT_TIME', PROCESSING_TIME: 'PROCESSING_TIME' } as const satisfies Record<TimeDomain, TimeDomain>;

/**
 * Time and timers as a process function sees them (Flink's TimerService). Timers belong to the
 * current key: at most one per key and timestamp (registering it again does nothing), they fire
 * in timestamp order in onTimer with their key current, never while processElement runs, and
 * they are keyed state (checkpointed, and redistributed with their key groups on a rescale).
 * Outside a keyed stream, registering one is a TimerServiceError.
 */
export interface TimerService {
  /** The task's clock in ms since the epoch. */
  currentProcessingTime(): number;
  /** The operator's current event time: -Infinity before the first watermark, Infinity at the end of input. */
  currentWatermark(): number;
  /** Fires once the watermark reaches `time` (>= time). */
  registerEventTimeTimer(time: number): void;
  /** Fires once the clock reaches `time`; one already due fires at once (also one that came due while the job was down). */
  registerProcessingTimeTimer(time: number): void;
  deleteEventTimeTimer(time: number): void;
  deleteProcessingTimeTimer(time: number): void;
}
