import type { DataInputStatus } from './data-input-status.ts';
import type { MailboxProcessor } from './mailbox-processor.ts';
import type { SourceOperator } from './operators/source-operator.ts';

/**
 * A source task's input: one pollNext of its reader at a time, only ever between two mails, so a
 * snapshot of the reader's splits falls between two polls. A reader with nothing to give
 * suspends the input until it says it has more.
 */
export class SourceInput {
  readonly operator: SourceOperator;
  readonly #mailbox: MailboxProcessor;
  readonly #fail: (error: unknown) => void;

  constructor(operator: SourceOperator, mailbox: MailboxProcessor, fail: (error: unknown) => void) {
    this.operator = operator;
    this.#mailbox = mailbox;
    this.#fail = fail;
  }

  get recordsIn(): number {
    return this.operator.emitted;
  }

  processInput(): DataInputStatus {
    const status = this.operator.pollNext();
    if (status === 'more') return 'more-available';
    if (status === 'end') {
      this.#mailbox.suspend('input-ended');
      return 'end-of-input';
    }
    this.#mailbox.suspend('source-idle');
    this.operator.reader.isAvailable().then(() => this.#mailbox.resume('source-idle'), this.#fail);
    return 'nothing-available';
  }
}
