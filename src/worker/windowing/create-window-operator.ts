import type { KeySelector } from '../../api/functions.ts';
import type { WindowDefinition } from '../../api/windowing/window-definition.ts';
import type { StreamOperator } from '../operators/stream-operator.ts';
import { SlidingPaneWindowOperator } from './sliding-pane-window-operator.ts';
import { windowAggregator } from './window-aggregator.ts';
import { WindowOperator } from './window-operator.ts';

/**
 * Sliding windows with their default trigger and contents that combine (a reduce, a process
 * window function, an aggregate with merge) keep panes; everything else is Flink's window
 * operator, a record in each of its windows.
 */
export function createWindowOperator(definition: WindowDefinition, keySelector: KeySelector<unknown>): StreamOperator {
  const panes = definition.assigner.panes() !== undefined;
  const defaultTrigger = definition.trigger === undefined || definition.trigger === definition.assigner.getDefaultTrigger();
  if (panes && defaultTrigger && windowAggregator(definition.fn).combines) return new SlidingPaneWindowOperator(definition, keySelector);
  return new WindowOperator(definition, keySelector);
}
