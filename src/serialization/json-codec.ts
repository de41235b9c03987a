import type { NestedCodec } from './codec.ts';
import type { DataInput } from './data-input.ts';
import type { DataOutput } from './data-output.ts';
import { describeValue } from './describe-value.ts';
import { memberPath } from './member-path.ts';
import { SerializationError } from './serialization-error.ts';

/**
 * `Types.json`: JSON text, length-prefixed. JSON.stringify drops functions and undefined, turns
 * NaN into null and Dates into strings, all silently; so the value is checked first and anything
 * that would not come back as it went in is an error with its path.
 */
export const jsonCodec: NestedCodec = {
  encode(value: unknown, out: DataOutput, path: string): void {
    checkJson(value, path, []);
    out.writeString(JSON.stringify(value));
  },
  decode(input: DataInput): unknown {
    const start = input.pos;
    const text = input.readString();
    try {
      return JSON.parse(text);
    } catch (e) {
      throw SerializationError.corrupt(`JSON text that does not parse (${(e as Error).message})`, start, e);
    }
  },
};

function checkJson(value: unknown, path: string, ancestors: object[]): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (Number.isFinite(value)) return;
      break;
    case 'object':
      if (value === null) return;
      if (ancestors.includes(value)) throw SerializationError.mismatch(path, 'json', 'cyclic object');
      if (Array.isArray(value)) return checkArray(value, path, ancestors);
      if (isPlainObject(value)) return checkObject(value as Record<string, unknown>, path, ancestors);
      break;
  }
  throw SerializationError.mismatch(path, 'json', describeValue(value));
}

function checkArray(value: unknown[], path: string, ancestors: object[]): void {
  ancestors.push(value);
  for (let i = 0; i < value.length; i++) checkJson(value[i], `${path}[${i}]`, ancestors);
  ancestors.pop();
}

function checkObject(value: Record<string, unknown>, path: string, ancestors: object[]): void {
  ancestors.push(value);
  for (const key in value) checkJson(value[key], memberPath(path, key), ancestors);
  ancestors.pop();
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
