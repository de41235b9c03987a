import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { JobDirectory } from './job-directory.ts';
import type { CheckpointStats } from '../coordinator/checkpoint-stats.ts';
import type { TaskRates } from '../coordinator/task-rates.ts';
import type { TaskMetrics } from '../network/control-messages.ts';
import { isTerminal } from '../coordinator/job-status.ts';
import { collectedFamily, type Labels } from './collected-family.ts';
import { jobSummary } from './job-views.ts';
import { decodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';

/**
 * Flink's PrometheusReporter replaces what Prometheus does not allow in names, and by default in
 * label values too (`filterLabelValueCharacters`): `Source: numbers` is `Source:_numbers` there.
 */
const filtered = (value: string) => value.replace(/[^a-zA-Z0-9:_]/g, '_');

const JOB_LABELS = ['job_id', 'job_name', 'host'] as const;
const TASK_LABELS = ['job_id', 'job_name', 'task_id', 'task_name', 'task_attempt_id', 'task_attempt_num', 'subtask_index', 'tm_id', 'host'] as const;
const OPERATOR_LABELS = [...TASK_LABELS, 'operator_id', 'operator_name'] as const;

/** A watermark as Flink's reporter exports it: a long (Long.MIN_VALUE before the first, Long.MAX_VALUE at the end). */
const watermarkGauge = (wire: WireWatermark | undefined): number => {
  const wm = decodeWatermark(wire);
  return wm === -Infinity ? -9223372036854775808 : wm === Infinity ? 9223372036854775807 : Math.floor(wm);
};

interface TaskRow {
  readonly labels: Labels;
  readonly t: TaskMetrics;
  readonly rates: TaskRates | undefined;
}

/**
 * The figures under the names and labels Flink's Prometheus reporter gives them, so dashboards
 * made for Flink find them: `flink_<logical scope>_<metric>`, every figure a gauge (the reporter
 * exports counters and meters as gauges), labelled with the scope's variables. Task scope
 * (`flink_taskmanager_job_task_`): a weir vertex is a Flink task (its chained operators), one
 * series per subtask attempt. Job scope (`flink_jobmanager_job_`): the checkpoint statistics,
 * restarts and uptime.
 */
export function registerFlinkMetrics(registry: Registry, jobs: JobDirectory): void {
  const host = filtered(hostname());
  const jobLabels = (m: JobMaster): Labels => ({ job_id: m.jobId, job_name: filtered(jobSummary(m).name), host });
  const job = (name: string, help: string, f: (m: JobMaster) => number) =>
    collectedFamily(registry, 'gauge', `flink_jobmanager_job_${name}`, `${name} (scope: jobmanager_job): ${help}`, JOB_LABELS, () => jobs.list().map((m) => [jobLabels(m), f(m)] as const));

  collectedFamily(registry, 'gauge', 'flink_jobmanager_numRunningJobs', 'numRunningJobs (scope: jobmanager): jobs RUNNING.', ['host'], () => [[{ host }, jobs.list().filter((m) => m.status === 'RUNNING').length]]);
  // Flink's UpTimeGauge: since the job last went RUNNING, 0 while it is not, -1 once it ended.
  job('uptime', 'ms the job has been RUNNING without interruption (0 while not RUNNING, -1 once ended).', (m) => (m.runningSince !== undefined ? Date.now() - m.runningSince : isTerminal(m.status) ? -1 : 0));
  job('runningTime', 'ms since the job went RUNNING (0 while not RUNNING).', (m) => (m.runningSince !== undefined ? Date.now() - m.runningSince : 0));
  job('numRestarts', 'restarts since the job was submitted.', (m) => m.restarts);
  const counts = (m: JobMaster) => m.checkpoints.stats.counts;
  job('totalNumberOfCheckpoints', 'checkpoints triggered (in progress, completed, failed).', (m) => counts(m).total);
  job('numberOfInProgressCheckpoints', 'checkpoints in progress.', (m) => counts(m).inProgress);
  job('numberOfCompletedCheckpoints', 'checkpoints completed.', (m) => counts(m).completed);
  job('numberOfFailedCheckpoints', 'checkpoints failed.', (m) => counts(m).failed);
  // As Flink's: -1 until a checkpoint (or savepoint) completed.
  const latest = (f: (s: CheckpointStats) => number) => (m: JobMaster) => {
    const s = m.checkpoints.stats.latestCompleted();
    return s ? f(s) : -1;
  };
  job('lastCheckpointDuration', 'ms the latest completed checkpoint took end to end (-1: none).', latest((s) => Math.round(s.endToEndDuration)));
  // weir's checkpoints are full ones: the checkpointed size is the full size.
  job('lastCheckpointSize', 'bytes of state of the latest completed checkpoint (-1: none).', latest((s) => s.stateSize));
  job('lastCheckpointFullSize', 'bytes of state of the latest completed checkpoint (-1: none).', latest((s) => s.stateSize));
  job('lastCheckpointProcessedData', 'bytes processed during the alignment of the latest completed checkpoint (-1: none).', latest((s) => s.processedData));
  job('lastCheckpointPersistedData', 'bytes of in-flight data persisted by the latest completed checkpoint (-1: none).', latest((s) => s.persistedData));
  job('lastCompletedCheckpointId', 'id of the latest completed checkpoint (-1: none).', latest((s) => s.id));
  job('lastCheckpointCompletedTimestamp', 'when the latest completed checkpoint completed, ms since the epoch (-1: none).', latest((s) => s.triggerTimestamp + s.endToEndDuration));
  job('lastCheckpointRestoreTimestamp', 'when the job last restored a checkpoint or savepoint, ms since the epoch (-1: never).', (m) => m.checkpoints.stats.latestRestored?.timestamp ?? -1);

  const rows = (): TaskRow[] =>
    jobs.list().flatMap((m) => {
      const common = jobLabels(m);
      const taskManagers = new Map(m.taskStatuses().map((s) => [`${s.vertexId}:${s.subtask}`, s.taskManager]));
      return m.taskMetrics().map((t): TaskRow => {
        const vertex = m.graph.vertices.find((v) => v.id === t.vertexId);
        return {
          labels: {
            job_id: common.job_id!,
            job_name: common.job_name!,
            task_id: t.vertexId,
            task_name: filtered(vertex?.name ?? t.vertexId),
            // Flink's ExecutionAttemptID prints as <graph>_<vertex>_<subtask>_<attempt>.
            task_attempt_id: `${m.jobId}_${t.vertexId}_${t.subtask}_${m.attempt}`,
            task_attempt_num: String(m.attempt),
            subtask_index: String(t.subtask),
            // Flink's is <address>:<port>-<suffix>; weir's TaskManagers are threads of this process.
            tm_id: filtered(`${hostname()}:${process.pid}-${taskManagers.get(`${t.vertexId}:${t.subtask}`) ?? 0}`),
            host,
          },
          t,
          rates: m.taskRates(t.vertexId, t.subtask),
        };
      });
    });
  const task = (name: string, help: string, f: (row: TaskRow) => number) =>
    collectedFamily(registry, 'gauge', `flink_taskmanager_job_task_${name}`, `${name} (scope: taskmanager_job_task): ${help}`, TASK_LABELS, () => rows().map((r) => [r.labels, f(r)] as const));
  const rate = (f: (r: TaskRates) => number) => (row: TaskRow) => (row.rates ? f(row.rates) : 0);

  task('numRecordsIn', 'records the subtask took in (for sources: read).', (r) => r.t.recordsIn);
  task('numRecordsOut', 'records the subtask sent downstream.', (r) => r.t.recordsOut);
  task('numRecordsInPerSecond', 'records taken in per second (over the last 60 s).', rate((x) => x.recordsInPerSecond));
  task('numRecordsOutPerSecond', 'records sent per second (over the last 60 s).', rate((x) => x.recordsOutPerSecond));
  task('numBytesIn', 'bytes of record buffers received from other threads (0 within one thread).', (r) => r.t.bytesIn);
  task('numBytesOut', 'bytes of record buffers sent to other threads (0 within one thread).', (r) => r.t.bytesOut);
  task('numBytesInPerSecond', 'bytes received per second (over the last 60 s).', rate((x) => x.bytesInPerSecond));
  task('numBytesOutPerSecond', 'bytes sent per second (over the last 60 s).', rate((x) => x.bytesOutPerSecond));
  task('busyTimeMsPerSecond', 'ms per second neither idle nor backpressured (over the last 5 s).', rate((x) => x.busyTimeMsPerSecond));
  task('idleTimeMsPerSecond', 'ms per second with nothing to do (over the last 5 s).', rate((x) => x.idleTimeMsPerSecond));
  task('backPressuredTimeMsPerSecond', 'ms per second blocked on full outputs (over the last 5 s).', rate((x) => x.backPressuredTimeMsPerSecond));
  task('isBackPressured', '1 while the subtask is blocked on a full output.', (r) => (r.t.activity.kind === 'backpressured' ? 1 : 0));
  // Whole milliseconds, as Flink's.
  task('accumulateIdleTimeMs', 'ms idle in this attempt.', (r) => Math.round(r.t.idle));
  task('accumulateBackPressuredTimeMs', 'ms backpressured in this attempt.', (r) => Math.round(r.t.backpressure));
  // Flink serves the buffer usages under both scopes: the current Shuffle.Netty one and the older buffers one.
  for (const prefix of ['Shuffle_Netty_Input_Buffers_', 'buffers_']) task(`${prefix}inPoolUsage`, 'share of the input channels\' buffers in use (0..1).', (r) => r.t.inPoolUsage);
  for (const prefix of ['Shuffle_Netty_Output_Buffers_', 'buffers_']) task(`${prefix}outPoolUsage`, 'share of the output channels\' buffers in use (0..1).', (r) => r.t.outPoolUsage);
  task('currentInputWatermark', "the subtask's event time: the minimum watermark over its input channels that are not idle (a source's: its own), ms.", (r) => watermarkGauge(r.t.currentInputWatermark));

  // Operator scope (flink_taskmanager_job_task_operator_): the chained operators of each subtask.
  const operatorRows = () =>
    rows().flatMap((r) => {
      const master = jobs.list().find((m) => m.jobId === r.labels.job_id);
      const vertex = master?.graph.vertices.find((v) => v.id === r.t.vertexId);
      return (r.t.operators ?? []).map((o) => {
        const op = vertex?.operators.find((x) => x.uid === o.uid);
        return { labels: { ...r.labels, operator_id: op?.operatorId ?? o.uid, operator_name: filtered(o.name) }, o, kind: op?.spec.kind, head: vertex?.operators[0]?.uid === o.uid, isSource: vertex?.isSource === true };
      });
    });
  type OperatorRow = ReturnType<typeof operatorRows>[number];
  const operator = (name: string, help: string, f: (row: OperatorRow) => number | undefined) =>
    collectedFamily(registry, 'gauge', `flink_taskmanager_job_task_operator_${name}`, `${name} (scope: taskmanager_job_task_operator): ${help}`, OPERATOR_LABELS, () =>
      operatorRows().flatMap((r) => {
        const v = f(r);
        return v === undefined ? [] : [[r.labels, v] as const];
      }),
    );
  operator('currentOutputWatermark', 'the last watermark the operator passed on, ms.', (r) => watermarkGauge(r.o.currentOutputWatermark));
  operator('numLateRecordsDropped', 'window operators: records too late for all their windows that no side output took.', (r) => (r.kind === 'window' ? r.o.numLateRecordsDropped : undefined));
  // FLIP-33's watermarkLag of a source: how far its event time is behind the wall clock.
  operator('watermarkLag', 'sources: ms between now and the watermark the source sent (none before the first).', (r) => {
    const wm = decodeWatermark(r.o.currentOutputWatermark);
    return r.isSource && r.head && Number.isFinite(wm) ? Date.now() - wm : undefined;
  });
}
