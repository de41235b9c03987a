import type { StateDescriptor } from '../../api/state-descriptors.ts';
import { serializerFor } from '../../serialization/serializer-for.ts';
import { Types } from '../../serialization/types.ts';

/**
 * A delta file lists the keys a state lost since the file before as a state of its own: the same
 * name, this kind, and `true` for each key. It is written and read as any state is (per key
 * group, checksummed), and only a chain's reader (incremental-keyed-state-reader.ts) knows it.
 */
export const REMOVED_STATE_KIND = 'removed';

const removedSerializer = serializerFor(Types.boolean);

/** The descriptor under which a delta writes the keys removed from state `name`. */
export function removedKeysDescriptor(name: string): StateDescriptor {
  return { kind: REMOVED_STATE_KIND, name, serializer: removedSerializer } as unknown as StateDescriptor;
}
