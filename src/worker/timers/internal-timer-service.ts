import { ValueStateDescriptor } from '../../api/state-descriptors.ts';
import type { ValueState } from '../../api/state.ts';
import { MIN_WATERMARK } from '../../api/watermark.ts';
import type { Timer } from '../../clock/clock.ts';
import type { Key } from '../../state/key-group.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { ProcessingTimeProvider } from '../processing-time-service.ts';
import { TimerHeap, type QueuedTimer, type TimerNamespace } from './timer-heap.ts';

/** A key's timers of one kind, as its keyed state holds them. */
export interface KeyTimers {
  /** [timestamp, namespace] pairs, at most one of each. */
  readonly timers: ReadonlyArray<readonly [number, TimerNamespace]>;
  /** The key as the key selector gave it, where the state table holds another form (composite keys). */
  readonly key?: Key;
}

/** A timer that fired: its key is current when the callback runs. */
export interface FiredTimer {
  readonly timestamp: number;
  readonly key: Key;
  readonly namespace: TimerNamespace;
}

export interface Triggerable {
  onEventTime(timer: FiredTimer): void;
  onProcessingTime(timer: FiredTimer): void;
}

export interface InternalTimerServiceSetup {
  /** Names the timer states: `_timer_state/event_<name>`, `_timer_state/processing_<name>` (Flink's names). */
  readonly name: string;
  readonly backend: KeyedStateBackend;
  readonly processingTime: ProcessingTimeProvider;
  readonly triggerable: Triggerable;
}

/**
 * Event-time and processing-time timers of one keyed operator (Flink's InternalTimerServiceImpl).
 * The truth is keyed state: each key's timers are a value of a state per kind, so they are in
 * every snapshot per key group, and a restore at another parallelism brings each subtask the
 * timers of its key groups. A heap over all keys orders them for firing; it is rebuilt from the
 * state on open, and an entry whose timer was deleted is skipped when it comes up (the state no
 * longer has it). At most one timer per key, namespace and timestamp.
 */
export class InternalTimerService {
  readonly #s: InternalTimerServiceSetup;
  readonly #event: TimerKind;
  readonly #processing: TimerKind;
  #watermark = MIN_WATERMARK;
  #seq = 0;
  #scheduled: { readonly at: number; readonly timer: Timer } | undefined;
  /** Processing-time timers are firing: the next callback is scheduled once they are done. */
  #firingProcessing = false;
  #closed = false;

  constructor(setup: InternalTimerServiceSetup) {
    this.#s = setup;
    this.#event = this.#kind(`_timer_state/event_${setup.name}`);
    this.#processing = this.#kind(`_timer_state/processing_${setup.name}`);
  }

