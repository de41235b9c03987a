import type { BroadcastState, ReadOnlyBroadcastState } from '../../api/broadcast-process-function.ts';
import type { BroadcastSpec } from '../../api/transformation.ts';
import type { MapStateDescriptor } from '../../api/state-descriptors.ts';
import type { OperatorListState } from '../../api/state.ts';
import type { OperatorStateBackend } from '../../state/operator-state-backend.ts';
import { BroadcastStateError } from './broadcast-state-error.ts';

/**
 * The broadcast states of one operator in one subtask (Flink's broadcast state): a map per
 * descriptor the broadcast stream declared, kept as operator state of mode 'broadcast' (each
 * subtask snapshots its copy; a restore, at any parallelism, gives every subtask one copy).
 * The broadcast side reads and writes; the other side only reads, so all copies stay alike.
 */
export class BroadcastStateStore {
  readonly #spec: BroadcastSpec;
  readonly #operatorState: OperatorStateBackend;
  readonly #operator: { readonly name: string; readonly uid: string };
  readonly #states = new Map<string, { map: Map<unknown, unknown>; list: OperatorListState<[unknown, unknown]> }>();

  constructor(spec: BroadcastSpec, operatorState: OperatorStateBackend, operator: { readonly name: string; readonly uid: string }) {
    this.#spec = spec;
    this.#operatorState = operatorState;
    this.#operator = operator;
    // Registered up front: a state the function never touches is still snapshotted (and restored).
    for (const d of spec.descriptors) this.#state(d.name);
  }

  /** The broadcast side's view: reads and writes. */
  writable<K, V>(descriptor: MapStateDescriptor<K, V>): BroadcastState<K, V> {
    const { map, list } = this.#declared(descriptor);
    const write = (): void => list.update([...map]);
    return {
      ...readView(map),
      put: (k, v) => {
        map.set(k, v);
        write();
      },
      remove: (k) => {
        map.delete(k);
        write();
      },
      clear: () => {
        map.clear();
        write();
      },
    } as BroadcastState<K, V>;
  }

  /** The non-broadcast side's view: reads only; a write (through a cast) is refused. */
  readOnly<K, V>(descriptor: MapStateDescriptor<K, V>): ReadOnlyBroadcastState<K, V> {
    const { map } = this.#declared(descriptor);
    const refuse = (): never => {
      throw this.#error(descriptor.name, 'the non-broadcast side may only read broadcast state (a write there would make the subtasks’ copies differ); change it in processBroadcastElement');
    };
    return { ...readView(map), put: refuse, remove: refuse, clear: refuse } as ReadOnlyBroadcastState<K, V>;
  }

  /** Whether a descriptor names one of this operator's broadcast states (then it is not keyed state). */
  isBroadcast(name: string): boolean {
    return this.#spec.descriptors.some((d) => d.name === name);
  }

  #declared(descriptor: MapStateDescriptor<unknown, unknown>): { map: Map<unknown, unknown>; list: OperatorListState<[unknown, unknown]> } {
    if (!this.isBroadcast(descriptor?.name)) {
      const declared = this.#spec.descriptors.map((d) => `'${d.name}'`).join(', ');
      throw this.#error(String(descriptor?.name), `the broadcast stream connected here declares ${declared}, not this one: pass the descriptor to broadcast(...)`);
    }
    return this.#state(descriptor.name);
  }

  #state(name: string): { map: Map<unknown, unknown>; list: OperatorListState<[unknown, unknown]> } {
    let s = this.#states.get(name);
    if (!s) {
      const list = this.#operatorState.getBroadcastListState<[unknown, unknown]>(name);
      s = { map: new Map(list.get()), list };
      this.#states.set(name, s);
    }
    return s;
  }

  error(descriptor: string, problem: string): BroadcastStateError {
    return this.#error(descriptor, problem);
  }

  #error(descriptor: string, problem: string): BroadcastStateError {
    return new BroadcastStateError(this.#operator.name, this.#operator.uid, descriptor, problem, this.#spec.definedAt);
  }
}

function readView<K, V>(map: Map<K, V>): ReadOnlyBroadcastState<K, V> {
  return {
    get: (k) => map.get(k),
    contains: (k) => map.has(k),
    entries: () => map.entries(),
    isEmpty: () => map.size === 0,
  };
}
