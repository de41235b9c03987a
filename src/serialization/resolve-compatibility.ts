import { IncompatibleSerializerError } from './incompatible-serializer-error.ts';
import { planMigration, type Migration } from './plan-migration.ts';
import { TYPES_FORMAT_VERSION, TYPES_KIND, type SerializerSnapshot } from './serializer-snapshot.ts';

export type Compatibility = 'compatible-as-is' | 'compatible-after-migration' | 'incompatible';

export interface CompatibilityReport {
  readonly result: Compatibility;
  /** Where the schemas part, for incompatible ones. */
  readonly path?: string;
  /** Why, in words, for anything but as-is. */
  readonly reason?: string;
  /** Turns a value read with the stored serializer into one of the current (identity when as-is). */
  readonly convert: (value: unknown) => unknown;
}

const identity = (v: unknown) => v;

/**
 * Whether state written with `stored` can be read by `current` (Flink's
 * TypeSerializerSchemaCompatibility):
 *
 * - both weir-types: the schemas decide (plan-migration.ts); a stored format version newer than
 *   this weir's is incompatible, an older one migrates (read with the old codec, re-encoded);
 * - weir-types and msgpack (or a custom kind) in either direction: the bytes differ, so at best
 *   after migration: msgpack is `any`, so msgpack -> T is incompatible unless T is any, and
 *   T -> msgpack always migrates;
 * - the same non-weir-types kind: as-is at the same version; another version migrates through
 *   the state descriptor's upgrade function, as before (the caller applies it);
 * - different non-weir-types kinds: incompatible.
 */
export function explainCompatibility(stored: SerializerSnapshot, current: SerializerSnapshot): CompatibilityReport {
  const storedTypes = stored.kind === TYPES_KIND;
  const currentTypes = current.kind === TYPES_KIND;
  if (storedTypes && stored.version > TYPES_FORMAT_VERSION) {
    return incompatible(`written in weir-types format version ${stored.version}, this weir reads up to ${TYPES_FORMAT_VERSION}`);
  }
  if (!storedTypes && !currentTypes) return sameKindReport(stored, current);
  const plan = planMigration(stored.schema, current.schema);
  if (plan.verdict === 'incompatible') return { result: 'incompatible', path: plan.path, reason: plan.reason, convert: identity };
  const convert = plan.verdict === 'migrate' ? plan.convert : identity;
  if (plan.verdict === 'as-is' && storedTypes && currentTypes && stored.version === current.version) return { result: 'compatible-as-is', convert };
  return { result: 'compatible-after-migration', reason: migrationReason(stored, current, plan), convert };
}

export function resolveCompatibility(stored: SerializerSnapshot, current: SerializerSnapshot): Compatibility {
  return explainCompatibility(stored, current).result;
}

/** The conversion from stored to current values, or an IncompatibleSerializerError saying why there is none. */
export function migrationFor(stored: SerializerSnapshot, current: SerializerSnapshot): (value: unknown) => unknown {
  const report = explainCompatibility(stored, current);
  if (report.result === 'incompatible') throw new IncompatibleSerializerError(stored, current, report.reason ?? 'incompatible', report.path);
  return report.convert;
}

function sameKindReport(stored: SerializerSnapshot, current: SerializerSnapshot): CompatibilityReport {
  if (stored.kind !== current.kind) return incompatible(`serializer '${stored.kind}' was replaced by '${current.kind}'`);
  if (stored.version === current.version) return { result: 'compatible-as-is', convert: identity };
  return { result: 'compatible-after-migration', reason: `serializer '${stored.kind}' version ${stored.version} -> ${current.version}: the state descriptor's upgrade function converts the values`, convert: identity };
}

function migrationReason(stored: SerializerSnapshot, current: SerializerSnapshot, plan: Migration): string {
  if (stored.kind !== current.kind) return `serializer '${stored.kind}' -> '${current.kind}': values are read with the stored one and written with the current one`;
  if (plan.verdict === 'as-is') return `weir-types format version ${stored.version} -> ${current.version}`;
  return 'the schema changed in a way every stored value converts to (see plan-migration.ts)';
}

function incompatible(reason: string): CompatibilityReport {
  return { result: 'incompatible', reason, convert: identity };
}
