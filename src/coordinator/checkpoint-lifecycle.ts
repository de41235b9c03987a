import { describeStopReason, type StopReason } from '../lifecycle/service.ts';

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
 * next state (as the job states do). The scheduler's events are Flink's start- and
 * stopCheckpointScheduler (and a pause that lets checkpoints in flight complete); stop() ends the
 * coordinator for good. A state also carries the coordinator's epoch: every stopScheduler()
 * starts a new one, so a trigger whose id arrives from a slow counter after a failover can tell
 * that it belongs to an attempt that is gone, even when periodic triggering has started again.
 */
export abstract class CheckpointLifecycle {
  abstract readonly name: 'unscheduled' | 'periodic' | 'stopped';
  readonly epoch: number;

  constructor(epoch: number) {
    this.epoch = epoch;
  }

  /** Periodic triggers may go out. */
  get periodic(): boolean {
    return false;
  }

  /** Why nothing may complete any more: the job has ended. */
  get stopReason(): StopReason | undefined {
    return undefined;
  }

  /** Tasks are all running: periodic checkpoints may be triggered. */
  startScheduler(c: CheckpointLifecycleController): CheckpointLifecycle {
    const next = new Periodic(this.epoch);
    c.schedulePeriodic();
    return next;
  }

  /** No more periodic triggers; checkpoints in flight may still complete (end of input, a stop-with-savepoint). */
  pauseScheduler(c: CheckpointLifecycleController): CheckpointLifecycle {
    c.cancelPeriodic();
    return new Unscheduled(this.epoch);
  }

  /** A failover: no new triggers; pending checkpoints are aborted with `reason` as their failure message. */
  stopScheduler(c: CheckpointLifecycleController, reason: string): CheckpointLifecycle {
    c.abortPending(reason);
    // Last: an abort may have armed the timer again (a failure reschedules while still periodic).
    c.cancelPeriodic();
    return new Unscheduled(this.epoch + 1);
  }

  /** The job has ended: nothing may complete any more, not even a checkpoint already fully acknowledged. */
  stop(c: CheckpointLifecycleController, reason: StopReason): CheckpointLifecycle {
    return new Stopped(this.stopScheduler(c, describeStopReason(reason)).epoch, reason);
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

/** Before startScheduler(), after pauseScheduler() or stopScheduler(). */
export class Unscheduled extends CheckpointLifecycle {
  readonly name = 'unscheduled';
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
export class Stopped extends CheckpointLifecycle {
  readonly name = 'stopped';
  readonly #reason: StopReason;

  constructor(epoch: number, reason: StopReason) {
    super(epoch);
    this.#reason = reason;
  }

  override get stopReason(): StopReason {
    return this.#reason;
  }

  /** Ended is ended: no periodic triggers for a job that is gone. */
  override startScheduler(): CheckpointLifecycle {
    return this;
  }

  override pauseScheduler(): CheckpointLifecycle {
    return this;
  }

  /** Whatever is still pending is aborted; the job stays ended. */
  override stopScheduler(c: CheckpointLifecycleController, reason: string): CheckpointLifecycle {
    c.abortPending(reason);
    return this;
  }

  /** Stopped once, with the first reason: a second stop only aborts what is still pending. */
  override stop(c: CheckpointLifecycleController): CheckpointLifecycle {
    return this.stopScheduler(c, describeStopReason(this.#reason));
  }

  override admitsIdFrom(): boolean {
    return false;
  }
}
