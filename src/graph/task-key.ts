/**
 * Subtask `subtask` of vertex `vertexId` as one value (Flink's ExecutionVertexID), usable as a
 * Map key. Built and read only here: no other file joins or splits `vertex:subtask` strings. The
 * text is the one checkpoint metadata and logs already use, so nothing stored changes.
 */
export type TaskKey = string & { readonly __brand: 'TaskKey' };

export function taskKey(vertexId: string, subtask: number): TaskKey {
  return `${vertexId}:${subtask}` as TaskKey;
}

export function parseTaskKey(key: TaskKey | string): { readonly vertexId: string; readonly subtask: number } {
  // Vertex ids may hold ':' themselves; the subtask is what follows the last one.
  const at = key.lastIndexOf(':');
  const subtask = Number(key.slice(at + 1));
  if (at <= 0 || !Number.isInteger(subtask) || subtask < 0) throw new Error(`not a task key: '${key}' (expected '<vertex id>:<subtask>')`);
  return { vertexId: key.slice(0, at), subtask };
}

/**
 * One channel of an edge: from producer subtask to consumer subtask (Flink's
 * ResultPartitionID + subpartition, in one). Same rules as TaskKey.
 */
export type ChannelKey = string & { readonly __brand: 'ChannelKey' };

export function channelKey(edgeId: number, producer: number, consumer: number): ChannelKey {
  return `${edgeId}:${producer}:${consumer}` as ChannelKey;
}
