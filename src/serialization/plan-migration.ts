import { describeType } from './describe-type.ts';
import { memberPath } from './member-path.ts';
import type { StructField, TypeInfo } from './type-info.ts';

type Convert = (value: unknown) => unknown;

/**
 * How values of a stored type become values of the current one. The rule: a migration exists
 * when *every* stored value has a current value it converts to; when only some do (double ->
 * int, nullable<T> -> T, any -> T) it is incompatible, since the restore would fail half-way
 * through the state. Partial conversions are the job's to write (a descriptor's upgrade).
 *
 *   as-is       identical types: the stored bytes are read by the current codec
 *   migrate     int -> double | bigint | timestamp, timestamp -> int | double | bigint,
 *               T -> nullable<T>, T -> any, T -> json when T is JSON-safe, struct fields
 *               dropped, reordered or added as nullable (they read as null), and the same rules
 *               inside arrays, map keys and values, struct fields and tuple items
 *   incompatible everything else: string -> int, a new required field, double -> int, ...
 */
export type Migration =
  | { readonly verdict: 'as-is' }
  | { readonly verdict: 'migrate'; readonly convert: Convert }
  | { readonly verdict: 'incompatible'; readonly path: string; readonly reason: string };

const AS_IS: Migration = { verdict: 'as-is' };
const identity: Convert = (v) => v;
const toBigint: Convert = (v) => BigInt(v as number);

export function planMigration(from: TypeInfo, to: TypeInfo, path = '$'): Migration {
  if (JSON.stringify(from) === JSON.stringify(to)) return AS_IS;
  if (to.kind === 'any') return migrate(identity);
  switch (to.kind) {
    case 'double':
    case 'int':
    case 'timestamp':
      return from.kind === 'int' || from.kind === 'timestamp' ? migrate(identity) : cannot(from, to, path);
    case 'bigint':
      return from.kind === 'int' || from.kind === 'timestamp' ? migrate(toBigint) : cannot(from, to, path);
    case 'json':
      return isJsonSafe(from) ? migrate(identity) : cannot(from, to, path, 'some of its values are not JSON');
    case 'nullable':
      return toNullable(from, to.of, path);
    case 'array':
      return from.kind === 'array' ? mapped(planMigration(from.of, to.of, `${path}[]`), (c) => (v) => (v as unknown[]).map(c)) : cannot(from, to, path);
    case 'map':
      return from.kind === 'map' ? mapMigration(from.key, from.value, to.key, to.value, path) : cannot(from, to, path);
    case 'struct':
      return from.kind === 'struct' ? structMigration(from.fields, to.fields, path) : cannot(from, to, path);
    case 'tuple':
      return from.kind === 'tuple' && from.items.length === to.items.length ? tupleMigration(from.items, to.items, path) : cannot(from, to, path);
    default:
      return cannot(from, to, path);
  }
}

function migrate(convert: Convert): Migration {
  return { verdict: 'migrate', convert };
}

function cannot(from: TypeInfo, to: TypeInfo, path: string, why?: string): Migration {
  return { verdict: 'incompatible', path, reason: `stored ${describeType(from)} cannot become ${describeType(to)}${why ? ` (${why})` : ''}` };
}

/** An inner migration lifted to a container: as-is stays as-is, incompatible stays incompatible. */
function mapped(inner: Migration, lift: (convert: Convert) => Convert): Migration {
  if (inner.verdict !== 'migrate') return inner;
  return migrate(lift(inner.convert));
}

function toNullable(from: TypeInfo, of: TypeInfo, path: string): Migration {
  if (from.kind === 'nullable') return mapped(planMigration(from.of, of, path), (c) => (v) => (v == null ? null : c(v)));
  const inner = planMigration(from, of, path);
  if (inner.verdict === 'incompatible') return inner;
  // The bytes differ (a presence byte), so even an identical inner type migrates.
  return migrate(inner.verdict === 'migrate' ? inner.convert : identity);
}

function mapMigration(fromKey: TypeInfo, fromValue: TypeInfo, toKey: TypeInfo, toValue: TypeInfo, path: string): Migration {
  const key = planMigration(fromKey, toKey, `${path}.keys()[]`);
  if (key.verdict === 'incompatible') return key;
  const value = planMigration(fromValue, toValue, `${path}.get()`);
  if (value.verdict === 'incompatible') return value;
  const k = key.verdict === 'migrate' ? key.convert : identity;
  const x = value.verdict === 'migrate' ? value.convert : identity;
  return migrate((v) => new Map([...(v as Map<unknown, unknown>)].map(([a, b]) => [k(a), x(b)])));
}

function structMigration(from: readonly StructField[], to: readonly StructField[], path: string): Migration {
  const plans: Array<{ name: string; convert: Convert | undefined; added: boolean }> = [];
  for (const field of to) {
    const stored = from.find((f) => f.name === field.name);
    const fieldPath = memberPath(path, field.name);
    if (!stored) {
      if (field.type.kind !== 'nullable') {
        return { verdict: 'incompatible', path: fieldPath, reason: `a new field of type ${describeType(field.type)} that stored values lack (add it as Types.nullable(...) to read them with null)` };
      }
      plans.push({ name: field.name, convert: undefined, added: true });
      continue;
    }
    const plan = planMigration(stored.type, field.type, fieldPath);
    if (plan.verdict === 'incompatible') return plan;
    plans.push({ name: field.name, convert: plan.verdict === 'migrate' ? plan.convert : identity, added: false });
  }
  return migrate((v) => {
    const source = v as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const p of plans) result[p.name] = p.added ? null : p.convert!(source[p.name]);
    return result;
  });
}

function tupleMigration(from: readonly TypeInfo[], to: readonly TypeInfo[], path: string): Migration {
  const plans = from.map((f, i) => planMigration(f, to[i]!, `${path}[${i}]`));
  const bad = plans.find((p) => p.verdict === 'incompatible');
  if (bad) return bad;
  const converts = plans.map((p) => (p.verdict === 'migrate' ? p.convert : identity));
  return migrate((v) => converts.map((c, i) => c((v as unknown[])[i])));
}

/** Every value of the type survives JSON text unchanged (numbers that are safe integers, no NaN). */
function isJsonSafe(type: TypeInfo): boolean {
  switch (type.kind) {
    case 'string':
    case 'int':
    case 'boolean':
    case 'timestamp':
    case 'json':
      return true;
    case 'nullable':
    case 'array':
      return isJsonSafe(type.of);
    case 'tuple':
      return type.items.every(isJsonSafe);
    case 'struct':
      return type.fields.every((f) => isJsonSafe(f.type));
    default:
      return false;
  }
}
