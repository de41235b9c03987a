import type { ReduceFunction } from './functions.ts';

/** The rolling aggregations of KeyedStream.sum, min and max. */
export type FieldAggregation = 'sum' | 'min' | 'max';

/**
 * Each aggregation as source text over `x` (the aggregate's value) and `y` (the record's), so
 * that it is compiled into the function that builds the result: no call per record, and each
 * operand read once, as Flink's aggregators read them.
 */
const COMBINE: Readonly<Record<FieldAggregation, string>> = {
  sum: 'x + y',
  min: 'y < x ? y : x',
  max: 'y > x ? y : x',
};

/**
 * Flink's field aggregation: the first record's other fields, the aggregated field updated. The
 * aggregate is a new object each time (the previous one may still be in flight downstream); it
 * is built by a function generated for the record's shape, which V8 runs several times faster
 * than an object spread, and the shape is checked on every call. Without a field the records
 * are the values (numbers, bigints).
 */
export function fieldAggregator<T>(field: string | undefined, aggregation: FieldAggregation): ReduceFunction<T> {
  if (field === undefined) return compiled(['x', 'y'], `return ${COMBINE[aggregation]};`) as ReduceFunction<T>;
  let keys: string[] = [];
  let build: ((a: object, b: object) => object) | undefined;
  const sameShape = (a: object): boolean => {
    let i = 0;
    for (const k in a) if (k !== keys[i++]) return false;
    return i === keys.length;
  };
  return (a, b) => {
    if (build === undefined || !sameShape(a as object)) {
      keys = Object.keys(a as object);
      build = shapeBuilder(keys, field, COMBINE[aggregation]);
    }
    return build(a as object, b as object) as T;
  };
}

/** `(a, b) => ({ ...a's fields in a's order, [field]: combine(a[field], b[field]) })`, unrolled. */
function shapeBuilder(keys: readonly string[], field: string, combine: string): (a: object, b: object) => object {
  const f = JSON.stringify(field);
  const props = keys.map((k) => `${JSON.stringify(k)}: ${k === field ? 'v' : `a[${JSON.stringify(k)}]`}`);
  if (!keys.includes(field)) props.push(`${f}: v`);
  return compiled(['a', 'b'], `const x = a[${f}], y = b[${f}], v = ${combine}; return { ${props.join(', ')} };`) as (a: object, b: object) => object;
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
