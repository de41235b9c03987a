import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { KeyedStateHandle } from '../../checkpoint/state-handles.ts';
import type { KeyGroupRange } from '../key-group.ts';
import type { DirtyKeyEntries } from '../incremental/dirty-keys.ts';
import type { FromSnapshotThread, SnapshotThreadState, ToSnapshotThread } from './lmdb-snapshot-protocol.ts';

const FROM_SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = new URL(FROM_SOURCES ? './lmdb-snapshot-bootstrap.mjs' : './lmdb-snapshot-thread.js', import.meta.url);
/**
 * How long a task thread waits for the snapshot thread to open its read transaction. It answers
 * between two slices of the file it is writing (a few milliseconds at most); one that does not
 * answer in this time is stuck, and the task thread writes its snapshot itself.
 */
const OPEN_TIMEOUT_MS = 2_000;

/** A snapshot file the snapshot thread could not write. */
export class SnapshotThreadWriteError extends Error {
  readonly file: string;
  readonly operatorUid: string;
  /** The OS's error code (ENOSPC, EACCES...), when the thread's error had one. */
  readonly code: string | undefined;
  constructor(file: string, operatorUid: string, error: { readonly name: string; readonly message: string; readonly code?: string }) {
    super(`writing the keyed state of operator uid '${operatorUid}' to ${file} failed (lmdb snapshot thread): ${error.name}: ${error.message}`);
    this.name = 'SnapshotThreadWriteError';
    this.file = file;
    this.operatorUid = operatorUid;
    this.code = error.code;
  }
}

/** What a file written from a thread snapshot holds: the full state, or (`changed`) an incremental checkpoint's delta. */
export interface SnapshotToWrite {
  readonly uid: string;
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly states: readonly SnapshotThreadState[];
  readonly changed?: DirtyKeyEntries;
}

/** One store's snapshot as the snapshot thread's read transaction holds it: written once, released once. */
export interface ThreadSnapshot {
  write(file: string, what: SnapshotToWrite, signal?: AbortSignal): Promise<KeyedStateHandle>;
  /** The thread lets its read transaction go; `onReleased` runs once it has (or the thread is gone). */
  release(onReleased: () => void): void;
}

interface Pending {
  written?: { resolve(handle: KeyedStateHandle): void; reject(e: unknown): void; file: string; uid: string; signal: AbortSignal | undefined };
  released?: () => void;
}

/**
 * The lmdb snapshot thread of this thread: snapshots of lmdb stores (savepoints, full
 * checkpoints, the bases and deltas of incremental ones) are written there, from a read transaction it
 * opens while the task thread waits (LMDB's MVCC keeps what it saw while the task goes on
 * writing), so encoding millions of entries takes no time from the task thread. Only the running
 * engine's own files can start it (a job bundle carries no entry for it): without it, and until it
 * is ready, the task thread writes its snapshots itself, as it always could.
 */
export class LmdbSnapshotThread {
  static #shared: LmdbSnapshotThread | undefined;
  /** True once the thread takes snapshots, false if it ended first. */
  readonly ready: Promise<boolean>;
  #onReady: (ready: boolean) => void = () => {};
  readonly #worker: Worker;
  readonly #flag = new Int32Array(new SharedArrayBuffer(4));
  readonly #pending = new Map<number, Pending>();
  #state: 'starting' | 'ready' | 'gone' = 'starting';
  #tickets = 0;
  /** Writes and releases under way: while there are any, the thread keeps the process alive (someone awaits it). */
  #busy = 0;

