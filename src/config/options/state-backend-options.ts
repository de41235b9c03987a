import { option } from '../config-option.ts';

/** Where keyed state lives: which backend, and the on-disk backend's local files and cache. */
export const STATE_BACKEND_OPTIONS = [
  option('state.backend.type').enumType(['heap', 'lmdb']).defaultValue('heap')
    .withDescription(
      'The keyed state backend: heap keeps state in each TaskManager\'s memory (Flink\'s hashmap); lmdb keeps it in an embedded LMDB store on local disk ' +
        'with a bounded cache in memory, so state may be far larger than the heap. Both write the same snapshot format: a savepoint of one restores on the other.',
    ),
  option('state.backend.lmdb.localdir').stringType().noDefaultValue()
    .withDescription(
      'The directory under which each TaskManager keeps the lmdb backend\'s working files (one store per keyed operator subtask, deleted when the subtask ends); ' +
        'named after Flink\'s state.backend.rocksdb.localdir. Unset: the system\'s temporary directory.',
    ),
  option('state.backend.lmdb.cache-entries').intType().between(16, 100_000_000).defaultValue(50_000)
    .withDescription(
      'Entries of one keyed state of one subtask that the lmdb backend keeps decoded in memory (those not used since the cache last made room go first, the CLOCK rule; written back if changed): ' +
        'what bounds the heap the state takes, whatever the state\'s size.',
    ),
  option('state.backend.lmdb.snapshot-thread').booleanType().defaultValue(true)
    .withDescription(
      'Snapshots of the lmdb backend (savepoints, full checkpoints, the bases and deltas of incremental ones) are read and written by a thread of their own, one per TaskManager thread, ' +
        'from a read transaction of the store it opens at the snapshot (LMDB keeps what it saw while the task goes on writing), so the task thread goes on processing records ' +
        '(Flink\'s RocksDB backend uploads from a pool of its own, state.backend.rocksdb.checkpoint.transfer.thread.num). false: the task thread writes them between records.',
    ),
] as const;
