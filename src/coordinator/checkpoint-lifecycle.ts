/**
 * What a lifecycle state of the checkpoint coordinator does through the coordinator. The
 * coordinator's state is still the old one while an event's effects run.
 */
export interface CheckpointLifecycleController {
  /** Arms the periodic trigger timer anew (the request decider says when), whatever the current state. */
  schedulePeriodic(): void;
  cancelPeriodic(): void;
  /** Aborts every checkpoint waiting for acknowledgements. */
  abortPending(reason: string): void;
}

/**
 * The checkpoint coordinator's lifecycle, one object per state whose event methods return the
 * next state (as the job states do). A state also carries the coordinator's epoch: every stop()
 * starts a new one, so a trigger whose id arrives from a slow counter after a failover can tell
 * that it belongs to an attempt that is gone, even when periodic triggering has started again.
 */
export abstract class CheckpointLifecycle {
  abstract readonly name: 'stopped' | 'periodic' | 'shut-down';
  readonly epoch: number;

  constructor(epoch: number) {
    this.epoch = epoch;
  }

  /** Periodic triggers may go out. */
  get periodic(): boolean {
    return false;
  }

  /** Why nothing may complete any more: the job has ended. */
  get shutdownReason(): string | undefined {
    return undefined;
  }

  /** Tasks are all running: periodic checkpoints may be triggered. */
  start(c: CheckpointLifecycleController): CheckpointLifecycle {
    const next = new Periodic(this.epoch);
    c.schedulePeriodic();
    return next;
  }

  /** No more periodic triggers; checkpoints in flight may still complete (end of input). */
  stopPeriodic(c: CheckpointLifecycleController): CheckpointLifecycle {
    c.cancelPeriodic();
    return new Stopped(this.epoch);
  }

  /** A failover or the end of the job: no new triggers; pending checkpoints are aborted. */
  stop(c: CheckpointLifecycleController, reason: string): CheckpointLifecycle {
    c.abortPending(reason);
    // Last: an abort may have armed the timer again (a failure reschedules while still periodic).
    c.cancelPeriodic();
    return new Stopped(this.epoch + 1);
  }

  /** The job has ended: nothing may complete any more, not even a checkpoint already fully acknowledged. */
  shutdown(c: CheckpointLifecycleController, reason: string): CheckpointLifecycle {
    return new ShutDown(this.stop(c, reason).epoch, reason);
  }

  /** A trigger may go out now: any while periodic, a forced one (savepoint, final checkpoint) also while stopped. */
  admitsTrigger(force: boolean): boolean {
    return force;
  }

  /** A trigger that asked for its id in `epoch` may still go out once the id arrives. */
  admitsIdFrom(epoch: number): boolean {
    return epoch === this.epoch;
  }
}

/** Before start(), after stopPeriodic() or stop(). */
export class Stopped extends CheckpointLifecycle {
  readonly name = 'stopped';
}

export class Periodic extends CheckpointLifecycle {
  readonly name = 'periodic';

  override get periodic(): boolean {
    return true;
  }

  override admitsTrigger(): boolean {
    return true;
  }
}

/** Terminal: the job has ended. */
export class ShutDown extends CheckpointLifecycle {
  readonly name = 'shut-down';
  readonly #reason: string;

  constructor(epoch: number, reason: string) {
    super(epoch);
    this.#reason = reason;
  }

  override get shutdownReason(): string {
    return this.#reason;
  }

  /** Ended is ended: no periodic triggers for a job that is gone. */
  override start(): CheckpointLifecycle {
    return this;
  }

  override stopPeriodic(): CheckpointLifecycle {
    return this;
  }

  /** Whatever is still pending is aborted; the job stays ended. */
  override stop(c: CheckpointLifecycleController, reason: string): CheckpointLifecycle {
    c.abortPending(reason);
    return this;
  }

  override admitsIdFrom(): boolean {
    return false;
  }
}