  #kind(stateName: string): TimerKind {
    return { descriptor: new ValueStateDescriptor<KeyTimers>(stateName), state: undefined, heap: new TimerHeap() };
  }

  /**
   * A kind's keyed state, registered with the backend when first needed (or restored): an
   * operator that never sets a timer has no timer state in its snapshots.
   */
  #state(kind: TimerKind): ValueState<KeyTimers> {
    return (kind.state ??= this.#s.backend.getValueState(kind.descriptor));
  }

  /** Rebuilds the queues from restored state; processing-time timers that came due meanwhile fire soon after. */
  open(): void {
    for (const kind of [this.#event, this.#processing]) {
      if (!this.#s.backend.hasState(kind.descriptor.name)) continue;
      this.#state(kind);
      const queued: QueuedTimer[] = [];
      for (const [tableKey, value] of this.#s.backend.entries<KeyTimers>(kind.descriptor)) {
        const key = value.key !== undefined ? value.key : tableKey;
        for (const [timestamp, namespace] of value.timers) queued.push({ timestamp, key, namespace, seq: this.#seq++ });
      }
      kind.heap.reset(queued);
    }
    this.#scheduleProcessing();
  }

  get currentWatermark(): number {
    return this.#watermark;
  }

  currentProcessingTime(): number {
    return this.#s.processingTime.now();
  }

  registerEventTimeTimer(namespace: TimerNamespace, time: number): void {
    this.#register(this.#event, namespace, time);
  }

  registerProcessingTimeTimer(namespace: TimerNamespace, time: number): void {
    if (this.#register(this.#processing, namespace, time)) this.#scheduleProcessing();
  }

  deleteEventTimeTimer(namespace: TimerNamespace, time: number): void {
    this.#delete(this.#event, namespace, time);
  }

  deleteProcessingTimeTimer(namespace: TimerNamespace, time: number): void {
    this.#delete(this.#processing, namespace, time);
  }

  /** Timers registered now (deleted ones the heap still holds are not counted), for tests and metrics. */
  get queued(): { readonly event: number; readonly processing: number } {
    return { event: this.#event.heap.size, processing: this.#processing.heap.size };
  }

  /** Fires every event-time timer at or before `watermark`, in order; timers they register that are due fire too. */
  advanceWatermark(watermark: number): void {
    this.#watermark = watermark;
    this.#fire(this.#event, watermark, (t) => this.#s.triggerable.onEventTime(t));
  }

  close(): void {
    this.#closed = true;
    this.#scheduled?.timer.cancel();
    this.#scheduled = undefined;
  }

  #fire(kind: TimerKind, upTo: number, callback: (t: FiredTimer) => void): void {
    const heap = kind.heap;
    const backend = this.#s.backend;
    for (let t = heap.peek(); t !== undefined && t.timestamp <= upTo && !this.#closed; t = heap.peek()) {
      heap.pop();
      backend.setCurrentKey(t.key);
      const current = this.#state(kind).value();
      const i = current === undefined ? -1 : indexOf(current.timers, t.timestamp, t.namespace);
      if (i < 0) continue;
      this.#store(kind, current!, current!.timers.filter((_, j) => j !== i));
      callback(t);
    }
  }

  /** Returns whether the timer is new. */
  #register(kind: TimerKind, namespace: TimerNamespace, time: number): boolean {
    const state = this.#state(kind);
    const current = state.value();
    if (current !== undefined && indexOf(current.timers, time, namespace) >= 0) return false;
    const key = this.#s.backend.currentKey;
    // Copies, not pushes: a snapshot may still be writing the array the state holds.
    const timers = current === undefined ? [[time, namespace] as const] : [...current.timers, [time, namespace] as const];
    state.update(Array.isArray(key) ? { timers, key } : { timers });
    kind.heap.push({ timestamp: time, key, namespace, seq: this.#seq++ });
    return true;
  }

  #delete(kind: TimerKind, namespace: TimerNamespace, time: number): void {
    if (kind.state === undefined) return;
    const current = kind.state.value();
    if (current === undefined) return;
    const i = indexOf(current.timers, time, namespace);
    if (i >= 0) this.#store(kind, current, current.timers.filter((_, j) => j !== i));
  }

  #store(kind: TimerKind, current: KeyTimers, timers: KeyTimers['timers']): void {
    const state = this.#state(kind);
    if (timers.length === 0) state.clear();
    else state.update(current.key !== undefined ? { timers, key: current.key } : { timers });
  }

  /** One clock callback at the earliest processing-time timer (a mail: never during a record). */
  #scheduleProcessing(): void {
    if (this.#closed || this.#firingProcessing) return;
    const next = this.#processing.heap.peek();
    if (next === undefined) return;
    if (this.#scheduled !== undefined) {
      if (this.#scheduled.at <= next.timestamp) return;
      this.#scheduled.timer.cancel();
    }
    const at = next.timestamp;
    const timer = this.#s.processingTime.registerTimer(at, 'processing-time timers', () => {
      if (this.#scheduled?.timer === timer) this.#scheduled = undefined;
      this.#firingProcessing = true;
      try {
        this.#fire(this.#processing, this.#s.processingTime.now(), (t) => this.#s.triggerable.onProcessingTime(t));
      } finally {
        this.#firingProcessing = false;
      }
      this.#scheduleProcessing();
    });
    this.#scheduled = { at, timer };
  }
}

interface TimerKind {
  readonly descriptor: ValueStateDescriptor<KeyTimers>;
  state: ValueState<KeyTimers> | undefined;
  readonly heap: TimerHeap;
}

function indexOf(timers: KeyTimers['timers'], time: number, namespace: TimerNamespace): number {
  for (let i = 0; i < timers.length; i++) {
    const t = timers[i]!;
    if (t[0] === time && t[1] === namespace) return i;
  }
  return -1;
}
