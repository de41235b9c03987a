// The counting sinks' reports of a `cdc` benchmark job (bench/jobs/cdc-bench.ts's
// CountingChangeSink, on a BroadcastChannel), and waiting for a condition on their sum: the end of
// a measurement is an event, not a poll.
import { BroadcastChannel } from 'node:worker_threads';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import type { CdcSinkReport } from '../jobs/cdc-bench.ts';

const TIMEOUT_MS = 120_000;

/** The sink subtasks' latest counts, and waiting for a condition on their sum. */
export class SinkCounts {
  readonly #channel: BroadcastChannel;
  readonly #latest = new Map<number, CdcSinkReport>();
  #waiters: Array<{ done: (t: { r: number; u: number }) => boolean; resolve: (at: number) => void }> = [];

  constructor(name: string) {
    this.#channel = new BroadcastChannel(name);
    this.#channel.unref();
    this.#channel.onmessage = (e) => {
      const report = (e as { data: CdcSinkReport }).data;
      this.#latest.set(report.subtask, report);
      const at = performance.now();
      const t = this.total();
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.done(t)) return true;
        w.resolve(at);
        return false;
      });
    };
  }

  total(): { r: number; c: number; u: number; d: number } {
    const t = { r: 0, c: 0, u: 0, d: 0 };
    for (const s of this.#latest.values()) {
      t.r += s.r;
      t.c += s.c;
      t.u += s.u;
      t.d += s.d;
    }
    return t;
  }

  /** performance.now() at the report that made `done` true; rejects if the job ends first or after the timeout. */
  until(what: string, job: JobMaster, done: (t: { r: number; u: number }) => boolean): Promise<number> {
    if (done(this.total())) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const fail = (e: Error) => {
        clearTimeout(timer);
        reject(e);
      };
      const timer = setTimeout(() => fail(new Error(`timed out after ${TIMEOUT_MS} ms waiting for ${what} (sink counts ${JSON.stringify(this.total())})`)), TIMEOUT_MS);
      void job.result().then((r) => fail(new Error(`the benchmark job ended ${r.status} while waiting for ${what}: ${r.error?.message ?? 'no error'}`)));
      this.#waiters.push({
        done,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }

  /** Snapshot rows by sink subtask. */
  rowsBySubtask(): number[] {
    return [...this.#latest.values()].sort((a, b) => a.subtask - b.subtask).map((r) => r.r);
  }

  close(): void {
    this.#channel.close();
  }
}
