// CPU time per thread of this process, from Linux's /proc/self/task/<tid>/stat, sampled while
// something runs: threads that end before the last sample (a TaskManager's worker thread at the
// end of a job) keep the last time seen. What it shows that process-wide CPU does not: how much
// of the work is on the threads that run tasks and how much on the rest (V8's garbage-collection
// and compiler helper threads, the JobManager's thread), which a one-thread job gets on an idle
// second core while a two-thread job competes with it for the same two.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10;

/** user + system time of every live thread, ms (USER_HZ ticks of 10 ms), by thread id; empty where /proc is missing. */
function threadTimes(): Map<string, number> {
  const times = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return times;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(tid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

export interface ThreadCpuSplit {
  /** CPU ms of the `busiest` threads that used the most CPU. */
  readonly busiest: number;
  /** CPU ms of every other thread. */
  readonly rest: number;
}

export class ThreadCpuSampler {
  readonly #start = threadTimes();
  readonly #seen = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(everyMs = 50) {
    this.#timer = setInterval(() => this.#sample(), everyMs);
    this.#timer.unref();
  }

  #sample(): void {
    for (const [tid, ms] of threadTimes()) this.#seen.set(tid, Math.max(this.#seen.get(tid) ?? 0, ms));
  }

  /** Stops sampling; the CPU used since the start by the `busiest` threads that used the most, and by the others; undefined without /proc. */
  stop(busiest: number): ThreadCpuSplit | undefined {
    this.#sample();
    clearInterval(this.#timer);
    if (this.#seen.size === 0) return undefined;
    const used = [...this.#seen].map(([tid, ms]) => ms - (this.#start.get(tid) ?? 0)).sort((a, b) => b - a);
    const top = used.slice(0, busiest).reduce((a, b) => a + b, 0);
    return { busiest: top, rest: used.slice(busiest).reduce((a, b) => a + b, 0) };
  }
}
