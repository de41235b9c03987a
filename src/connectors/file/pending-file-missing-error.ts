/**
 * A pending file of a FileSink checkpoint is neither pending nor committed where it was written,
 * nor in the sink's directory: the output was moved or deleted, or the job restored another job's
 * sink state (`-n` with the same sink uid). No restart brings it back: the job fails at once.
 */
export class PendingFileMissingError extends Error {
  readonly unrecoverable = true;
  /** The pending file's name (`.part-….pending`). */
  readonly file: string;
  /** The directory it was written in; undefined for a checkpoint of a weir that did not record it. */
  readonly writtenIn: string | undefined;
  /** The directory of the restored job's sink. */
  readonly sinkDirectory: string;

  constructor(file: string, writtenIn: string | undefined, sinkDirectory: string) {
    const where =
      writtenIn === undefined || writtenIn === sinkDirectory
        ? `in ${sinkDirectory}${writtenIn === undefined ? " (the sink's directory: the checkpoint, of an older weir, does not say where it was written)" : ''}`
        : `in ${writtenIn}, where it was written, nor in ${sinkDirectory}, the sink's directory now`;
    super(
      `file sink: the pending file ${file} of the restored checkpoint is neither pending nor committed ${where}: put the output directory back where it was, or start without this state`,
    );
    this.name = 'PendingFileMissingError';
    this.file = file;
    this.writtenIn = writtenIn;
    this.sinkDirectory = sinkDirectory;
  }
}
