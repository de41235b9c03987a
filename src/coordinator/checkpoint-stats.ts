import type { CheckpointFailureReport } from '../checkpoint/checkpoint-failure-reason.ts';
import type { TaskFigures } from '../rpc/job-master-gateway.ts';
import type { CheckpointStatus } from './checkpoint-status.ts';

export interface SubtaskCheckpointStats extends TaskFigures {
  readonly vertexId: string;
  readonly subtask: number;
  readonly ackTimestamp: number;
}

/** One checkpoint's record, in the shape the REST API and dashboard show (Flink's CheckpointStatistics). */
export interface CheckpointStats {
  readonly id: number;
  status: CheckpointStatus;
  readonly isSavepoint: boolean;
  readonly triggerTimestamp: number;
  latestAckTimestamp: number;
  numSubtasks: number;
  numAcknowledged: number;
  stateSize: number;
  /** Bytes written by this checkpoint (incremental checkpoints: only what changed); stateSize is the full size. */
  checkpointedSize: number;
  processedData: number;
  persistedData: number;
  endToEndDuration: number;
  unaligned: boolean;
  externalPath: string | undefined;
  failureTimestamp: number | undefined;
  failureMessage: string | undefined;
  failure: CheckpointFailureReport | undefined;
  readonly subtasks: SubtaskCheckpointStats[];
}

export interface CheckpointCounts {
  restored: number;
  total: number;
  inProgress: number;
  completed: number;
  failed: number;
}

/** Keeps the recent history of checkpoints with their figures (bounded, newest last). */
export class CheckpointStatsTracker {
  readonly #history: CheckpointStats[] = [];
  readonly #limit: number;
  readonly counts: CheckpointCounts = { restored: 0, total: 0, inProgress: 0, completed: 0, failed: 0 };
  latestRestored: { id: number; path: string; isSavepoint: boolean; timestamp: number } | undefined;
  readonly #completionListeners = new Set<(s: CheckpointStats) => void>();
  #latestCompleted: CheckpointStats | undefined;

  constructor(limit = 100) {
    this.#limit = limit;
  }

  triggered(id: number, isSavepoint: boolean, timestamp: number, numSubtasks: number): CheckpointStats {
    const s: CheckpointStats = {
      id,
      status: 'IN_PROGRESS',
      isSavepoint,
      triggerTimestamp: timestamp,
      latestAckTimestamp: timestamp,
      numSubtasks,
      numAcknowledged: 0,
      stateSize: 0,
      checkpointedSize: 0,
      processedData: 0,
      persistedData: 0,
      endToEndDuration: 0,
      unaligned: false,
      externalPath: undefined,
      failureTimestamp: undefined,
      failureMessage: undefined,
      failure: undefined,
      subtasks: [],
    };
    this.#history.push(s);
    if (this.#history.length > this.#limit) this.#history.shift();
    this.counts.total++;
    this.counts.inProgress++;
    return s;
  }

  acknowledged(s: CheckpointStats, sub: SubtaskCheckpointStats): void {
    s.subtasks.push(sub);
    s.numAcknowledged++;
    s.latestAckTimestamp = sub.ackTimestamp;
    s.stateSize += sub.stateBytes;
    s.checkpointedSize += sub.checkpointedBytes ?? sub.stateBytes;
    s.processedData += sub.processedBytes;
    s.persistedData += sub.persistedBytes;
    s.unaligned ||= sub.unaligned;
    s.endToEndDuration = sub.ackTimestamp - s.triggerTimestamp;
  }

  completed(s: CheckpointStats, path: string, now: number): void {
    s.status = 'COMPLETED';
    s.externalPath = path;
    s.endToEndDuration = now - s.triggerTimestamp;
    this.counts.inProgress--;
    this.counts.completed++;
    this.#latestCompleted = s;
    for (const listener of this.#completionListeners) listener(s);
  }

  /**
   * Follows completions as they happen (the history keeps only the latest: a scrape every 15 s
   * would miss some of checkpoints taken every 100 ms). Returns the unsubscribe.
   */
  onCompleted(listener: (s: CheckpointStats) => void): () => void {
    this.#completionListeners.add(listener);
    return () => this.#completionListeners.delete(listener);
  }

  failed(s: CheckpointStats, failure: CheckpointFailureReport, now: number): void {
    if (s.status !== 'IN_PROGRESS') return;
    s.status = 'FAILED';
    s.failureTimestamp = now;
    s.failureMessage = failure.message;
    s.failure = failure;
    s.endToEndDuration = now - s.triggerTimestamp;
    this.counts.inProgress--;
    this.counts.failed++;
  }

  /** A checkpoint that failed before it had an id (Flink's reportFailedCheckpointsWithoutInProgress): counted, not listed. */
  failedWithoutId(): void {
    this.counts.total++;
    this.counts.failed++;
  }

  restored(id: number, path: string, isSavepoint: boolean): void {
    this.counts.restored++;
    this.latestRestored = { id, path, isSavepoint, timestamp: Date.now() };
  }

  /** The latest completed checkpoint or savepoint, also once failures pushed it out of the history. */
  latestCompleted(): CheckpointStats | undefined {
    return this.#latestCompleted;
  }

  history(): readonly CheckpointStats[] {
    return this.#history;
  }

  get(id: number): CheckpointStats | undefined {
    return this.#history.find((s) => s.id === id);
  }
}
