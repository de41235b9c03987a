import type { TypeSerializer } from '../api/serializer.ts';
import type { TypeInfo } from './type-info.ts';
import { Types } from './types.ts';

/** The serializer of compiled codecs (serializerFor). */
export const TYPES_KIND = 'weir-types';
/** The byte format of compiled codecs; a change to it gets a new version and a migration. */
export const TYPES_FORMAT_VERSION = 1;
/** Today's default serializer (src/api/serializer.ts). */
export const MSGPACK_KIND = 'msgpack';

/**
 * What a state's serializer was, stored in `_metadata` beside the state (Flink's
 * TypeSerializerSnapshot): enough to read the stored bytes again (`kind`, `version`, `schema`),
 * and to tell whether the job's current serializer reads them as they are, after a migration, or
 * not at all (resolveCompatibility). Plain JSON.
 *
 * `kind` is 'weir-types', 'msgpack', or a custom serializer's id; `schema` is `any` for the last
 * two, which do not describe their values.
 */
export interface SerializerSnapshot {
  readonly kind: string;
  readonly version: number;
  readonly schema: TypeInfo;
}

export function msgpackSnapshot(version = 1): SerializerSnapshot {
  return { kind: MSGPACK_KIND, version, schema: Types.any };
}

/**
 * The snapshot of any TypeSerializer: its own when it has one (serializerFor's), otherwise what
 * its id and version say, so today's msgpack serializer and users' custom ones have snapshots
 * without changing them.
 */
export function snapshotOf(serializer: TypeSerializer<unknown> & { snapshot?: () => SerializerSnapshot }): SerializerSnapshot {
  if (typeof serializer.snapshot === 'function') return serializer.snapshot();
  return { kind: serializer.id, version: serializer.version, schema: Types.any };
}
