import type { PgSqlClient } from './pg-sql-client.ts';
import { SlotCreationBlockedError, type PostgresSite, type SlotCreationBlocker } from './postgres-cdc-error.ts';

/** How long making a slot may wait for the transactions that were open when it began (default). */
export const DEFAULT_SLOT_CREATION_TIMEOUT_MS = 60_000;

/** query_canceled: here, statement_timeout ran out. */
const QUERY_CANCELED = '57014';

/**
 * pg_create_logical_replication_slot with a bound on its wait. A logical slot's snapshot is
 * consistent only once every transaction that had an xid when it began has ended, so the call
 * waits for them, without a bound of its own: one session left idle in a transaction (or a
 * prepared transaction nobody commits) makes it hang for ever. Under statement_timeout it ends
 * after `timeoutMs` instead, and the error names the sessions and prepared transactions that
 * still held it (recoverable: a restart makes the slot once they end). Returns the slot's LSN.
 */
export async function createLogicalSlot(sql: PgSqlClient, site: PostgresSite, slot: string, timeoutMs: number): Promise<string> {
  await sql.query(`SET statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  try {
    const [made] = await sql.query<{ lsn: string }>(`SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
    return made!.lsn;
  } catch (e) {
    if ((e as { code?: string }).code !== QUERY_CANCELED) throw e;
    throw new SlotCreationBlockedError(site, slot, timeoutMs, await blockers(sql), e);
  } finally {
    await sql.query('RESET statement_timeout').catch(() => {});
  }
}

/** The open transactions with an xid, oldest first, and the prepared transactions: what a new logical slot waits for. */
async function blockers(sql: PgSqlClient): Promise<SlotCreationBlocker[]> {
  const sessions = await sql.query<{ pid: number; xid: string; state: string | null; since: string | null; query: string | null }>(
    `SELECT pid, backend_xid::text AS xid, state, xact_start::text AS since, left(query, 120) AS query
       FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() ORDER BY xact_start`,
  );
  const prepared = await sql.query<{ gid: string; xid: string; since: string }>(`SELECT gid, transaction::text AS xid, prepared::text AS since FROM pg_prepared_xacts ORDER BY prepared`);
  return [
    ...sessions.map((s) => ({ kind: 'session' as const, pid: s.pid, xid: s.xid, state: s.state ?? 'unknown', since: s.since ?? 'unknown', query: s.query ?? '' })),
    ...prepared.map((p) => ({ kind: 'prepared' as const, gid: p.gid, xid: p.xid, since: p.since })),
  ];
}
