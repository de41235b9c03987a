import { createHash } from 'node:crypto';

/** `<uid>-<subtask>-<part>` (DESIGN §7), with the uid made safe for any file system. */
export function stateFileName(uid: string, subtask: number, part: number): string {
  const safe = uid.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  const suffix = safe === uid ? '' : `~${createHash('sha256').update(uid).digest('hex').slice(0, 8)}`;
  return `${safe}${suffix}-${subtask}-${part}`;
}
