import { encodeWatermark } from '../network/wire-watermark.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { OperatorChain } from './operator-chain.ts';
import type { TaskInput } from './task-input.ts';
import type { TaskActivityTracker } from './task-activity-tracker.ts';
import type { TaskOutputs } from './task-outputs.ts';

export interface TaskMetricsParts {
  readonly vertexId: string;
  readonly subtask: number;
  readonly input: TaskInput;
  readonly outputs: TaskOutputs;
  readonly chain: OperatorChain;
  /** What the task is doing, as its activity tracker reports it. */
  readonly activity: ReturnType<TaskActivityTracker['report']>;
}

/** A subtask's figures for the JobMaster: records and bytes, buffer usage, watermarks, what it is doing. */
export function taskMetrics(p: TaskMetricsParts): TaskMetrics {
  const input = p.input;
  const source = input.source;
  return {
    vertexId: p.vertexId,
    subtask: p.subtask,
    recordsIn: input.recordsIn,
    recordsOut: p.outputs.recordsOut,
    bytesIn: input.bytesIn,
    bytesOut: p.outputs.bytesOut,
    inPoolUsage: input.inPoolUsage,
    outPoolUsage: p.outputs.usage,
    ...(input.debloated ? { debloated: input.debloated } : {}),
    // A source's own watermark stands for its input's (Flink's source tasks show theirs too).
    currentInputWatermark: encodeWatermark(input.inputWatermark ?? p.chain.members[0]!.metrics.currentOutputWatermark),
    operators: p.chain.members.map((m) => ({
      uid: m.uid,
      name: m.name,
      numLateRecordsDropped: m.metrics.numLateRecordsDropped,
      currentOutputWatermark: encodeWatermark(m.metrics.currentOutputWatermark),
      ...(m.keyedState?.figures ? { state: m.keyedState.figures() } : {}),
      ...(m.metrics.figures ? { figures: m.metrics.figures() } : {}),
    })),
    ...p.activity,
    ...(source?.operator.reader?.metrics ? { source: source.operator.reader.metrics() } : {}),
  };
}
