import type { SerializerSnapshot } from '../serialization/serializer-snapshot.ts';
import { Types } from '../serialization/types.ts';

/**
 * How a state was written, as a keyed state handle lists it in `_metadata`: its name and kind,
 * and its serializer. `serializer` and `version` are the serializer's id and version (all that
 * metadata format 3 recorded); format 4 adds the serializer's snapshot (kind, version, schema).
 */
export interface KeyedStateInfo {
  readonly name: string;
  readonly kind: string;
  readonly serializer: string;
  readonly version: number;
  readonly snapshot?: SerializerSnapshot;
}

/** A KeyedStateInfo with its snapshot always there: what restores check the job's descriptor against. */
export interface StoredStateInfo extends KeyedStateInfo {
  readonly snapshot: SerializerSnapshot;
}

/**
 * State recorded before snapshots were (format 3) has a serializer id and version only: the
 * snapshot snapshotOf makes of such a serializer (schema `any`: msgpack and custom serializers
 * do not describe their values).
 */
export function storedStateInfo(info: KeyedStateInfo): StoredStateInfo {
  if (info.snapshot !== undefined) return info as StoredStateInfo;
  return { ...info, snapshot: { kind: info.serializer, version: info.version, schema: Types.any } };
}
