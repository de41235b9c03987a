import type { SerializedError } from '../../rpc/serialized-error.ts';
import type { TaskStatus } from '../../network/task-status.ts';
import type { CompletedCheckpoint } from '../completed-checkpoint.ts';
import type { ExecutionEntry } from '../execution-graph.ts';
import type { JobContext, JobState } from './job-state.ts';
import { restartOrFail } from './restarting.ts';

/**
 * The attempt's subtasks are deployed (Flink's Executing): once all run, periodic checkpoints go;
 * when every subtask has consumed all its input the job finishes; a failure restarts or fails it.
 */
export class Running implements JobState {
  readonly status = 'RUNNING' as const;
  readonly #ctx: JobContext;

  constructor(ctx: JobContext) {
    this.#ctx = ctx;
  }

  onTaskStatus(_entry: ExecutionEntry, status: TaskStatus, error: SerializedError | undefined): void {
    const ex = this.#ctx.execution;
    if (status === 'failed') this.onFailure(error ?? { name: 'Error', message: 'task failed' });
    else if (status === 'running' && ex.every((s) => s !== 'initializing')) this.#ctx.allRunning();
    else if (status === 'end-of-data' && ex.every((s) => s === 'end-of-data' || s === 'finished')) this.#ctx.goToFinishing();
    else if (status === 'finished' && ex.every((s) => s === 'finished')) this.#ctx.finish('FINISHED', undefined);
  }

  onFailure(cause: SerializedError): void {
    restartOrFail(this.#ctx, cause);
  }

  cancel(): void {
    this.#ctx.finish('CANCELED', undefined);
  }

  stopWithSavepoint(targetDir: string, drain: boolean): Promise<CompletedCheckpoint> {
    return this.#ctx.goToStoppingWithSavepoint(targetDir, drain);
  }
}
