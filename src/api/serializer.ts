import { Packr } from 'msgpackr';

/**
 * How a state's values become bytes in a snapshot. The version is stored beside the bytes, so
 * a restore can tell that a state was written by another version of its serializer.
 */
export interface TypeSerializer<T> {
  readonly id: string;
  readonly version: number;
  serialize(value: T): Uint8Array;
  deserialize(bytes: Uint8Array): T;
  /** A copy that the caller may mutate without touching the original (used by copy-on-write snapshots). */
  copy(value: T): T;
}

const packr = new Packr({ useRecords: false, moreTypes: true, int64AsType: 'bigint' as const });

function deepCopy<T>(value: T): T {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** The default serializer: MessagePack, which keeps bigints, Maps, Sets, Dates and typed arrays. */
export function msgpackSerializer<T>(version = 1): TypeSerializer<T> {
  return {
    id: 'msgpack',
    version,
    serialize: (value) => packr.pack(value),
    deserialize: (bytes) => packr.unpack(bytes) as T,
    copy: deepCopy,
  };
}

export const defaultSerializer: TypeSerializer<unknown> = msgpackSerializer();
