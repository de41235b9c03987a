import type { PartitionerSpec } from '../api/transformation.ts';
import { type Key, keyGroupFor, operatorIndexForKeyGroup } from '../state/key-group.ts';

/** Picks the output channel of a record; -1 means every channel (broadcast). */
export type ChannelSelector = (record: unknown) => number;

export const BROADCAST = -1;

export function createChannelSelector(
  spec: PartitionerSpec,
  channels: number,
  producerSubtask: number,
  targetMaxParallelism: number,
): ChannelSelector {
  switch (spec.kind) {
    case 'forward':
      return () => 0;
    case 'broadcast':
      return () => BROADCAST;
    case 'rebalance': {
      // Each producer starts at a different channel so that small bursts still spread out.
      let next = producerSubtask % channels;
      return () => {
        const c = next;
        next = next + 1 === channels ? 0 : next + 1;
        return c;
      };
    }
    case 'hash': {
      const select = spec.keySelector;
      if (channels === 1) {
        return () => 0;
      }
      return (record) => operatorIndexForKeyGroup(keyGroupFor(select(record) as Key, targetMaxParallelism), channels, targetMaxParallelism);
    }
  }
}