  /** This thread's snapshot thread, started on first use; undefined when it cannot be. */
  static shared(): LmdbSnapshotThread | undefined {
    const current = LmdbSnapshotThread.#shared;
    if (current !== undefined && current.#state === 'gone') LmdbSnapshotThread.#shared = undefined;
    if (LmdbSnapshotThread.#shared === undefined && existsSync(fileURLToPath(ENTRY))) LmdbSnapshotThread.#shared = new LmdbSnapshotThread();
    return LmdbSnapshotThread.#shared;
  }

  private constructor() {
    this.ready = new Promise((resolve) => (this.#onReady = resolve));
    this.#worker = new Worker(ENTRY, { stdout: false, stderr: false });
    this.#worker.on('message', (m: FromSnapshotThread) => this.#receive(m));
    this.#worker.on('error', () => this.#gone());
    this.#worker.on('exit', () => this.#gone());
    // It must not keep a process alive that has nothing else to do once it has started (unref
    // after the listeners: a 'message' listener refs the thread's port again).
    this.#busy = 1;
    void this.ready.then(() => this.#hold(-1));
  }

  /** Whether it is ready within `ms` (it may still become ready later). */
  async readyWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.ready, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Opens a read transaction of the store at `path` in the snapshot thread, waiting until it is
   * open (the caller commits nothing meanwhile, so it sees exactly what the caller has written).
   * Undefined when the thread is not ready or could not open one: the caller snapshots in-thread.
   */
  open(path: string): ThreadSnapshot | undefined {
    if (this.#state !== 'ready') return undefined;
    const ticket = ++this.#tickets;
    Atomics.store(this.#flag, 0, 0);
    this.#send({ type: 'open', ticket, path, flag: this.#flag });
    const deadline = performance.now() + OPEN_TIMEOUT_MS;
    let answer = 0;
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.#flag, 0, 0, left);
      answer = Atomics.load(this.#flag, 0);
      if (answer !== 0) break;
    }
    if (answer !== ticket) {
      // Opened too late to be of use, or not at all: it lets the transaction go.
      this.#send({ type: 'release', ticket });
      return undefined;
    }
    return this.#snapshot(ticket);
  }

  #snapshot(ticket: number): ThreadSnapshot {
    const pending: Pending = {};
    this.#pending.set(ticket, pending);
    return {
      write: (file, what, signal) =>
        new Promise<KeyedStateHandle>((resolve, reject) => {
          // An aborted checkpoint may come to write after its snapshot was let go: nothing to write then.
          if (signal?.aborted) return reject(signal.reason);
          if (this.#state === 'gone') return reject(new SnapshotThreadWriteError(file, what.uid, { name: 'Error', message: 'the thread is gone' }));
          if (pending.released !== undefined) return reject(new SnapshotThreadWriteError(file, what.uid, { name: 'Error', message: 'the snapshot was already released' }));
          this.#hold(1);
          pending.written = {
            resolve: (handle) => (this.#hold(-1), resolve(handle)),
            reject: (e) => (this.#hold(-1), reject(e)),
            file,
            uid: what.uid,
            signal,
          };
          signal?.addEventListener('abort', () => this.#send({ type: 'abort', ticket, reason: String((signal.reason as Error)?.message ?? signal.reason) }), { once: true });
          this.#send({ type: 'write', ticket, file, ...what });
        }),
      release: (onReleased) => {
        if (this.#state === 'gone') return onReleased();
        this.#hold(1);
        pending.released = () => (this.#hold(-1), onReleased());
        this.#send({ type: 'release', ticket });
      },
    };
  }

  #hold(delta: number): void {
    this.#busy += delta;
    if (this.#busy === delta && delta > 0) this.#worker.ref();
    else if (this.#busy === 0) this.#worker.unref();
  }

  #send(m: ToSnapshotThread): void {
    this.#worker.postMessage(m);
  }

  #receive(m: FromSnapshotThread): void {
    if (m.type === 'ready') {
      if (this.#state === 'starting') this.#state = 'ready';
      return this.#onReady(true);
    }
    const pending = this.#pending.get(m.ticket);
    if (pending === undefined) return;
    const w = pending.written;
    if (m.type === 'written') {
      pending.written = undefined;
      w?.resolve(m.handle);
    } else if (m.type === 'failed') {
      pending.written = undefined;
      w?.reject(w.signal?.aborted ? w.signal.reason : new SnapshotThreadWriteError(w.file, w.uid, m.error));
    } else {
      this.#pending.delete(m.ticket);
      // Released while it was written: the thread stopped the write (its answer, if any, came first).
      w?.reject(w.signal?.aborted ? w.signal.reason : new SnapshotThreadWriteError(w.file, w.uid, { name: 'Error', message: 'the snapshot was released while it was written' }));
      pending.released?.();
    }
  }

  /** The thread ended (it should not): writes still running fail, and every snapshot counts as released. */
  #gone(): void {
    if (this.#state === 'gone') return;
    this.#state = 'gone';
    this.#onReady(false);
    for (const pending of this.#pending.values()) {
      const w = pending.written;
      w?.reject(new SnapshotThreadWriteError(w.file, w.uid, { name: 'Error', message: 'the thread ended' }));
      pending.released?.();
    }
    this.#pending.clear();
  }
}
