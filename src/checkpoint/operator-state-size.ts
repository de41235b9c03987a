import { metadataBytes } from './checkpoint-metadata.ts';
import type { OperatorStateMap } from './state-handles.ts';

/**
 * Bytes of a subtask's operator (list) state as `_metadata` holds it: a source's splits and
 * positions, a sink's pending commits. It lives inline in `_metadata` rather than in a state file,
 * but it is the checkpoint's state all the same: a CDC source's binlog position is all its state.
 */
export function operatorStateBytes(state: OperatorStateMap): number {
  let bytes = 0;
  for (const entry of Object.values(state)) bytes += metadataBytes(entry.values);
  return bytes;
}
