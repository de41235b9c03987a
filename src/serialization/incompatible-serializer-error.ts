import { describeType } from './describe-type.ts';
import type { SerializerSnapshot } from './serializer-snapshot.ts';

/** Stored state that the current serializer cannot read, even after a migration: says what was stored, what is declared, and where they part. */
export class IncompatibleSerializerError extends Error {
  /** The stored state and the job's type are the same after a restart: the job fails at once. */
  readonly unrecoverable = true;
  readonly stored: SerializerSnapshot;
  readonly current: SerializerSnapshot;
  /** Where in the value the types part (`$.count`), when the schemas are what differ. */
  readonly path: string | undefined;
  readonly reason: string;

  constructor(stored: SerializerSnapshot, current: SerializerSnapshot, reason: string, path?: string) {
    super(`state written by ${describeSnapshot(stored)} cannot be read by ${describeSnapshot(current)}: ${path ? `at ${path}: ` : ''}${reason}`);
    this.name = 'IncompatibleSerializerError';
    this.stored = stored;
    this.current = current;
    this.path = path;
    this.reason = reason;
  }
}

export function describeSnapshot(s: SerializerSnapshot): string {
  return s.schema.kind === 'any' && s.kind !== 'weir-types' ? `${s.kind} v${s.version}` : `${s.kind} v${s.version} ${describeType(s.schema)}`;
}
