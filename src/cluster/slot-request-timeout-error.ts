/** Not enough free slots came within slot.request.timeout: the job cannot be (re)started. */
export class SlotRequestTimeoutError extends Error {
  readonly jobId: string;
  readonly needed: number;
  /** Free slots when the request gave up. */
  readonly free: number;
  /** Slots the registered TaskManagers offer in all. */
  readonly offered: number;
  readonly taskManagers: number;
  readonly timeoutMs: number;

  constructor(o: { jobId: string; needed: number; free: number; offered: number; taskManagers: number; timeoutMs: number; detail: string }) {
    super(
      `job ${o.jobId} needs ${o.needed} slot${o.needed === 1 ? '' : 's'} but only ${o.free} ${o.free === 1 ? 'was' : 'were'} free after ${o.timeoutMs / 1000} s (slot.request.timeout); ` +
        `${o.taskManagers} TaskManager${o.taskManagers === 1 ? '' : 's'} offer${o.taskManagers === 1 ? 's' : ''} ${o.offered} slot${o.offered === 1 ? '' : 's'} in all${o.detail ? ` (${o.detail})` : ''}: ` +
        'start more TaskManagers (weir taskmanager --slots N) or lower the parallelism',
    );
    this.name = 'SlotRequestTimeoutError';
    this.jobId = o.jobId;
    this.needed = o.needed;
    this.free = o.free;
    this.offered = o.offered;
    this.taskManagers = o.taskManagers;
    this.timeoutMs = o.timeoutMs;
  }
}
