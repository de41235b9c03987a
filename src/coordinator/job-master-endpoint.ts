import type { Logger } from '../log/logger.ts';
import type { FromTaskExecutor } from '../rpc/control-protocol.ts';
import { dispatchMessage } from '../rpc/gateway-proxy.ts';
import { UnknownMessageError } from '../rpc/unknown-message-error.ts';
import { JOB_MASTER_METHODS, type CheckpointAcknowledgement, type CheckpointDecline, type JobMasterGateway, type TaskMetrics, type TaskStatusUpdate } from '../rpc/job-master-gateway.ts';
import type { SerializedError } from '../rpc/serialized-error.ts';
import type { OfAttempt, OfSubtask } from '../rpc/task-executor-gateway.ts';
import type { WireWatermark } from '../network/wire-watermark.ts';
import { taskKey } from '../ids/task-key.ts';
import type { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import type { JobContext, JobState } from './job-states/job-state.ts';
import { Restarting } from './job-states/restarting.ts';

/** What a slot executor's calls reach in the JobMaster. */
export interface JobMasterParts {
  /** The job's state and attempt now (they change between calls). */
  readonly state: () => JobState;
  readonly attempt: () => number;
  readonly log: Logger;
  readonly ctx: JobContext;
  readonly checkpoints: CheckpointCoordinator;
  /** A subtask failed with the failure the fault injector armed for this attempt. */
  readonly injectedFailed: () => void;
}

/**
 * The JobMaster's side of the JobMasterGateway: each call of a slot executor goes to the job's
 * state, its checkpoint coordinator, its execution graph, its sources or its executor pool. Calls
 * of another attempt than the current one are dropped, except those that say an attempt ended
 * (canceled, deployFailed) and where its undelivered splits and readers' positions went.
 */
export class JobMasterEndpoint implements JobMasterGateway {
  readonly #p: JobMasterParts;

  constructor(parts: JobMasterParts) {
    this.#p = parts;
  }

  /** A message from a slot executor: a call of this gateway. One of another kind is logged and dropped. */
  receive(message: FromTaskExecutor): void {
    try {
      dispatchMessage(JOB_MASTER_METHODS, this, message);
    } catch (e) {
      if (!(e instanceof UnknownMessageError)) throw e;
      this.#p.log.warn(`a TaskManager sent a message the JobMaster does not know (${e.message}); ignored`);
    }
  }

  ready(): void {}

  heartbeat(m: { readonly tm: number }): void {
    this.#p.ctx.pool.heartbeatAnswered(m.tm);
  }

  described(m: { readonly requestId: number; readonly tasks: TaskMetrics[] }): void {
    this.#p.ctx.pool.describeAnswered(m.requestId, m.tasks);
  }

  canceled(m: OfAttempt & { readonly tm: number }): void {
    const state = this.#p.state();
    if (state instanceof Restarting) state.canceled(m.tm, m.attempt);
  }

  log(m: { readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string; readonly fields: Record<string, unknown> }): void {
    this.#p.log[m.level](m.message, m.fields);
  }

  deployFailed(m: OfAttempt & { readonly error: SerializedError }): void {
    if (m.attempt === this.#p.attempt() || m.attempt === -1) this.#p.state().onFailure(m.error);
  }

  updateTaskStatus(m: TaskStatusUpdate): void {
    const { ctx } = this.#p;
    // Any attempt's: at-most-once restarts from where the failed attempt's readers stood.
    if (m.positions) ctx.execution.positions.set(taskKey(m.vertexId, m.subtask), m.positions);
    if (!this.#current(m)) return;
    const entry = ctx.execution.entry(m.vertexId, m.subtask);
    if (!entry) return;
    entry.status = m.status;
    if (m.status === 'failed' && m.error?.injected) this.#p.injectedFailed();
    this.#p.state().onTaskStatus(entry, m.status, m.error);
  }

  /** Only the attempt that failed: once the next one is deployed, its readers' positions are what counts. */
  splitsUndelivered(m: OfSubtask & { readonly splits: unknown[] }): void {
    if (this.#current(m)) this.#p.ctx.execution.addUndelivered(m.vertexId, m.subtask, m.splits);
  }

  acknowledgeCheckpoint(m: CheckpointAcknowledgement): void {
    if (this.#current(m)) this.#p.checkpoints.receiveAck(m);
  }

  declineCheckpoint(m: CheckpointDecline): void {
    if (this.#current(m)) this.#p.checkpoints.receiveDecline(m);
  }

  reportMetrics(m: OfAttempt & { readonly tasks: TaskMetrics[] }): void {
    if (this.#current(m)) this.#p.ctx.execution.recordMetrics(m.tasks);
  }

  requestSplit(m: OfSubtask): void {
    if (this.#current(m)) this.#p.ctx.sources.get(m.vertexId)?.handleSplitRequest(m.subtask);
  }

  sendReaderEvent(m: OfSubtask & { readonly event: unknown }): void {
    if (this.#current(m)) this.#p.ctx.sources.get(m.vertexId)?.handleReaderEvent(m.subtask, m.event);
  }

  reportWatermark(m: OfSubtask & { readonly group: string; readonly watermark: WireWatermark }): void {
    if (this.#current(m)) this.#p.ctx.alignment.report(m.vertexId, m.subtask, m.group, m.watermark);
  }

  #current(m: OfAttempt): boolean {
    return m.attempt === this.#p.attempt();
  }
}
