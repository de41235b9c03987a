import type { Mailbox } from './mailbox.ts';
import type { SourceInput } from './source-input.ts';

/**
 * Split assignments from the split enumerator on their way to a source task's reader: as mail,
 * so splits land between two polls and in the order the enumerator sent them relative to
 * checkpoint triggers. Until the mail runs they are in neither the reader's positions nor the
 * enumerator's hands, so they are kept here; splits that come too late for the subtask go back.
 */
export class SplitDelivery {
  readonly #mailbox: Mailbox;
  readonly #isTerminal: () => boolean;
  readonly #giveBack: (splits: unknown[]) => void;
  /** Split assignments put in the mailbox and not yet handed to the reader. */
  readonly #undelivered = new Set<unknown[]>();
  #input: SourceInput | undefined;

  /** `giveBack`: splits that came too late for this subtask, for the JobMaster (an at-most-once restart reads them). */
  constructor(mailbox: Mailbox, isTerminal: () => boolean, giveBack: (splits: unknown[]) => void) {
    this.#mailbox = mailbox;
    this.#isTerminal = isTerminal;
    this.#giveBack = (splits) => void (splits.length > 0 && giveBack(splits));
  }

  /** A source task's input; a task without one takes splits and does nothing with them. */
  deliverTo(input: SourceInput | undefined): void {
    this.#input = input;
  }

  add(splits: unknown[], noMoreSplits: boolean): void {
    if (this.#isTerminal()) return this.#giveBack(splits);
    this.#undelivered.add(splits);
    this.#mailbox.put({
      description: `adding ${splits.length} split(s)`,
      run: () => {
        if (!this.#undelivered.delete(splits)) return;
        if (this.#isTerminal()) return this.#giveBack(splits);
        this.#input?.addSplits(splits, noMoreSplits);
      },
    });
  }

  /** Splits still in the mailbox were never read: they go with the reader's positions, once. */
  takeUndelivered(): unknown[] {
    const undelivered = [...this.#undelivered].flat();
    this.#undelivered.clear();
    return undelivered;
  }
}
