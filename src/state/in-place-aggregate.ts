/**
 * A rolling aggregate whose state is kept in memory in a form of its own, changed in place by
 * each record, while snapshots write, and restores read, the value that a reduce would hold.
 * A field aggregation keeps the record that gives the other fields and the aggregated value
 * apart: it then needs neither a shape check nor a stored object per record, and the object it
 * emits is not kept by the state (so it dies young).
 */
export interface InPlaceAggregate<S, T> {
  /** The state of a key whose first record is `value` (the record itself is emitted). */
  first(value: T): S;
  /** Folds `value` into `state`, changing it, and returns the record to emit. */
  fold(state: S, value: T): T;
  /** What a snapshot writes for a state: the key's current aggregate. */
  toStored(state: S): T;
  /** The state of a restored aggregate. */
  fromStored(stored: T): S;
  /** A copy that fold() may change while a snapshot still holds the original. */
  copy(state: S): S;
}
