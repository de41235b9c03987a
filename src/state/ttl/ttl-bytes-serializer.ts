import type { TypeSerializer } from '../../api/serializer.ts';
import type { TtlValue } from './ttl-value.ts';

/**
 * A serializer of the job's own carries the timestamp in 8 bytes before its own bytes. Its id
 * is not the inner one's, so state written without a TTL is not read as if it had one.
 */
export function ttlBytesSerializer<T>(inner: TypeSerializer<T>): TypeSerializer<TtlValue<T>> {
  return {
    id: `ttl(${inner.id})`,
    version: inner.version,
    serialize: (value) => {
      const body = inner.serialize(value.v);
      const out = new Uint8Array(8 + body.length);
      new DataView(out.buffer).setFloat64(0, value.t);
      out.set(body, 8);
      return out;
    },
    deserialize: (bytes) => {
      if (bytes.length < 8) throw new RangeError(`a value of serializer 'ttl(${inner.id})' has ${bytes.length} bytes, fewer than its 8-byte timestamp`);
      const t = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat64(0);
      return { v: inner.deserialize(bytes.subarray(8)), t };
    },
    copy: (value) => ({ v: inner.copy(value.v), t: value.t }),
  };
}
