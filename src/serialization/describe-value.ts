/**
 * What a value actually is, short enough for an error message: `string "abc"`, `number 1.5`,
 * `bigint 2^70`, `function parse`, `object {a, b}`. The value is user data and may be huge, so
 * every part is truncated.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(truncate(value, 24))}`;
    case 'number':
      return Number.isInteger(value) && !Number.isSafeInteger(value) ? `number ${value} (not a safe integer)` : `number ${value}`;
    case 'bigint':
      return `bigint ${describeBigint(value)}${value < -(2n ** 63n) || value >= 2n ** 63n ? ' (beyond int64)' : ''}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return `symbol ${truncate(value.toString(), 32)}`;
    case 'function':
      return value.name ? `function ${truncate(value.name, 32)}` : 'function';
    case 'object':
      return value === null ? 'null' : describeObject(value);
    default:
      return typeof value;
  }
}

function describeObject(value: object): string {
  if (Array.isArray(value)) return `array(${value.length})`;
  if (value instanceof Map) return `Map(${value.size})`;
  if (value instanceof Set) return `Set(${value.size})`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Date (invalid)' : `Date ${value.toISOString()}`;
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.byteLength} bytes)`;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `object of class ${constructorName(value)}`;
  const keys = Object.keys(value);
  const shown = keys.slice(0, 6).map((k) => truncate(k, 20));
  return `object {${shown.join(', ')}${keys.length > shown.length ? ', ...' : ''}}`;
}

function constructorName(value: object): string {
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name ? ctor.name : '(anonymous)';
}

/** Short bigints in full; long ones as a power of two, which is what a range error is about. */
function describeBigint(value: bigint): string {
  const digits = value.toString();
  if (digits.length <= 20) return digits;
  const magnitude = value < 0n ? -value : value;
  const bits = magnitude.toString(2).length - 1;
  const sign = value < 0n ? '-' : '';
  return magnitude === 1n << BigInt(bits) ? `${sign}2^${bits}` : `${sign}~2^${bits}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
