import type { CheckpointStats } from '../coordinator/checkpoint-stats.ts';
import type { JobMaster } from '../coordinator/job-master.ts';
import { checkpointHint } from '../coordinator/checkpoint-doctor.ts';
import type {
  CheckpointConfigView,
  CheckpointDetailsView,
  CheckpointsOverviewView,
  CheckpointSubtasksView,
  CheckpointVertexView,
  CheckpointView,
  ProcessingModeView,
  StatisticsView,
  SubtaskCheckpointView,
} from './rest-views.ts';

function statistics(values: readonly number[]): StatisticsView {
  if (values.length === 0) return { min: 0, max: 0, avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return {
    min: sorted[0]!,
    max: sorted.at(-1)!,
    avg: Math.round(values.reduce((a, b) => a + b, 0) / values.length),
    p50: q(0.5),
    p90: q(0.9),
    p95: q(0.95),
    p99: q(0.99),
    p999: q(0.999),
  };
}

function checkpointView(s: CheckpointStats): CheckpointView {
  return {
    className: s.status === 'COMPLETED' ? 'completed' : s.status === 'FAILED' ? 'failed' : 'in_progress',
    id: s.id,
    status: s.status,
    is_savepoint: s.isSavepoint,
    checkpoint_type: s.isSavepoint ? 'SAVEPOINT' : s.unaligned ? 'UNALIGNED_CHECKPOINT' : 'CHECKPOINT',
    trigger_timestamp: s.triggerTimestamp,
    latest_ack_timestamp: s.latestAckTimestamp,
    checkpointed_size: s.checkpointedSize,
    state_size: s.stateSize,
    end_to_end_duration: Math.round(s.endToEndDuration),
    alignment_buffered: 0,
    processed_data: s.processedData,
    persisted_data: s.persistedData,
    num_subtasks: s.numSubtasks,
    num_acknowledged_subtasks: s.numAcknowledged,
    unaligned: s.unaligned,
    ...(s.externalPath ? { external_path: s.externalPath, discarded: false } : {}),
    ...(s.failureMessage ? { failure_timestamp: s.failureTimestamp, failure_message: s.failureMessage, failure_hint: checkpointHint(s.failure) ?? null } : {}),
  };
}

/** GET /jobs/:id/checkpoints (Flink's CheckpointingStatistics). */
export function checkpointsOverview(m: JobMaster): CheckpointsOverviewView {
  const stats = m.checkpoints.stats;
  const history = stats.history();
  const completed = history.filter((s) => s.status === 'COMPLETED');
  const latest = (pred: (s: CheckpointStats) => boolean) => {
    const s = [...history].reverse().find(pred);
    return s ? checkpointView(s) : null;
  };
  const r = stats.latestRestored;
  return {
    counts: { restored: stats.counts.restored, total: stats.counts.total, in_progress: stats.counts.inProgress, completed: stats.counts.completed, failed: stats.counts.failed },
    summary: {
      checkpointed_size: statistics(completed.map((s) => s.checkpointedSize)),
      state_size: statistics(completed.map((s) => s.stateSize)),
      end_to_end_duration: statistics(completed.map((s) => Math.round(s.endToEndDuration))),
      processed_data: statistics(completed.map((s) => s.processedData)),
      persisted_data: statistics(completed.map((s) => s.persistedData)),
    },
    latest: {
      completed: latest((s) => s.status === 'COMPLETED' && !s.isSavepoint),
      savepoint: latest((s) => s.status === 'COMPLETED' && s.isSavepoint),
      failed: latest((s) => s.status === 'FAILED'),
      restored: r ? { id: r.id, restore_timestamp: r.timestamp, is_savepoint: r.isSavepoint, external_path: r.path } : null,
    },
    history: [...history].reverse().map(checkpointView),
  };
}

/** GET /jobs/:id/checkpoints/config. */
export function checkpointConfig(m: JobMaster): CheckpointConfigView {
  const c = m.plan.config;
  return {
    mode: c['execution.checkpointing.mode'].replaceAll('-', '_') as ProcessingModeView,
    interval: c['execution.checkpointing.interval'] ?? -1,
    timeout: c['execution.checkpointing.timeout'],
    min_pause: c['execution.checkpointing.min-pause'],
    max_concurrent: c['execution.checkpointing.max-concurrent-checkpoints'],
    externalization: {
      enabled: true,
      delete_on_cancellation: c['execution.checkpointing.externalized-checkpoint-retention'] === 'DELETE_ON_CANCELLATION',
    },
    state_backend: 'heap',
    checkpoint_storage: 'filesystem',
    unaligned_checkpoints: c['execution.checkpointing.unaligned.enabled'],
    tolerable_failed_checkpoints: c['execution.checkpointing.tolerable-failed-checkpoints'],
    aligned_checkpoint_timeout: c['execution.checkpointing.aligned-checkpoint-timeout'],
    checkpoints_after_tasks_finish: true,
    interval_during_backlog: c['execution.checkpointing.interval-during-backlog'],
    checkpoint_directory: m.checkpointDirectory,
    savepoint_directory: c['execution.checkpointing.savepoint-dir'] ?? null,
  };
}

/**
 * A checkpoint of the history by id, or `latest`: weir's alias for the newest one (Flink's
 * specification has no such path; the dashboard and scripts need not look the id up first).
 */
export function checkpointId(m: JobMaster, param: string): number {
  if (param !== 'latest') return Number(param);
  const newest = m.checkpoints.stats.history().at(-1);
  if (!newest) throw Object.assign(new Error('no checkpoint has been triggered yet'), { statusCode: 404 });
  return newest.id;
}

function found(m: JobMaster, id: number): CheckpointStats {
  const s = m.checkpoints.stats.get(id);
  if (!s) throw Object.assign(new Error(`checkpoint ${id} not found (only the most recent are kept)`), { statusCode: 404 });
  return s;
}

/** GET /jobs/:id/checkpoints/details/:cid: the checkpoint with per-vertex summaries. */
export function checkpointDetails(m: JobMaster, id: number): CheckpointDetailsView {
  const s = found(m, id);
  const tasks: Record<string, CheckpointVertexView> = {};
  for (const v of m.graph.vertices) {
    const subs = s.subtasks.filter((x) => x.vertexId === v.id);
    tasks[v.id] = {
      id: s.id,
      vertex_id: v.id,
      name: v.name,
      latest_ack_timestamp: subs.length ? Math.max(...subs.map((x) => x.ackTimestamp)) : -1,
      checkpointed_size: subs.reduce((n, x) => n + (x.checkpointedBytes ?? x.stateBytes), 0),
      alignment_buffered: 0,
      status: subs.length === v.parallelism ? 'COMPLETED' : s.status === 'FAILED' ? 'FAILED' : 'IN_PROGRESS',
      num_subtasks: v.parallelism,
      num_acknowledged_subtasks: subs.length,
      state_size: subs.reduce((n, x) => n + x.stateBytes, 0),
      end_to_end_duration: subs.length ? Math.max(...subs.map((x) => x.ackTimestamp - s.triggerTimestamp)) : 0,
      processed_data: subs.reduce((n, x) => n + x.processedBytes, 0),
      persisted_data: subs.reduce((n, x) => n + x.persistedBytes, 0),
    };
  }
  return { ...checkpointView(s), tasks };
}

/** GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex: per-subtask figures. */
export function checkpointSubtasks(m: JobMaster, id: number, vertexId: string): CheckpointSubtasksView {
  const s = found(m, id);
  const v = m.graph.vertices.find((x) => x.id === vertexId);
  if (!v) throw Object.assign(new Error(`vertex ${vertexId} not found`), { statusCode: 404 });
  const subs = s.subtasks.filter((x) => x.vertexId === v.id);
  const pick = (f: (x: (typeof subs)[number]) => number) => statistics(subs.map(f));
  return {
    id: s.id,
    status: s.status,
    summary: {
      checkpoint_duration: { sync: pick((x) => Math.round(x.syncMs)), async: pick((x) => Math.round(x.asyncMs)) },
      alignment: { processed: pick((x) => x.processedBytes), persisted: pick((x) => x.persistedBytes), duration: pick((x) => Math.round(x.alignmentMs)) },
      start_delay: pick((x) => Math.round(x.startDelayMs)),
      state_size: pick((x) => x.stateBytes),
      checkpointed_size: pick((x) => x.checkpointedBytes ?? x.stateBytes),
    },
    subtasks: Array.from({ length: v.parallelism }, (_, i): SubtaskCheckpointView => {
      const x = subs.find((y) => y.subtask === i);
      if (!x) return { className: 'pending', index: i, status: 'pending_or_failed' };
      return {
        className: 'completed',
        index: i,
        status: 'completed',
        checkpointed_size: x.checkpointedBytes ?? x.stateBytes,
        aborted: false,
        ack_timestamp: x.ackTimestamp,
        end_to_end_duration: x.ackTimestamp - s.triggerTimestamp,
        state_size: x.stateBytes,
        checkpoint: { sync: Math.round(x.syncMs), async: Math.round(x.asyncMs) },
        alignment: { processed: x.processedBytes, persisted: x.persistedBytes, duration: Math.round(x.alignmentMs) },
        start_delay: Math.round(x.startDelayMs),
        unaligned_checkpoint: x.unaligned,
      };
    }),
  };
}
