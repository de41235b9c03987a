import type { Key } from '../state/key-group.ts';
import type { RestoredEntrySink } from '../state/keyed-state-backend.ts';
import type { StoredStateInfo } from '../state/stored-state-info.ts';

/**
 * The key groups of one keyed state file that a reader asked for (any format): entries come
 * state by state, each state's entries of a key group going where `target` says (a restore's
 * heap table, inspect's lists), decoded one by one with no array per entry.
 */
export interface KeyedStateFileReader {
  readonly path: string;
  /** The file's states with their serializer snapshots, by the index blocks refer to them with. */
  readonly states: readonly StoredStateInfo[];
  /** The key groups of the asked range that the file holds, in file order. */
  readonly keyGroups: readonly number[];
  /** Reads one key group (checked against its checksum first); `target` is asked once per block: once or twice per state that has entries in it (keyed-state-file.ts). */
  readKeyGroup(keyGroup: number, target: (state: StoredStateInfo, keyGroup: number) => RestoredEntrySink): void;
}

/** Every entry of the reader's key groups, by state name and key group (inspect, tests). */
export function readAllEntries(reader: KeyedStateFileReader): Map<string, Map<number, Array<[Key, unknown]>>> {
  const out = new Map<string, Map<number, Array<[Key, unknown]>>>();
  for (const kg of reader.keyGroups) {
    reader.readKeyGroup(kg, (state, g) => {
      let byGroup = out.get(state.name);
      if (!byGroup) out.set(state.name, (byGroup = new Map()));
      let list = byGroup.get(g);
      if (!list) byGroup.set(g, (list = []));
      const entries = list;
      return (key, value) => void entries.push([key, value]);
    });
  }
  return out;
}
