import { INCREMENTAL_METADATA_VERSION, METADATA_VERSION, type CheckpointMetadata, type OperatorStateMetadata } from '../checkpoint/checkpoint-metadata.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import { taskKey } from '../ids/task-key.ts';
import type { PendingCheckpoint } from './pending-checkpoint.ts';

/**
 * A fully acknowledged checkpoint's `_metadata`: every subtask's handles filed by operator uid
 * (so a restore finds them whatever the parallelism), the job's connections (which unaligned
 * in-flight data is tied to) and the split enumerators' states.
 */
export function buildCheckpointMetadata(jobId: string, graph: JobGraph, p: PendingCheckpoint, completedAt: number): CheckpointMetadata {
  const operators: OperatorStateMetadata[] = [];
  for (const vertex of graph.vertices) {
    for (const op of vertex.operators) {
      const subtasks = [];
      for (let s = 0; s < vertex.parallelism; s++) {
        const ack = p.acks.get(taskKey(vertex.id, s))!;
        const state = ack.state.operators.find((o) => o.uid === op.uid);
        if (!state) continue;
        subtasks.push({
          subtask: s,
          keyed: state.keyed,
          operator: state.operator,
          ...(op.index === 0 ? { inputChannels: ack.state.inputChannels, outputChannels: ack.state.outputChannels } : {}),
        });
      }
      operators.push({ uid: op.uid, operatorId: op.operatorId, name: op.name, vertexId: vertex.id, parallelism: vertex.parallelism, maxParallelism: vertex.maxParallelism, subtasks });
    }
  }
  // Format 5 only where shared files are named: full checkpoints and savepoints stay readable by a weir of format 4.
  const incremental = operators.some((o) => o.subtasks.some((s) => s.keyed?.writtenBy !== undefined));
  return {
    formatVersion: incremental ? INCREMENTAL_METADATA_VERSION : METADATA_VERSION,
    jobId,
    checkpointId: p.id,
    type: p.options.type,
    unaligned: p.stats.unaligned,
    triggeredAt: p.timestamp,
    completedAt,
    operators,
    edges: graph.edges.map((e) => ({ id: e.id, source: e.source.id, target: e.target.id, partitioner: e.partitioner.kind })),
    coordinators: p.coordinators,
  };
}
