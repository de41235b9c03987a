import type { PgSqlClient } from './pg-sql-client.ts';

/**
 * How many bytes of WAL the server keeps for the slot beyond what it confirmed: the current WAL
 * position minus the slot's confirmed_flush_lsn (null when the slot is missing or invalidated).
 */
export async function slotLagBytes(sql: PgSqlClient, slot: string): Promise<number | null> {
  const [r] = await sql.query<{ lag: string | null }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::int8::text AS lag FROM pg_replication_slots WHERE slot_name = $1`,
    [slot],
  );
  return r?.lag == null ? null : Number(r.lag);
}
