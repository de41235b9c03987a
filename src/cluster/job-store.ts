import type { JobMaster } from '../coordinator/job-master.ts';
import { isTerminal } from '../coordinator/job-status.ts';
import type { JobDirectory } from '../rest/job-directory.ts';

/**
 * The jobs of a JobManager process: running ones, and ended ones (finished, failed, cancelled,
 * with their exceptions and checkpoint history) kept for reading until more than
 * jobstore.max-capacity have ended, when the oldest ended one goes (Flink's job store).
 */
export class JobStore implements JobDirectory {
  readonly #capacity: number;
  readonly #jobs: JobMaster[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  add(master: JobMaster): void {
    this.#jobs.push(master);
    void master.result().then(() => this.#evict());
  }

  list(): readonly JobMaster[] {
    return this.#jobs;
  }

  /** A suspended job this JobManager recovers again as leader: the new JobMaster takes its place. */
  remove(master: JobMaster): void {
    const i = this.#jobs.indexOf(master);
    if (i >= 0) this.#jobs.splice(i, 1);
  }

  get(jobId: string): JobMaster | undefined {
    return this.#jobs.find((m) => m.jobId === jobId);
  }

  #evict(): void {
    let ended = this.#jobs.filter((m) => isTerminal(m.status)).length;
    for (let i = 0; i < this.#jobs.length && ended > this.#capacity; ) {
      if (isTerminal(this.#jobs[i]!.status)) {
        this.#jobs.splice(i, 1);
        ended--;
      } else i++;
    }
  }
}
