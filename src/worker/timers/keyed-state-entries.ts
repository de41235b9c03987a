import type { StateDescriptor } from '../../api/state-descriptors.ts';
import { HeapKeyedStateBackend } from '../../state/heap-keyed-state-backend.ts';
import type { Key } from '../../state/key-group.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';

/**
 * Every entry of one keyed state of this subtask, whatever its key (Flink's
 * KeyedStateBackend.getKeys): what a timer queue is rebuilt from after a restore. The state must
 * have been registered with `descriptor` first, so that restored values are in its form. Keys are
 * as the state tables hold them (a composite key is a string there).
 */
export function* keyedStateEntries<V>(backend: KeyedStateBackend, descriptor: StateDescriptor): Generator<[Key, V]> {
  if (!(backend instanceof HeapKeyedStateBackend)) throw new TypeError(`keyedStateEntries does not know the backend ${backend.constructor.name}`);
  const table = backend.states.get(descriptor.name)?.table;
  if (table === undefined) return;
  for (const map of table.maps) for (const [key, entry] of map) yield [key, entry.value as V];
}

/** Whether the backend holds a state of this name (registered, or restored and not claimed yet). */
export function hasState(backend: KeyedStateBackend, name: string): boolean {
  if (!(backend instanceof HeapKeyedStateBackend)) throw new TypeError(`hasState does not know the backend ${backend.constructor.name}`);
  return backend.states.has(name);
}
