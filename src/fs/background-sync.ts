import type { FileHandle } from 'node:fs/promises';
import { FileWriteError } from './file-write-error.ts';

/**
 * Syncs a file that is being written in order, in the background, each time `every` more bytes
 * were written: the disk takes them while the writer produces the next ones, so the fsync that
 * makes the file durable at the end waits only for the tail. A state file of 20 MB took about as
 * long to fsync at its end (30-90 ms here) as to encode; now the two overlap.
 *
 * At most one background sync runs at a time. Its failure is kept and thrown by finish(), with
 * the path, as any write's would be.
 */
export class BackgroundSync {
  readonly #handle: FileHandle;
  readonly #path: string;
  readonly #every: number;
  #requestedTo = 0;
  #running: Promise<void> | undefined;
  /** The first background sync that failed, and the bytes it was to make durable. */
  #failed: { error: unknown; from: number; to: number } | undefined;

  constructor(handle: FileHandle, path: string, every: number) {
    this.#handle = handle;
    this.#path = path;
    this.#every = every;
  }

  /** `written` bytes of the file are written now: syncs them if enough came since the last sync and none runs. */
  wrote(written: number): void {
    const from = this.#requestedTo;
    if (this.#running !== undefined || this.#failed !== undefined || written - from < this.#every) return;
    this.#requestedTo = written;
    this.#running = this.#handle.datasync().then(
      () => {
        this.#running = undefined;
      },
      (error: unknown) => {
        this.#running = undefined;
        this.#failed = { error, from, to: written };
      },
    );
  }

  /** Every byte written is durable: waits for a running sync, then syncs the rest (metadata included). */
  async finish(written: number): Promise<void> {
    await this.settle();
    const failed = this.#failed;
    if (failed !== undefined) throw new FileWriteError({ path: this.#path, offset: failed.from, length: failed.to - failed.from, written: 0 }, failed.error);
    try {
      await this.#handle.sync();
    } catch (e) {
      throw new FileWriteError({ path: this.#path, offset: this.#requestedTo, length: written - this.#requestedTo, written: 0 }, e);
    }
  }

  /** Waits for a running sync without failing (before the file is closed on any path). */
  async settle(): Promise<void> {
    await this.#running;
  }
}
