/**
 * Flink's `Time.seconds(5)` and the like, as milliseconds: wherever weir takes a span of time
 * (window sizes, out-of-orderness, lateness, idleness) a number of ms or a string such as '5 s'
 * does too.
 */
export const Time = {
  milliseconds: (n: number): number => n,
  seconds: (n: number): number => n * 1000,
  minutes: (n: number): number => n * 60_000,
  hours: (n: number): number => n * 3_600_000,
  days: (n: number): number => n * 86_400_000,
} as const;
