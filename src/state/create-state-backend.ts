import type { WeirConfig } from '../config/configuration.ts';
import { createHeapStateBackend } from './heap-state-backend.ts';
import { LmdbStateBackend } from './lmdb/lmdb-state-backend.ts';
import type { StateBackend } from './state-backend.ts';

type StateBackendConfig = Pick<WeirConfig, 'state.backend.type' | 'state.backend.lmdb.localdir' | 'state.backend.lmdb.cache-entries' | 'state.backend.lmdb.snapshot-thread'> &
  Partial<Pick<WeirConfig, 'execution.checkpointing.incremental' | 'execution.checkpointing.incremental.max-deltas'>>;

/** The state backend `state.backend.type` names, with its settings. */
export function createStateBackend(config: StateBackendConfig): StateBackend {
  const incremental = config['execution.checkpointing.incremental'] === true ? { maxDeltas: config['execution.checkpointing.incremental.max-deltas'] ?? 10 } : null;
  switch (config['state.backend.type']) {
    case 'heap':
      return createHeapStateBackend(incremental);
    case 'lmdb':
      return new LmdbStateBackend({ localDir: config['state.backend.lmdb.localdir'], cacheEntries: config['state.backend.lmdb.cache-entries'], snapshotThread: config['state.backend.lmdb.snapshot-thread'], incremental });
  }
}
