import type { OperatorListState } from '../api/state.ts';
import { msgpackSnapshot, type SerializerSnapshot } from '../serialization/serializer-snapshot.ts';
import { restoreSerializer, serializerFor, type TypedSerializer } from '../serialization/serializer-for.ts';
import { explainCompatibility } from '../serialization/resolve-compatibility.ts';
import { describeSnapshot } from '../serialization/incompatible-serializer-error.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import type { Type } from '../serialization/type-info.ts';
import { StateMigrationError } from './state-migration-error.ts';

/**
 * How operator list state is handed out again when the parallelism changes (Flink's rules):
 * 'split' shares the values out, 'union' gives every subtask all of them, 'broadcast' (broadcast
 * state, the same in every subtask) gives every subtask one subtask's copy.
 */
export type RedistributionMode = 'split' | 'union' | 'broadcast';

/**
 * One operator list state. `serializer` is set for a state with a declared type: its snapshot
 * holds each value as the bytes of the type's codec, and says which type wrote them. Without
 * one, values are stored as they are (MessagePack inside `_metadata`).
 */
export interface OperatorStateEntry {
  readonly mode: RedistributionMode;
  values: unknown[];
  readonly serializer?: SerializerSnapshot;
}

export interface OperatorListStateOptions<T> {
  /** The type of one element: values are written by its codec and checked against it. */
  readonly type?: Type<T>;
}

/**
 * Non-keyed state of one operator in one subtask: named lists (source splits, sink transactions).
 * A list may declare its element type; a restore then checks the stored type against it as keyed
 * state does (as-is, migrated, or a StateMigrationError naming uid, state and both serializers).
 */
export class OperatorStateBackend {
  readonly states = new Map<string, OperatorStateEntry>();
  readonly #restored: ReadonlyMap<string, OperatorStateEntry>;
  readonly #serializers = new Map<string, TypedSerializer<unknown>>();
  readonly #uid: string;
  /** True when the subtask was started from a checkpoint or savepoint (even if it got no entries). */
  readonly isRestored: boolean;

  constructor(restored?: ReadonlyMap<string, OperatorStateEntry>, uid = '(unknown)') {
    this.#restored = restored ?? new Map();
    this.isRestored = restored !== undefined;
    this.#uid = uid;
  }

  getListState<T>(name: string, options: OperatorListStateOptions<T> = {}): OperatorListState<T> {
    return this.#get<T>(name, 'split', options);
  }

  getUnionListState<T>(name: string, options: OperatorListStateOptions<T> = {}): OperatorListState<T> {
    return this.#get<T>(name, 'union', options);
  }

  /** Broadcast state's entries: every subtask holds (and snapshots) the same copy; a restore gives each one copy. */
  getBroadcastListState<T>(name: string): OperatorListState<T> {
    return this.#get<T>(name, 'broadcast', {});
  }

  /** The values this subtask was given on restore (empty on a fresh start), read with the serializer that wrote them. */
  restoredValues<T>(name: string): readonly T[] {
    const entry = this.#restored.get(name);
    if (!entry) return [];
    return (entry.serializer ? decodeAll(entry.serializer, entry.values) : entry.values) as T[];
  }

  #get<T>(name: string, mode: RedistributionMode, options: OperatorListStateOptions<T>): OperatorListState<T> {
    let entry = this.states.get(name);
    if (!entry) {
      const serializer = options.type === undefined ? undefined : serializerFor(options.type);
      if (serializer) this.#serializers.set(name, serializer as TypedSerializer<unknown>);
      entry = { mode, values: this.#restoredAs(name, serializer?.snapshot() ?? msgpackSnapshot()), ...(serializer ? { serializer: serializer.snapshot() } : {}) };
      this.states.set(name, entry);
    }
    const e = entry;
    return {
      get: () => e.values as T[],
      update: (values) => {
        e.values = [...values];
      },
      add: (value) => {
        e.values.push(value);
      },
      clear: () => {
        e.values = [];
      },
    };
  }

  /** The restored values of a state in the form `current` declares. */
  #restoredAs(name: string, current: SerializerSnapshot): unknown[] {
    const entry = this.#restored.get(name);
    if (!entry) return [];
    const stored = entry.serializer ?? msgpackSnapshot();
    const report = explainCompatibility(stored, current);
    if (report.result === 'incompatible') {
      throw new StateMigrationError(
        this.#uid,
        name,
        stored.version,
        current.version,
        `operator state '${name}' of operator uid '${this.#uid}' was written with serializer ${describeSnapshot(stored)}, the job now uses ${describeSnapshot(current)}, which cannot read it${report.path ? ` at ${report.path}` : ''}: ${report.reason ?? 'incompatible'}`,
        { stored, current, ...(report.path !== undefined ? { path: report.path } : {}) },
      );
    }
    const values = entry.serializer ? decodeAll(entry.serializer, entry.values) : [...entry.values];
    return report.result === 'compatible-as-is' ? values : values.map(report.convert);
  }

  /**
   * Operator state is small (positions, file names): the snapshot copies it. Declared states are
   * encoded here, so a value that does not fit fails the checkpoint naming the state and where.
   */
  snapshot(): Map<string, OperatorStateEntry> {
    const out = new Map<string, OperatorStateEntry>();
    for (const [name, e] of this.states) {
      const serializer = this.#serializers.get(name);
      if (!serializer) {
        out.set(name, { mode: e.mode, values: structuredClone(e.values) });
        continue;
      }
      const values = e.values.map((v, i) => {
        try {
          return serializer.serialize(v);
        } catch (err) {
          if (!(err instanceof SerializationError)) throw err;
          throw err.withContext({ operatorUid: this.#uid, state: `${name}[${i}]` });
        }
      });
      out.set(name, { mode: e.mode, values, serializer: serializer.snapshot() });
    }
    return out;
  }
}

function decodeAll(snapshot: SerializerSnapshot, values: readonly unknown[]): unknown[] {
  const reader = restoreSerializer(snapshot);
  return values.map((v) => reader.deserialize(v as Uint8Array));
}
