import type { JobPlan } from '../api/define-job.ts';
import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import type { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import { CheckpointTriggerError } from './checkpoint-trigger-error.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import type { JobStatus } from './job-status.ts';
import { SavepointError } from './savepoint-error.ts';

interface ManualTriggerContext {
  readonly jobId: string;
  readonly plan: JobPlan;
  readonly storage: CheckpointStorage;
  readonly checkpoints: CheckpointCoordinator;
  status(): JobStatus;
}

/**
 * The checkpoints a person asks for (savepoints, a manual checkpoint, the savepoint of a stop),
 * each refused with a typed error that names the job while it cannot be taken.
 */
export class ManualTriggers {
  readonly #c: ManualTriggerContext;

  constructor(context: ManualTriggerContext) {
    this.#c = context;
  }

  /** A savepoint, written self-contained to `<dir>/sp-<job-id-6>-<random>`; weir never deletes one. */
  async savepoint(dir: string | undefined): Promise<CompletedCheckpoint> {
    const targetDir = await this.savepointTarget(dir);
    try {
      return await this.#c.checkpoints.trigger({ type: 'savepoint', targetDir });
    } catch (e) {
      throw new SavepointError(this.#c.jobId, (e as Error).message);
    }
  }

  /**
   * A checkpoint now, besides the periodic ones (Flink 1.19's manual trigger). It goes out even with
   * max-concurrent-checkpoints in flight, as a savepoint does; the periodic timer counts from it.
   * Not while the job is restarting or its subtasks are not all running (the coordinator refuses),
   * and not at-most-once, whose jobs take no checkpoints.
   */
  async checkpoint(): Promise<CompletedCheckpoint> {
    const { jobId, plan, checkpoints } = this.#c;
    const status = this.#c.status();
    if (status !== 'RUNNING') throw new CheckpointTriggerError(jobId, `the job is ${status}, not RUNNING`);
    if (plan.config['execution.checkpointing.mode'] === 'at-most-once') throw new CheckpointTriggerError(jobId, 'the job is at-most-once: it takes no checkpoints');
    try {
      return await checkpoints.trigger({ type: 'checkpoint' });
    } catch (e) {
      throw new CheckpointTriggerError(jobId, (e as Error).message);
    }
  }

  /** The savepoint's own directory, made now: a target that cannot hold it fails before anything stops. */
  async savepointTarget(dir: string | undefined): Promise<string> {
    const { jobId, plan, storage } = this.#c;
    this.#mustRun();
    const base = dir ?? plan.config['execution.checkpointing.savepoint-dir'];
    if (!base) throw new SavepointError(jobId, 'no savepoint directory: give one, or set execution.checkpointing.savepoint-dir');
    const target = await storage.savepointLocation(base).catch((e: Error) => {
      throw new SavepointError(jobId, e.message);
    });
    this.#mustRun();
    return target;
  }

  #mustRun(): void {
    const status = this.#c.status();
    if (status !== 'RUNNING') throw new SavepointError(this.#c.jobId, `the job is ${status}, not RUNNING`);
  }
}
