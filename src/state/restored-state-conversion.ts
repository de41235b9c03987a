import type { TypeSerializer } from '../api/serializer.ts';
import type { StateDescriptor } from '../api/state-descriptors.ts';
import { DataOutput } from '../serialization/data-output.ts';
import { describeSnapshot } from '../serialization/incompatible-serializer-error.ts';
import { describeValue } from '../serialization/describe-value.ts';
import { explainCompatibility, type CompatibilityReport } from '../serialization/resolve-compatibility.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import type { TypedSerializer } from '../serialization/serializer-for.ts';
import { MSGPACK_KIND, snapshotOf, TYPES_KIND, type SerializerSnapshot } from '../serialization/serializer-snapshot.ts';
import type { Key } from './key-group.ts';
import { StateMigrationError } from './state-migration-error.ts';

/** Turns one restored value (as the state file reader made it) into a value of the job's descriptor. */
export type RestoredValueConversion = (value: unknown, key: Key) => unknown;

/**
 * What restored values of a state need before the operator may use them, decided when the
 * operator asks for the state with its descriptor (Flink's TypeSerializerSchemaCompatibility):
 *
 * - compatible as-is (the same serializer): nothing, or a custom serializer's deserialize of the
 *   stored bytes;
 * - compatible after migration: the schema migration resolveCompatibility found (int -> bigint,
 *   a nullable field added, ...), or, for the same msgpack or custom serializer at another
 *   version, the descriptor's upgrade function, as before;
 * - incompatible: the descriptor's upgrade function when the stored values could be read without
 *   the job's serializer (weir-types and msgpack state; its results are checked against a
 *   declared type), else a StateMigrationError naming the operator uid, the state and both
 *   serializers (kind, version and schema) and where they part.
 *
 * Returns undefined when the values are usable as they are.
 */
export function restoredStateConversion(uid: string, descriptor: StateDescriptor, stored: SerializerSnapshot): RestoredValueConversion | undefined {
  const serializer = descriptor.serializer as TypeSerializer<unknown>;
  const current = snapshotOf(serializer);
  // weir-types and msgpack values were decoded by the file reader; custom ones are still bytes.
  const selfDescribing = stored.kind === TYPES_KIND || stored.kind === MSGPACK_KIND;
  const decode = selfDescribing ? undefined : (v: unknown) => serializer.deserialize(v as Uint8Array);
  const report: CompatibilityReport =
    !selfDescribing && stored.kind !== current.kind
      ? { result: 'incompatible', reason: `the stored values are bytes of serializer '${stored.kind}', which only that serializer reads`, convert: (v) => v }
      : explainCompatibility(stored, current);
  const upgrade = descriptor.upgrade;
  const name = descriptor.name;

  if (report.result === 'compatible-as-is') return decode;
  if (report.result === 'compatible-after-migration') {
    if (stored.kind !== TYPES_KIND && current.kind !== TYPES_KIND) {
      if (!upgrade) throw new StateMigrationError(uid, name, stored.version, current.version, undefined, { stored, current });
      return decode === undefined ? (v) => upgrade(v, stored.version) : (v) => upgrade(decode(v), stored.version);
    }
    const convert = report.convert;
    return decode === undefined ? convert : (v) => convert(decode(v));
  }
  if (upgrade && selfDescribing) {
    const upgraded: RestoredValueConversion = (v) => upgrade(v, stored.version);
    return current.kind === TYPES_KIND ? checkedAgainst(serializer as TypedSerializer<unknown>, upgraded, uid, name, stored, current) : upgraded;
  }
  const where = report.path ? ` at ${report.path}` : '';
  const hint = selfDescribing
    ? 'declare a type the stored one migrates to (e.g. int -> bigint, a struct field added as nullable), or convert the stored values with { upgrade: (value, fromVersion) => ... } on the state descriptor'
    : `keep serializer '${stored.kind}' for this state (another version of it may convert with an upgrade function)`;
  throw new StateMigrationError(
    uid,
    name,
    stored.version,
    current.version,
    `state '${name}' of operator uid '${uid}' was written with serializer ${describeSnapshot(stored)}, the job now uses ${describeSnapshot(current)}, which cannot read it${where}: ${report.reason ?? 'incompatible'}; ${hint}`,
    { stored, current, ...(report.path !== undefined ? { path: report.path } : {}) },
  );
}

/**
 * An upgrade function's results are the job's own code: each one must fit the declared type, or
 * the restore fails here, naming the key, rather than at the next checkpoint.
 */
function checkedAgainst(
  serializer: TypedSerializer<unknown>,
  upgraded: RestoredValueConversion,
  uid: string,
  name: string,
  stored: SerializerSnapshot,
  current: SerializerSnapshot,
): RestoredValueConversion {
  const scratch = DataOutput.growable(256);
  return (value, key) => {
    const result = upgraded(value, key);
    scratch.pos = 0;
    try {
      serializer.encode(result, scratch);
    } catch (e) {
      if (!(e instanceof SerializationError)) throw e;
      throw new StateMigrationError(
        uid,
        name,
        stored.version,
        current.version,
        `state '${name}' of operator uid '${uid}': the upgrade function made a value for key ${describeValue(key)} that ${describeSnapshot(current)} cannot write: ${e.problem}`,
        { stored, current, ...(e.path !== undefined ? { path: e.path } : {}), cause: e },
      );
    }
    return result;
  };
}
