import { createHash } from 'node:crypto';

/** 32 hex characters, as Flink's OperatorID / JobID print. */
export function hashId(...parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const part of parts) h.update(part).update('\u0000');
  return h.digest('hex').slice(0, 32);
}

/** A uid fixes the operator id, so state finds its operator across job versions. */
export function operatorIdFromUid(uid: string): string {
  return hashId('uid', uid);
}
