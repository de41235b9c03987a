/**
 * A JobManager message refused by a TaskManager because it was sent under a leader epoch older
 * than the newest the TaskManager has seen: its sender was deposed (it may not know yet, e.g.
 * after a pause), so nothing it says is acted on.
 */
export class StaleLeaderEpochError extends Error {
  /** The message's type; for a message to a slot also what it carries (`toSlot/notifyCheckpointComplete`). */
  readonly messageType: string;
  readonly epoch: number;
  readonly newestEpoch: number;
  /** The address of the connection it came over. */
  readonly jobManager: string;

  constructor(o: { messageType: string; epoch: number; newestEpoch: number; jobManager: string }) {
    super(`refused ${o.messageType} of leader epoch ${o.epoch} from the JobManager at ${o.jobManager}: leader epoch ${o.newestEpoch} has been seen`);
    this.name = 'StaleLeaderEpochError';
    this.messageType = o.messageType;
    this.epoch = o.epoch;
    this.newestEpoch = o.newestEpoch;
    this.jobManager = o.jobManager;
  }
}
