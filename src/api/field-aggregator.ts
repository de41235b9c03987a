import type { InPlaceAggregate } from '../state/in-place-aggregate.ts';
import type { ReduceFunction } from './functions.ts';

/** The rolling aggregations of KeyedStream.sum, min and max. */
export type FieldAggregation = 'sum' | 'min' | 'max';

/**
 * Each aggregation as source text over `x` (the aggregate's value) and `y` (the record's), so
 * that it is compiled into the function that applies it: no call per record, and each operand
 * read once, as Flink's aggregators read them.
 */
const COMBINE: Readonly<Record<FieldAggregation, string>> = {
  sum: 'x + y',
  min: 'y < x ? y : x',
  max: 'y > x ? y : x',
};

/**
 * What a field aggregator is, on the function itself, so that the reduce operator can keep its
 * state in place (fieldAggregateOf). A registered symbol: a job bundled with a copy of the API
 * still makes functions the running engine recognizes.
 */
const FIELD_AGGREGATION = Symbol.for('weir.field-aggregation');

interface FieldAggregationSpec {
  readonly field: string;
  readonly aggregation: FieldAggregation;
}

/**
 * Flink's field aggregation: the first record's other fields, the aggregated field updated. The
 * aggregate is a new object each time (the previous one may still be in flight downstream); it
 * is built by a function generated for the record's shape, which V8 runs several times faster
 * than an object spread. Without a field the records are the values (numbers, bigints).
 *
 * The reduce operator does not call this function for a field: it keeps each key's state as
 * fieldAggregateOf describes, which emits the same records.
 */
export function fieldAggregator<T>(field: string | undefined, aggregation: FieldAggregation): ReduceFunction<T> {
  const combine = compiled(['x', 'y'], `return ${COMBINE[aggregation]};`) as (x: unknown, y: unknown) => unknown;
  if (field === undefined) return combine as ReduceFunction<T>;
  const builderFor = shapeBuilders(field);
  const reduce: ReduceFunction<T> = (a, b) => {
    const value = combine((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]);
    return builderFor(a as object)(a as object, value) as T;
  };
  const spec: FieldAggregationSpec = { field, aggregation };
  Object.defineProperty(reduce, FIELD_AGGREGATION, { value: spec });
  return reduce;
}

/** A key's field aggregate while the job runs. */
interface FieldAggregate {
  /** The record the other fields come from: the key's first (or restored) aggregate. */
  readonly template: object;
  /** The aggregated value, once a record has been folded in. */
  value: unknown;
  /** Whether a record has been folded in: until then the template is the aggregate. */
  folded: boolean;
  /** Builds the aggregate from the template and a value; made at the first fold. */
  build: ((template: object, value: unknown) => object) | undefined;
}

/**
 * How the reduce operator keeps the state of a field aggregator (undefined for other
 * functions): the template record and the aggregated value apart, so that a record costs one
 * combination and one new object, with no shape check, and the state keeps no object that was
 * emitted; snapshots write the aggregate itself. Each field is read when fieldAggregator would
 * read it: the aggregate's field and the record's, then the other fields (at a key's first
 * fold, the template's field, as the reduce reads its first record's).
 */
export function fieldAggregateOf<T>(fn: ReduceFunction<T>): InPlaceAggregate<unknown, T> | undefined {
  const spec = (fn as unknown as { [FIELD_AGGREGATION]?: FieldAggregationSpec })[FIELD_AGGREGATION];
  if (spec === undefined) return undefined;
  const f = JSON.stringify(spec.field);
  const builderFor = shapeBuilders(spec.field);
  // One generated step per field and aggregation: the combination inline, the builder a call.
  const step = compiled(
    ['h', 'b', 'builderFor'],
    `let x;
if (h.folded) x = h.value;
else x = h.template[${f}];
const y = b[${f}];
const v = ${COMBINE[spec.aggregation]};
if (!h.folded) { h.build = builderFor(h.template); h.folded = true; }
h.value = v;
return h.build(h.template, v);`,
  ) as (h: FieldAggregate, b: unknown, builderFor: (a: object) => (a: object, v: unknown) => object) => T;
  const fresh = (template: object): FieldAggregate => ({ template, value: undefined, folded: false, build: undefined });
  return {
    first: (value) => fresh(value as object),
    fold: (h, value) => step(h as FieldAggregate, value, builderFor),
    toStored: (h) => {
      const a = h as FieldAggregate;
      return (a.folded ? a.build!(a.template, a.value) : a.template) as T;
    },
    fromStored: (stored) => fresh(stored as object),
    copy: (h) => {
      const a = h as FieldAggregate;
      return { template: a.template, value: a.value, folded: a.folded, build: a.build };
    },
  };
}

/**
 * The builder for an aggregate shaped like `a`: `(a, v) => ({ ...a's fields in a's order,
 * [field]: v })`, unrolled. The last one is kept and reused while records keep their shape.
 */
function shapeBuilders(field: string): (a: object) => (a: object, v: unknown) => object {
  let keys: string[] = [];
  let build: ((a: object, v: unknown) => object) | undefined;
  const sameShape = (a: object): boolean => {
    let i = 0;
    for (const k in a) if (k !== keys[i++]) return false;
    return i === keys.length;
  };
  return (a) => {
    if (build === undefined || !sameShape(a)) {
      keys = Object.keys(a);
      build = shapeBuilder(keys, field);
    }
    return build;
  };
}

function shapeBuilder(keys: readonly string[], field: string): (a: object, v: unknown) => object {
  const props = keys.map((k) => `${JSON.stringify(k)}: ${k === field ? 'v' : `a[${JSON.stringify(k)}]`}`);
  if (!keys.includes(field)) props.push(`${JSON.stringify(field)}: v`);
  return compiled(['a', 'v'], `return { ${props.join(', ')} };`) as (a: object, v: unknown) => object;
}

/**
 * Generated functions by their source. Every job that aggregates records of one shape gets the
 * same function, so that V8 keeps one compiled copy and the call into it stays monomorphic in a
 * process that runs many jobs (a fresh function per job would make the call megamorphic).
 */
const COMPILED = new Map<string, (...args: never[]) => unknown>();
const COMPILED_LIMIT = 1024;

function compiled(params: readonly string[], body: string): (...args: never[]) => unknown {
  const source = `${params.join(',')}\n${body}`;
  let fn = COMPILED.get(source);
  if (fn === undefined) {
    // Shapes are few in practice; a job that makes endless ones must not grow this without bound.
    if (COMPILED.size >= COMPILED_LIMIT) COMPILED.clear();
    fn = new Function(...params, body) as (...args: never[]) => unknown;
    COMPILED.set(source, fn);
  }
  return fn;
}
