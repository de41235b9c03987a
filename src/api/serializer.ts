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

/**
 * What structuredClone makes of a value. Copy-on-write snapshots copy a value on its first update
 * after a checkpoint, for every key, so the common case takes a short cut: a plain object whose
 * properties are all primitives is copied with a spread (the same own properties in the same
 * order, at a small fraction of structuredClone's cost).
 */
function deepCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    let flat = true;
    for (const k in value) {
      const v = (value as Record<string, unknown>)[k];
      const t = typeof v;
      if ((t === 'object' && v !== null) || t === 'function' || t === 'symbol') {
        flat = false;
        break;
      }
    }
    if (flat) return { ...value };
  }
  return structuredClone(value);
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
