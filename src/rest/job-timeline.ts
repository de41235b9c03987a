import type { JobMaster } from '../coordinator/job-master.ts';

/**
 * The times Flink's job views carry that the JobMaster does not keep itself: when the job ended
 * (from its result: start + duration) and when its current attempt began (its latest restart).
 */
const ended = new WeakMap<JobMaster, number>();
const watched = new WeakSet<JobMaster>();

/** Starts recording the job's end; the REST server calls it when it starts serving the job. */
export function watchJob(m: JobMaster): void {
  if (watched.has(m)) return;
  watched.add(m);
  void m.result().then((r) => ended.set(m, m.startedAt + r.durationMs));
}

/** -1 while the job has not ended, as Flink. */
export function endTime(m: JobMaster): number {
  return ended.get(m) ?? -1;
}

/** When the subtasks of the current attempt were deployed: the job's start, or its latest restart. */
export function attemptStart(m: JobMaster): number {
  const restarted = m.exceptions.filter((e) => e.restarted).at(-1);
  return restarted?.timestamp ?? m.startedAt;
}

/** The latest change weir records: start, a failure, the end. */
export function lastModification(m: JobMaster): number {
  return Math.max(m.startedAt, m.exceptions.at(-1)?.timestamp ?? 0, endTime(m));
}

/** Milliseconds from `start` to the end, or to now while it lasts. */
export function durationSince(start: number, end: number, now: number): number {
  return (end === -1 ? now : end) - start;
}
