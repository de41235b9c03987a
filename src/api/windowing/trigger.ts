import type { ReducingState, ValueState, ListState } from '../state.ts';
import type { ListStateDescriptor, ReducingStateDescriptor, ValueStateDescriptor } from '../state-descriptors.ts';
import type { Window } from './window.ts';

/** What a trigger decides (Flink's TriggerResult): emit the window's result, drop its contents, both, or neither. */
export type TriggerResult = 'CONTINUE' | 'FIRE' | 'PURGE' | 'FIRE_AND_PURGE';
export const TriggerResult = { CONTINUE: 'CONTINUE', FIRE: 'FIRE', PURGE: 'PURGE', FIRE_AND_PURGE: 'FIRE_AND_PURGE' } as const satisfies Record<TriggerResult, TriggerResult>;

export const isFire = (r: TriggerResult): boolean => r === 'FIRE' || r === 'FIRE_AND_PURGE';
export const isPurge = (r: TriggerResult): boolean => r === 'PURGE' || r === 'FIRE_AND_PURGE';

/**
 * A trigger's view of its window (Flink's Trigger.TriggerContext): time, timers of this key and
 * window, and state of this key and window (cleared with the window when the trigger's clear()
 * clears it).
 */
export interface TriggerContext {
  getCurrentProcessingTime(): number;
  getCurrentWatermark(): number;
  registerProcessingTimeTimer(time: number): void;
  registerEventTimeTimer(time: number): void;
  deleteProcessingTimeTimer(time: number): void;
  deleteEventTimeTimer(time: number): void;
  getPartitionedState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T>;
  getPartitionedState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T>;
  getPartitionedState<T>(descriptor: ListStateDescriptor<T>): ListState<T>;
}

/** onMerge's context: the merged windows' state of a descriptor (reducing or list) becomes the new window's. */
export interface OnMergeContext extends TriggerContext {
  mergePartitionedState(descriptor: ReducingStateDescriptor<unknown> | ListStateDescriptor<unknown>): void;
}

/**
 * Decides when a window emits (Flink's Trigger). Called with the window's key current; timers it
 * registers belong to the key and window. `clear` must remove what it keeps (timers, state) when
 * the window is cleaned up.
 */
export abstract class Trigger<T, W extends Window> {
  abstract onElement(element: T, timestamp: number, window: W, ctx: TriggerContext): TriggerResult;

  onProcessingTime(_time: number, _window: W, _ctx: TriggerContext): TriggerResult {
    return 'CONTINUE';
  }

  onEventTime(_time: number, _window: W, _ctx: TriggerContext): TriggerResult {
    return 'CONTINUE';
  }

  /** Whether the trigger works with merging windows (sessions): then onMerge is called when windows merge. */
  canMerge(): boolean {
    return false;
  }

  onMerge(_window: W, _ctx: OnMergeContext): void {
    throw new TypeError(`${this.toString()} does not support merging windows`);
  }

  clear(_window: W, _ctx: TriggerContext): void {}

  toString(): string {
    return this.constructor.name;
  }
}
