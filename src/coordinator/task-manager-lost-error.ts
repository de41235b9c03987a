import { formatDuration } from '../config/duration.ts';

/** How a TaskManager was lost. */
export type TaskManagerLoss =
  | { readonly kind: 'heartbeat-timeout'; readonly silentMs: number; readonly timeoutMs: number }
  | { readonly kind: 'cancellation-timeout'; readonly timeoutMs: number }
  | { readonly kind: 'exited'; readonly cause: Error };

/**
 * A TaskManager that stopped answering, did not stop its subtasks, or ended: its subtasks fail
 * with it, named with what each was last reported doing, and it is replaced before the restart.
 */
export class TaskManagerLostError extends Error {
  readonly taskManager: number;
  readonly loss: TaskManagerLoss['kind'];
  /** Its subtasks, each with its last reported activity. */
  readonly subtasks: readonly string[];

  constructor(taskManager: number, where: string, loss: TaskManagerLoss, subtasks: readonly string[]) {
    const doing = subtasks.length > 0 ? `; its subtasks, as last reported: ${subtasks.join('; ')}` : '';
    super(`TaskManager ${taskManager} (${where}) ${describe(loss)}${doing}`, loss.kind === 'exited' ? { cause: loss.cause } : undefined);
    this.name = 'TaskManagerLostError';
    this.taskManager = taskManager;
    this.loss = loss.kind;
    this.subtasks = subtasks;
  }
}

function describe(loss: TaskManagerLoss): string {
  switch (loss.kind) {
    case 'heartbeat-timeout':
      return `has not answered heartbeats for ${formatDuration(loss.silentMs)} (heartbeat.timeout ${formatDuration(loss.timeoutMs)}): its thread is blocked, e.g. by user code in a busy loop or a long synchronous call`;
    case 'cancellation-timeout':
      return `did not stop its subtasks within task.cancellation.timeout (${formatDuration(loss.timeoutMs)}) after they were cancelled`;
    case 'exited':
      return `was lost: ${loss.cause.message}`;
  }
}
