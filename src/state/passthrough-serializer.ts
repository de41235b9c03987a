import type { TypeSerializer } from '../api/serializer.ts';
import type { SerializerSnapshot } from '../serialization/serializer-snapshot.ts';
import type { StoredStateInfo } from './stored-state-info.ts';

/**
 * Keeps restored values in their stored form until the operator asks for the state; a snapshot
 * taken before then writes them with the stored serializer's snapshot (custom serializers' values
 * are still their bytes).
 */
export function passthroughSerializer(info: StoredStateInfo): TypeSerializer<unknown> & { snapshot(): SerializerSnapshot } {
  return {
    id: info.serializer,
    version: info.version,
    serialize: (v) => v as Uint8Array,
    deserialize: (b) => b,
    copy: (v) => v,
    snapshot: () => info.snapshot,
  };
}
