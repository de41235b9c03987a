import { isKeyIndex, readKeyIndex } from './key-index.ts';
import { MalformedKeyError } from './malformed-key-error.ts';

/**
 * Subtask `subtask` of vertex `vertexId` as one value (Flink's ExecutionVertexID), usable as a
 * Map key. Built and read only here: no other file joins or splits `vertex:subtask` strings. The
 * text is the one checkpoint metadata and logs already use, so nothing stored changes.
 */
export type TaskKey = string & { readonly __brand: 'TaskKey' };

const TASK_KEY_FORM = '<vertex id>:<subtask>';

export function taskKey(vertexId: string, subtask: number): TaskKey {
  // A key that could not be read back would go unnoticed until a restore: refuse it here.
  if (vertexId === '' || !isKeyIndex(subtask)) throw new MalformedKeyError('task key', `${vertexId}:${subtask}`, TASK_KEY_FORM);
  return `${vertexId}:${subtask}` as TaskKey;
}

/** The parts of a task key; a text that is not one (as `taskKey` writes it) is refused with a MalformedKeyError. */
export function parseTaskKey(key: TaskKey | string): { readonly vertexId: string; readonly subtask: number } {
  // Vertex ids may hold ':' themselves; the subtask is what follows the last one.
  const at = key.lastIndexOf(':');
  const subtask = at > 0 ? readKeyIndex(key.slice(at + 1)) : undefined;
  if (subtask === undefined) throw new MalformedKeyError('task key', key, TASK_KEY_FORM);
  return { vertexId: key.slice(0, at), subtask };
}

/**
 * One channel of an edge: from producer subtask to consumer subtask (Flink's
 * ResultPartitionID + subpartition, in one). Same rules as TaskKey.
 */
export type ChannelKey = string & { readonly __brand: 'ChannelKey' };

const CHANNEL_KEY_FORM = '<edge id>:<producer>:<consumer>';

export function channelKey(edgeId: number, producer: number, consumer: number): ChannelKey {
  if (!isKeyIndex(edgeId) || !isKeyIndex(producer) || !isKeyIndex(consumer)) throw new MalformedKeyError('channel key', `${edgeId}:${producer}:${consumer}`, CHANNEL_KEY_FORM);
  return `${edgeId}:${producer}:${consumer}` as ChannelKey;
}

export function parseChannelKey(key: ChannelKey | string): { readonly edgeId: number; readonly producer: number; readonly consumer: number } {
  const parts = key.split(':').map(readKeyIndex);
  const [edgeId, producer, consumer] = parts;
  if (parts.length !== 3 || edgeId === undefined || producer === undefined || consumer === undefined) throw new MalformedKeyError('channel key', key, CHANNEL_KEY_FORM);
  return { edgeId, producer, consumer };
}
