import type { KeySelector } from '../../api/functions.ts';
import type { WindowDefinition } from '../../api/windowing/window-definition.ts';
import type { StreamOperator } from '../operators/stream-operator.ts';

/** The window operator for a window definition (filled in with windows). */
export function createWindowOperator(_definition: WindowDefinition, _keySelector: KeySelector<unknown>): StreamOperator {
  throw new Error('windows are not implemented yet');
}
