import type { SinkCheckpointing } from '../api/sink.ts';
import type { CheckpointStorageWorkerView } from '../checkpoint/checkpoint-storage.ts';
import type { TaskRestoreState } from '../checkpoint/state-handles.ts';
import type { Clock } from '../clock/clock.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { Logger } from '../log/logger.ts';
import type { FromTaskExecutor } from '../rpc/control-protocol.ts';
import type { BarrierMode } from './checkpointing/barrier-mode.ts';
import type { InputGate } from './input-gate.ts';
import type { RecordWriter } from './record-writer.ts';
import type { StateBackend } from '../state/state-backend.ts';

/** What a TaskManager gives a subtask it deploys. */
export interface TaskSetup {
  readonly jobId: string;
  /** The job's name (graph/job-name.ts): stable across resumes, unlike the id. */
  readonly jobName: string;
  readonly attempt: number;
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly gate: InputGate | undefined;
  readonly writers: ReadonlyMap<number, RecordWriter>;
  readonly splits: unknown[];
  readonly restore: TaskRestoreState | null;
  readonly barrierMode: BarrierMode;
  readonly report: (message: FromTaskExecutor) => void;
  readonly wake: () => void;
  readonly storage: CheckpointStorageWorkerView;
  readonly failAfterRecords?: number | undefined;
  /** execution.buffer-timeout.interval: partly filled buffers leave at least this often. */
  readonly bufferTimeoutMs?: number;
  /** Lines carry the job id, vertex, subtask and attempt. */
  readonly log: Logger;
  /** Processing time for timers and periodic watermarks (tests give a manual one). */
  readonly clock?: Clock;
  /** pipeline.auto-watermark-interval in ms (default 200; 0: no periodic watermarks). */
  readonly autoWatermarkInterval?: number;
  /** state.backend.type's factory (default: the heap backend). */
  readonly stateBackend?: StateBackend;
  /** The job's checkpoint interval and timeout, handed to operators (sinks check their targets against them). */
  readonly checkpointing?: SinkCheckpointing;
}
