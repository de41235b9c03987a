import { createLogicalSlot, DEFAULT_SLOT_CREATION_TIMEOUT_MS } from './logical-slot-creation.ts';
import { parseLsn, type Lsn } from './lsn.ts';
import { quoteIdent, quoteTable } from './pg-quote.ts';
import type { PgSqlClient } from './pg-sql-client.ts';
import {
  MissingObjectError,
  ReplicationPrivilegeError,
  SlotCreationBlockedError,
  SlotInUseError,
  SlotInvalidatedError,
  SlotPluginError,
  TableNotPublishedError,
  WalLevelError,
  type PostgresSite,
} from './postgres-cdc-error.ts';

export interface CapturedTable {
  readonly schema: string;
  readonly table: string;
}

export interface ReplicationSetupOptions {
  readonly publication: string;
  /** Absent: no slot is needed (a snapshot-only source reads the WAL through its readers' backfill slots only). */
  readonly slot?: string;
  readonly tables: readonly CapturedTable[];
  /** Create the publication and the slot when missing (the user needs the rights to). */
  readonly createMissing: boolean;
  /**
   * With createMissing: captured tables missing from an existing publication join it (tables
   * added later: created while the job was stopped, or newly matching on resume, which the source
   * snapshots in chunks); without, such a table fails the start (its changes would never arrive).
   */
  readonly publishMissingTables?: boolean;
  /** How long making the slot may wait for open transactions (default DEFAULT_SLOT_CREATION_TIMEOUT_MS). */
  readonly slotCreationTimeoutMs?: number;
}

export interface ReplicationSetup {
  readonly publicationCreated: boolean;
  readonly slotCreated: boolean;
  /** Where the slot stands: changes committed after it are still to come. */
  readonly confirmedFlush: Lsn;
}

/** Refuses a server or user that cannot serve logical replication, naming the setting or right to change. */
export async function checkServer(sql: PgSqlClient, site: PostgresSite): Promise<void> {
  const [level] = await sql.query<{ wal_level: string }>('SHOW wal_level');
  if (level?.wal_level !== 'logical') throw new WalLevelError(site, level?.wal_level ?? '?');
  const [role] = await sql.query<{ name: string; ok: boolean }>(
    'SELECT current_user AS name, rolreplication OR rolsuper AS ok FROM pg_roles WHERE rolname = current_user',
  );
  if (!role?.ok) throw new ReplicationPrivilegeError(site, role?.name ?? '?');
}

/**
 * Makes sure the publication holds every captured table and the slot can be streamed: creates
 * what is missing when allowed (the publication with publish_via_partition_root, so partitioned
 * tables arrive under their root's name), and fails naming the object and the fix otherwise.
 */
export async function prepareReplication(sql: PgSqlClient, site: PostgresSite, o: ReplicationSetupOptions): Promise<ReplicationSetup> {
  await checkServer(sql, site);
  const publicationCreated = await ensurePublication(sql, site, o);
  if (o.slot === undefined) return { publicationCreated, slotCreated: false, confirmedFlush: 0n };
  const slot = await ensureSlot(sql, site, { ...o, slot: o.slot });
  return { publicationCreated, slotCreated: slot.created, confirmedFlush: slot.confirmedFlush };
}

async function ensurePublication(sql: PgSqlClient, site: PostgresSite, o: ReplicationSetupOptions): Promise<boolean> {
  const [pub] = await sql.query<{ pubname: string }>('SELECT pubname FROM pg_publication WHERE pubname = $1', [o.publication]);
  if (!pub) {
    if (!o.createMissing) throw new MissingObjectError(site, 'publication', o.publication, `create it (CREATE PUBLICATION ${quoteIdent(o.publication)} FOR TABLE ... WITH (publish_via_partition_root = true)) or allow the source to create it`);
    const tables = o.tables.map((t) => quoteTable(t.schema, t.table)).join(', ');
    try {
      await sql.query(`CREATE PUBLICATION ${quoteIdent(o.publication)} FOR TABLE ${tables} WITH (publish_via_partition_root = true)`);
    } catch (e) {
      throw new MissingObjectError(
        site,
        'publication',
        o.publication,
        `${(e as Error).message}. Creating a publication needs the CREATE right on the database and ownership of its tables: create it as the tables' owner or a superuser (CREATE PUBLICATION ${quoteIdent(o.publication)} FOR TABLE ${tables} WITH (publish_via_partition_root = true))`,
        e,
      );
    }
    return true;
  }
  const published = await sql.query<{ schemaname: string; tablename: string }>('SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1', [o.publication]);
  const names = new Set(published.map((r) => `${r.schemaname}.${r.tablename}`));
  const missing = o.tables.filter((t) => !names.has(`${t.schema}.${t.table}`));
  if (missing.length === 0) return false;
  if (!(o.createMissing && o.publishMissingTables)) throw new TableNotPublishedError(site, `${missing[0]!.schema}.${missing[0]!.table}`, o.publication);
  // pg_publication_tables lists every table of a FOR ALL TABLES publication, so these are listed ones.
  await sql.query(`ALTER PUBLICATION ${quoteIdent(o.publication)} ADD TABLE ${missing.map((t) => quoteTable(t.schema, t.table)).join(', ')}`);
  return false;
}

