import type { KeyedStateHandle } from '../state-handles.ts';
import type { KeyedStateFileReader } from '../keyed-state-file-reader.ts';
import { readKeyedStateFile } from '../keyed-state-file.ts';
import type { Key, KeyGroupRange } from '../../state/key-group.ts';
import type { StoredStateInfo } from '../../state/stored-state-info.ts';
import { keyedHandleFiles } from './shared-state-files.ts';
import { REMOVED_STATE_KIND } from './removed-keys.ts';

/**
 * Reads a keyed state handle of either kind for the key groups of `range`: one file, or an
 * incremental chain (a full base and its deltas), merged one key group at a time: the base's
 * entries, then each delta's changed entries over them and its removed keys out of them, in
 * order. What comes out is what the state held at the checkpoint, in the one format every
 * restore and `weir inspect` read, so rescaling by key-group range works the same.
 */
export function readKeyedState(handle: KeyedStateHandle, resolvePath: (file: string) => string, range: KeyGroupRange): KeyedStateFileReader {
  if (handle.deltas === undefined || handle.deltas.length === 0) return readKeyedStateFile(handle, resolvePath, range);
  const readers = keyedHandleFiles(handle).map((h) => readKeyedStateFile(h, resolvePath, range));
  const states = new Map<string, StoredStateInfo>();
  for (const r of readers) for (const s of r.states) if (s.kind !== REMOVED_STATE_KIND) states.set(s.name, s);
  const keyGroups = [...new Set(readers.flatMap((r) => r.keyGroups))].sort((a, b) => a - b);
  return {
    path: readers[0]!.path,
    states: [...states.values()],
    keyGroups,
    readKeyGroup(keyGroup, target) {
      const merged = new Map<string, { info: StoredStateInfo; entries: Map<Key, unknown> }>();
      const of = (info: StoredStateInfo) => {
        let m = merged.get(info.name);
        if (m === undefined) merged.set(info.name, (m = { info, entries: new Map() }));
        return m;
      };
      for (const r of readers) {
        if (!r.keyGroups.includes(keyGroup)) continue;
        r.readKeyGroup(keyGroup, (info) => {
          if (info.kind === REMOVED_STATE_KIND) {
            const entries = merged.get(info.name)?.entries;
            return (key) => void entries?.delete(key);
          }
          const m = of(info);
          m.info = info;
          const entries = m.entries;
          return (key, value) => void entries.set(key, value);
        });
      }
      for (const { info, entries } of merged.values()) {
        if (entries.size === 0) continue;
        const put = target(info, keyGroup);
        for (const [k, v] of entries) put(k, v);
      }
    },
  };
}
