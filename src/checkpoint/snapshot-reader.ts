import { isAbsolute, join } from 'node:path';
import type { Key } from '../state/key-group.ts';
import type { SerializerSnapshot } from '../serialization/serializer-snapshot.ts';
import { readMetadata, type CheckpointMetadata } from './checkpoint-metadata.ts';
import { readKeyedState } from './incremental/incremental-keyed-state-reader.ts';
import { restoreSerializer } from '../serialization/serializer-for.ts';

export interface ReadKeyedState {
  readonly name: string;
  readonly kind: string;
  readonly serializer: string;
  readonly version: number;
  /** What wrote the state (kind, version, schema): metadata format 4 records it, older ones are read as `any`. */
  readonly snapshot: SerializerSnapshot;
  /** Entries by key group; values of custom serializers are the stored bytes. */
  readonly entries: Map<number, Array<[Key, unknown]>>;
}

export interface ReadOperatorState {
  readonly uid: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly keyed: ReadKeyedState[];
  /** Operator list states; values of declared ones decoded with the type that wrote them. */
  readonly operator: Record<string, { mode: string; values: unknown[]; serializer?: SerializerSnapshot }>;
}

export interface ReadSnapshot {
  readonly metadata: CheckpointMetadata;
  readonly directory: string;
  readonly operators: ReadOperatorState[];
}

/** Reads a whole checkpoint or savepoint (every operator's keyed and operator state): a read-only state processor. */
export async function readSnapshot(path: string, only?: { uid?: string }): Promise<ReadSnapshot> {
  const { metadata, directory } = await readMetadata(path);
  const resolve = (file: string) => (isAbsolute(file) ? file : join(directory, file));
  const operators: ReadOperatorState[] = [];
  for (const op of metadata.operators) {
    if (only?.uid !== undefined && op.uid !== only.uid) continue;
    const keyed = new Map<string, ReadKeyedState>();
    const operator: Record<string, { mode: string; values: unknown[]; serializer?: SerializerSnapshot }> = {};
    for (const sub of op.subtasks) {
      if (sub.keyed) {
        const file = readKeyedState(sub.keyed, resolve, { start: 0, end: op.maxParallelism - 1 });
        for (const kg of file.keyGroups) {
          file.readKeyGroup(kg, (info, g) => {
            let s = keyed.get(info.name);
            if (!s) keyed.set(info.name, (s = { name: info.name, kind: info.kind, serializer: info.serializer, version: info.version, snapshot: info.snapshot, entries: new Map() }));
            let list = s.entries.get(g);
            if (!list) s.entries.set(g, (list = []));
            const entries = list;
            return (key, value) => void entries.push([key, value]);
          });
        }
      }
      for (const [name, entry] of Object.entries(sub.operator)) {
        // Broadcast state is the same in every subtask: one copy is the state.
        if (entry.mode === 'broadcast' && operator[name]) continue;
        const target = (operator[name] ??= { mode: entry.mode, values: [], ...(entry.serializer ? { serializer: entry.serializer } : {}) });
        if (entry.serializer) {
          const reader = restoreSerializer(entry.serializer);
          for (const v of entry.values) target.values.push(reader.deserialize(v as Uint8Array));
        } else target.values.push(...entry.values);
      }
    }
    operators.push({ uid: op.uid, name: op.name, parallelism: op.parallelism, maxParallelism: op.maxParallelism, keyed: [...keyed.values()], operator });
  }
  return { metadata, directory, operators };
}
