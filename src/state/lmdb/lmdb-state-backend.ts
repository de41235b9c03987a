import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { KeyedStateBackend } from '../keyed-state-backend.ts';
import { OperatorStateBackend } from '../operator-state-backend.ts';
import type { KeyedStateBackendParameters, StateBackend } from '../state-backend.ts';
import { LmdbKeyedStateBackend } from './lmdb-keyed-state-backend.ts';
import { loadLmdb } from './lmdb-native.ts';
import { LmdbSnapshotThread } from './lmdb-snapshot-writer.ts';
import type { MaterializationPolicy } from '../incremental/incremental-snapshots.ts';

export interface LmdbStateBackendOptions {
  /** state.backend.lmdb.localdir (null: the system's temporary directory). */
  readonly localDir: string | null;
  /** state.backend.lmdb.cache-entries. */
  readonly cacheEntries: number;
  /** execution.checkpointing.incremental (null: off): when a delta chain gets a new full base. */
  readonly incremental?: MaterializationPolicy | null;
  /** state.backend.lmdb.snapshot-thread. */
  readonly snapshotThread: boolean;
}

const PROCESS_DIR = /^weir-tm-(\d+)$/;
/** How long a TaskManager waits for its lmdb snapshot thread to start (compiling the engine's TypeScript on load, from sources, takes most of it). */
const READY_WAIT_MS = 10_000;

/**
 * `state.backend.type: lmdb`: keyed state in an LMDB store per keyed operator subtask, under a
 * working directory per TaskManager process (`<localdir>/weir-tm-<pid>`). A store is thrown
 * away when its subtask ends (restores come from checkpoints), and the directories of processes
 * that are gone (a TaskManager that was killed) are removed at the next start, so they never
 * stand in its way.
 */
export class LmdbStateBackend implements StateBackend {
  readonly type = 'lmdb';
  readonly #options: LmdbStateBackendOptions;
  #workingDir: string | undefined;

  constructor(options: LmdbStateBackendOptions) {
    this.#options = options;
  }

  async prepare(): Promise<void> {
    await loadLmdb();
    // Ready before the first snapshot, if it starts in reasonable time (else the task thread
    // writes snapshots until it is).
    const thread = this.#options.snapshotThread ? LmdbSnapshotThread.shared() : undefined;
    if (thread !== undefined) await thread.readyWithin(READY_WAIT_MS);
  }

  createKeyedStateBackend(p: KeyedStateBackendParameters): KeyedStateBackend {
    const name = `${p.jobId}-${p.uid.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64)}-${p.subtask}-${p.attempt}-${randomBytes(4).toString('hex')}`;
    const path = join(this.#processDir(), name);
    return new LmdbKeyedStateBackend(p.keyGroupRange, p.maxParallelism, p.uid, p.describe, { path, cacheEntries: this.#options.cacheEntries, incremental: this.#options.incremental, snapshotThread: this.#options.snapshotThread, ...(p.now !== undefined ? { now: p.now } : {}) });
  }

  createOperatorStateBackend(restored: Parameters<StateBackend['createOperatorStateBackend']>[0], uid: string): OperatorStateBackend {
    return new OperatorStateBackend(restored, uid);
  }

  #processDir(): string {
    if (this.#workingDir !== undefined) return this.#workingDir;
    const root = this.#options.localDir ?? tmpdir();
    mkdirSync(root, { recursive: true });
    removeDirectoriesOfEndedProcesses(root);
    const dir = join(root, `weir-tm-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    return (this.#workingDir = dir);
  }
}

function removeDirectoriesOfEndedProcesses(root: string): void {
  for (const entry of readdirSync(root)) {
    const pid = PROCESS_DIR.exec(entry)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    rmSync(join(root, entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
