/**
 * A record of one input of a two-input operator on its way through the single-input operator
 * that runs the user's function (ProcessOperator, KeyedProcessOperator): which input it came
 * from, and the record. One mutable object per operator: a record is done with before the next.
 */
export interface TaggedRecord {
  input: 0 | 1;
  value: unknown;
}

export function taggedRecord(): TaggedRecord {
  return { input: 0, value: undefined };
}

/** The function object of one parallel instance: a factory's product, or the user's object as a prototype (see KeyedProcessOperator). */
export function perInstance<F extends object>(fn: F | (() => F)): F {
  return typeof fn === 'function' ? (fn as () => F)() : (Object.create(fn) as F);
}
