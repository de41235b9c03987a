import type { Logger } from '../log/logger.ts';
import type { FromTaskManager } from '../network/control-messages.ts';
import type { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import type { JobContext, JobState } from './job-states/job-state.ts';
import { Restarting } from './job-states/restarting.ts';

/** What a TaskManager's message reaches in the JobMaster. */
export interface MessageTarget {
  readonly state: JobState;
  readonly attempt: number;
  readonly log: Logger;
  readonly ctx: JobContext;
  readonly checkpoints: CheckpointCoordinator;
  /** A subtask failed with the failure the fault injector armed for this attempt. */
  readonly injectedFailed: () => void;
}

/** Routes a TaskManager's message to the job's state, its checkpoint coordinator, execution or sources. */
export function routeTaskManagerMessage(m: FromTaskManager, t: MessageTarget): void {
  const { ctx } = t;
  switch (m.type) {
    case 'ready':
    case 'heartbeat':
    case 'described':
      return;
    case 'canceled':
      if (t.state instanceof Restarting) t.state.canceled(m.tm, m.attempt);
      return;
    case 'log':
      t.log[m.level](m.message, m.fields);
      return;
    case 'deploy-failed':
      if (m.attempt === t.attempt || m.attempt === -1) t.state.onFailure(m.error);
      return;
  }
  if (m.type === 'task-status' && m.positions) ctx.execution.positions.set(`${m.vertexId}:${m.subtask}`, m.positions);
  // Only the attempt that failed: once the next one is deployed, its readers' positions are what counts.
  if (m.type === 'splits-undelivered') return void (m.attempt === t.attempt && ctx.execution.addUndelivered(m.vertexId, m.subtask, m.splits));
  if (m.attempt !== t.attempt) return;
  switch (m.type) {
    case 'task-status': {
      const entry = ctx.execution.entry(m.vertexId, m.subtask);
      if (!entry) return;
      entry.status = m.status;
      if (m.status === 'failed' && m.error?.injected) t.injectedFailed();
      t.state.onTaskStatus(entry, m.status, m.error);
      return;
    }
    case 'ack-checkpoint':
      t.checkpoints.receiveAck(m);
      return;
    case 'decline-checkpoint':
      t.checkpoints.receiveDecline(m);
      return;
    case 'metrics':
      ctx.execution.recordMetrics(m.tasks);
      return;
    case 'split-request':
      ctx.sources.get(m.vertexId)?.handleSplitRequest(m.subtask);
      return;
    case 'reader-event':
      ctx.sources.get(m.vertexId)?.handleReaderEvent(m.subtask, m.event);
      return;
    case 'watermark-report':
      ctx.alignment.report(m.vertexId, m.subtask, m.group, m.watermark);
      return;
  }
}
