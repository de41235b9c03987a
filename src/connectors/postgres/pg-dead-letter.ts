import type { DeadLetter } from '../../api/dead-letter.ts';
import { sqlState } from './pg-connection.ts';

/** A record PostgreSQL refused, as the dead-letter output carries it: the error's constraint, SQLSTATE and detail. */
export function pgDeadLetter(target: string, table: string, record: unknown, e: unknown): DeadLetter {
  const { constraint, detail } = e as { constraint?: string; detail?: string };
  const message = e instanceof Error ? e.message : String(e);
  const code = sqlState(e);
  return { record, target, table, ...(constraint ? { constraint } : {}), ...(code ? { code } : {}), reason: detail ? `${message} (${detail})` : message };
}
