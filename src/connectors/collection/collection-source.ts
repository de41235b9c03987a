import { DataGenSource } from '../datagen/datagen-source.ts';

/** The elements of an array, in order within each reader's share; positions make it resumable. */
export class CollectionSource<T> extends DataGenSource<T> {
  constructor(items: readonly T[]) {
    super({ generate: (i) => items[i]!, count: items.length });
  }
}
