import { randomBytes } from 'node:crypto';

/** 32 lowercase hex characters, as Flink's JobID. */
export function newJobId(): string {
  return randomBytes(16).toString('hex');
}

export function isJobId(text: string): boolean {
  return /^[0-9a-f]{32}$/.test(text);
}
