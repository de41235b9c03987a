/** A stable text form of a value (sorted object keys, Maps, Sets, bigints), for comparing state across runs. */
export function canonical(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  switch (typeof value) {
    case 'bigint':
      return `${value}n`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
      if (value instanceof Map) return `Map{${[...value].map(([k, v]) => `${canonical(k)}=>${canonical(v)}`).sort().join(',')}}`;
      if (value instanceof Set) return `Set{${[...value].map(canonical).sort().join(',')}}`;
      if (value instanceof Date) return `Date(${value.toISOString()})`;
      if (ArrayBuffer.isView(value)) return `Bytes(${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')})`;
      const entries = Object.keys(value as object)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
      return `{${entries.join(',')}}`;
    }
    default:
      return String(value);
  }
}
