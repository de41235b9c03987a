import { closeSync, fstatSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Sink, SinkContext, SinkWriter } from '../../api/sink.ts';
import { makeDirectoriesSync } from '../../fs/make-directories.ts';
import { writeFullySync } from '../../fs/write-fully.ts';

export interface FileSinkOptions<T> {
  /** One line of text per record; String(value) by default. */
  readonly format?: (value: T) => string;
}

const FLUSH_BYTES = 64 * 1024;

/**
 * Appends one line per record to `<dir>/part-<subtask>`. No transactions: after a failure the
 * replayed records are written again. Use FileSink for exactly-once output.
 */
export class PlainFileSink<T> implements Sink<T> {
  readonly directory: string;
  readonly #format: (value: T) => string;

  constructor(directory: string, options: FileSinkOptions<T> = {}) {
    this.directory = resolve(directory);
    this.#format = options.format ?? String;
  }

  createWriter(ctx: SinkContext): SinkWriter<T> {
    makeDirectoriesSync(this.directory);
    const path = join(this.directory, `part-${ctx.subtaskIndex}`);
    const fd = openSync(path, 'a');
    let offset = fstatSync(fd).size;
    let buffer = '';
    const flush = () => {
      if (buffer.length === 0) return;
      const bytes = Buffer.from(buffer, 'utf8');
      buffer = '';
      writeFullySync(fd, bytes, { path, offset });
      offset += bytes.length;
    };
    let open = true;
    const closeFile = () => {
      if (!open) return;
      open = false;
      flush();
      closeSync(fd);
    };
    return {
      write: (v) => {
        buffer += this.#format(v) + '\n';
        if (buffer.length >= FLUSH_BYTES) flush();
      },
      flush,
      snapshotState: () => (flush(), []),
      close: closeFile,
      abort: closeFile,
    };
  }
}
