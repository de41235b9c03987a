import { CheckpointCorruptedError } from '../checkpoint-storage-error.ts';

/**
 * A shared file an incremental checkpoint needs is gone: the checkpoint cannot be restored. It
 * is a CheckpointCorruptedError, so a restart follows the rule for a damaged checkpoint (fall
 * back to an older one only where no committed output would be committed again).
 */
export class MissingSharedStateFileError extends CheckpointCorruptedError {
  readonly checkpointId: number;
  /** The file as the checkpoint's handle names it (`../shared/<name>`). */
  readonly sharedFile: string;
  constructor(path: string, checkpointId: number, sharedFile: string, details: { readonly cause?: unknown } = {}) {
    super(path, `shared state file ${sharedFile} of incremental checkpoint ${checkpointId} is missing`, details);
    this.name = 'MissingSharedStateFileError';
    this.checkpointId = checkpointId;
    this.sharedFile = sharedFile;
  }
}
