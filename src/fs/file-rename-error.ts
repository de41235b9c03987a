import { systemErrorReason } from './system-error-reason.ts';

/** A rename that failed: names both paths and why (a directory entry a commit depends on did not move). */
export class FileRenameError extends Error {
  readonly from: string;
  readonly to: string;
  readonly code: string | undefined;

  constructor(facts: { from: string; to: string }, cause: unknown) {
    super(`renaming ${facts.from} to ${facts.to} failed: ${systemErrorReason(cause)}`, { cause });
    this.name = 'FileRenameError';
    this.from = facts.from;
    this.to = facts.to;
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}