interface SlotRow {
  plugin: string | null;
  database: string | null;
  active_pid: number | null;
  wal_status: string | null;
  confirmed_flush: string | null;
}

async function ensureSlot(sql: PgSqlClient, site: PostgresSite, o: ReplicationSetupOptions & { readonly slot: string }): Promise<{ created: boolean; confirmedFlush: Lsn }> {
  const [slot] = await sql.query<SlotRow>(
    'SELECT plugin, database, active_pid, wal_status, confirmed_flush_lsn::text AS confirmed_flush FROM pg_replication_slots WHERE slot_name = $1',
    [o.slot],
  );
  if (!slot) {
    if (!o.createMissing) throw new MissingObjectError(site, 'replication slot', o.slot, `create it (SELECT pg_create_logical_replication_slot('${o.slot}', 'pgoutput')) or allow the source to create it`);
    try {
      const lsn = await createLogicalSlot(sql, site, o.slot, o.slotCreationTimeoutMs ?? DEFAULT_SLOT_CREATION_TIMEOUT_MS);
      return { created: true, confirmedFlush: parseLsn(lsn) };
    } catch (e) {
      if (e instanceof SlotCreationBlockedError) throw e;
      throw new MissingObjectError(site, 'replication slot', o.slot, `${(e as Error).message}. Check max_replication_slots and that the user has REPLICATION`, e);
    }
  }
  const settled = slot.active_pid !== null ? ((await slotReleased(sql, o.slot)) ?? slot) : slot;
  verifySlot(site, o.slot, settled);
  return { created: false, confirmedFlush: parseLsn(settled.confirmed_flush!) };
}

/** How long a slot in use may take to be released: a failed-over job's previous run closes its stream. */
export const SLOT_RELEASE_WAIT_MS = 10_000;

/**
 * The slot's row once no process streams it, or as it is after `waitMs`: right after a failover,
 * the walsender of the run before may not have ended yet; another job's reader stays.
 */
export async function slotReleased(sql: PgSqlClient, slotName: string, waitMs = SLOT_RELEASE_WAIT_MS): Promise<SlotRow | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [slot] = await sql.query<SlotRow>(SLOT_QUERY, [slotName]);
    if (!slot || slot.active_pid === null || Date.now() >= deadline) return slot;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const SLOT_QUERY = 'SELECT plugin, database, active_pid, wal_status, confirmed_flush_lsn::text AS confirmed_flush FROM pg_replication_slots WHERE slot_name = $1';

/** A slot that cannot be streamed: another plugin or database, WAL lost, or in use. */
function verifySlot(site: PostgresSite, name: string, slot: SlotRow): void {
  if (slot.plugin !== 'pgoutput') throw new SlotPluginError(site, name, slot.plugin ?? 'none (a physical slot)');
  if (slot.wal_status === 'lost' || slot.confirmed_flush === null) throw new SlotInvalidatedError(site, name, slot.wal_status ?? 'lost');
  if (slot.active_pid !== null) throw new SlotInUseError(site, name, slot.active_pid);
}

/** Reads a slot's state again to name the cause of a failed START_REPLICATION (in use, invalidated). */
export async function explainSlotFailure(sql: PgSqlClient, site: PostgresSite, slotName: string): Promise<Error | undefined> {
  const [slot] = await sql.query<SlotRow>(SLOT_QUERY, [slotName]);
  if (!slot) return new MissingObjectError(site, 'replication slot', slotName, 'it was dropped while the source ran; start the job again to create it and take a fresh snapshot');
  try {
    verifySlot(site, slotName, slot);
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

/**
 * Drops the backfill slots (`<slot>_b<subtask>`, see postgres-reader-session.ts) of subtasks at or
 * beyond `readers` that no process streams: a run with more readers, killed or rescaled down, left
 * them, and each would keep its WAL forever. Those of current subtasks are theirs to drop or reuse.
 */
export async function dropBackfillSlotsBeyond(sql: PgSqlClient, slot: string, readers: number): Promise<string[]> {
  const rows = await sql.query<{ slot_name: string }>(
    `SELECT slot_name FROM pg_replication_slots WHERE NOT active AND database = current_database() AND starts_with(slot_name, $1)`,
    [`${slot}_b`],
  );
  const dropped: string[] = [];
  for (const { slot_name } of rows) {
    const m = /^(\d+)$/.exec(slot_name.slice(slot.length + 2));
    if (!m || Number(m[1]) < readers) continue;
    // Inactive a moment ago; one that a late reader took meanwhile is left to it.
    await sql.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [slot_name]);
    dropped.push(slot_name);
  }
  return dropped;
}
