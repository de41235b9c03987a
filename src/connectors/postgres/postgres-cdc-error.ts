/** Where a PostgreSQL CDC error happened: the server it concerns. */
export interface PostgresSite {
  readonly host: string;
  readonly port: number;
}

/** Why a PostgreSQL CDC source cannot run; a code per reason, each with its own class. */
export const POSTGRES_CDC_FAILURES = {
  'wal-level': 'the server does not write logical WAL',
  'no-replication-privilege': 'the user may not open replication connections',
  'slot-in-use': 'another process streams from the replication slot',
  'slot-invalidated': 'the server removed WAL the replication slot still needed',
  'slot-wrong-plugin': 'the replication slot decodes with another output plugin',
  'missing-object': 'a publication or slot is missing and the user may not create it',
  'table-not-published': 'a captured table is not in the publication',
  'stream': 'the replication stream failed',
  'slot-creation-blocked': 'making a replication slot waited too long for open transactions',
  'publication-after-slot': 'the slot holds WAL from before its publication existed',
} as const;

export type PostgresCdcFailure = keyof typeof POSTGRES_CDC_FAILURES;

/** A PostgreSQL CDC failure; the message names the server, the object and what to change. */
export class PostgresCdcError extends Error {
  readonly host: string;
  readonly port: number;
  readonly failure: PostgresCdcFailure;
  /** A restart cannot fix it: the server's or the job's configuration must change. */
  readonly unrecoverable: boolean;
  constructor(site: PostgresSite, failure: PostgresCdcFailure, problem: string, unrecoverable: boolean, options?: { cause?: unknown }) {
    super(`PostgreSQL ${site.host}:${site.port}: ${problem}`, options);
    this.name = 'PostgresCdcError';
    this.host = site.host;
    this.port = site.port;
    this.failure = failure;
    this.unrecoverable = unrecoverable;
  }
}

export class WalLevelError extends PostgresCdcError {
  readonly setting = 'wal_level';
  readonly actual: string;
  constructor(site: PostgresSite, actual: string) {
    super(
      site,
      'wal-level',
      `wal_level is '${actual}', logical decoding needs 'logical': set wal_level = logical in postgresql.conf (or ALTER SYSTEM SET wal_level = logical) and restart the server`,
      true,
    );
    this.name = 'WalLevelError';
    this.actual = actual;
  }
}

export class ReplicationPrivilegeError extends PostgresCdcError {
  readonly user: string;
  constructor(site: PostgresSite, user: string) {
    super(
      site,
      'no-replication-privilege',
      `user '${user}' has neither the REPLICATION attribute nor superuser, which a logical replication connection needs: run ALTER ROLE "${user}" WITH REPLICATION as a superuser`,
      true,
    );
    this.name = 'ReplicationPrivilegeError';
    this.user = user;
  }
}

export class SlotInUseError extends PostgresCdcError {
  readonly slot: string;
  readonly activePid: number;
  constructor(site: PostgresSite, slot: string, activePid: number) {
    super(
      site,
      'slot-in-use',
      `replication slot '${slot}' is in use by the server process ${activePid} (pg_replication_slots.active_pid): another job or client reads it. ` +
        `Stop that reader (SELECT pg_terminate_backend(${activePid})), or give this source its own slot with the slotName option`,
      false,
    );
    this.name = 'SlotInUseError';
    this.slot = slot;
    this.activePid = activePid;
  }
}

/** What a new logical slot waits for: a session's open transaction, or a prepared transaction. */
export type SlotCreationBlocker =
  | { readonly kind: 'session'; readonly pid: number; readonly xid: string; readonly state: string; readonly since: string; readonly query: string }
  | { readonly kind: 'prepared'; readonly gid: string; readonly xid: string; readonly since: string };

export class SlotCreationBlockedError extends PostgresCdcError {
  readonly slot: string;
  readonly timeoutMs: number;
  readonly blockers: readonly SlotCreationBlocker[];
  /** The sessions' server process ids (pg_stat_activity.pid). */
  readonly blockingPids: readonly number[];
  constructor(site: PostgresSite, slot: string, timeoutMs: number, blockers: readonly SlotCreationBlocker[], cause?: unknown) {
    const named = blockers.map((b) =>
      b.kind === 'session'
        ? `server process ${b.pid} (transaction ${b.xid}, ${b.state} since ${b.since}${b.query ? `, last statement: ${b.query}` : ''})`
        : `prepared transaction '${b.gid}' (transaction ${b.xid}, prepared ${b.since})`,
    );
    super(
      site,
      'slot-creation-blocked',
      `making replication slot '${slot}' waited ${timeoutMs} ms for transactions that were open when it began (a logical slot starts only once they end)` +
        (named.length > 0 ? `: still open: ${named.join('; ')}. ` : ' (they have ended since). ') +
        `End them (COMMIT/ROLLBACK, SELECT pg_terminate_backend(pid), or COMMIT PREPARED/ROLLBACK PREPARED), or raise slotCreationTimeoutMs`,
      false,
      { cause },
    );
    this.name = 'SlotCreationBlockedError';
    this.slot = slot;
    this.timeoutMs = timeoutMs;
    this.blockers = blockers;
    this.blockingPids = blockers.flatMap((b) => (b.kind === 'session' ? [b.pid] : []));
  }
}

export class SlotInvalidatedError extends PostgresCdcError {
  readonly slot: string;
  readonly walStatus: string;
  readonly setting = 'max_slot_wal_keep_size';
  constructor(site: PostgresSite, slot: string, walStatus: string) {
    super(
      site,
      'slot-invalidated',
      `replication slot '${slot}' is invalidated (pg_replication_slots.wal_status = '${walStatus}'): the server removed WAL it had not yet delivered, because the slot fell more than max_slot_wal_keep_size behind. ` +
        `Changes were lost: drop the slot (SELECT pg_drop_replication_slot('${slot}')) and start the job again with a fresh snapshot; raise max_slot_wal_keep_size (or set it to -1) so that it does not recur`,
      true,
    );
    this.name = 'SlotInvalidatedError';
    this.slot = slot;
    this.walStatus = walStatus;
  }
}

export class SlotPluginError extends PostgresCdcError {
  readonly slot: string;
  readonly plugin: string;
  constructor(site: PostgresSite, slot: string, plugin: string) {
    super(site, 'slot-wrong-plugin', `replication slot '${slot}' uses the output plugin '${plugin}', not pgoutput: drop it or choose another slotName`, true);
    this.name = 'SlotPluginError';
    this.slot = slot;
    this.plugin = plugin;
  }
}

export class MissingObjectError extends PostgresCdcError {
  readonly objectKind: 'publication' | 'replication slot';
  readonly objectName: string;
  constructor(site: PostgresSite, objectKind: 'publication' | 'replication slot', objectName: string, fix: string, cause?: unknown) {
    super(site, 'missing-object', `${objectKind} '${objectName}' does not exist and could not be created: ${fix}`, true, { cause });
    this.name = 'MissingObjectError';
    this.objectKind = objectKind;
    this.objectName = objectName;
  }
}

export class TableNotPublishedError extends PostgresCdcError {
  readonly table: string;
  readonly publication: string;
  constructor(site: PostgresSite, table: string, publication: string) {
    super(
      site,
      'table-not-published',
      `table ${table} is captured but not in publication '${publication}', so its changes would never arrive: ` +
        `run ALTER PUBLICATION "${publication}" ADD TABLE ${table}, or remove the table from the source's tables`,
      true,
    );
    this.name = 'TableNotPublishedError';
    this.table = table;
    this.publication = publication;
  }
}

/** The replication connection failed (the server's SQLSTATE kept in `sqlState`). */
export class ReplicationStreamError extends PostgresCdcError {
  readonly slot: string;
  readonly sqlState: string | undefined;
  constructor(site: PostgresSite, slot: string, problem: string, cause?: unknown) {
    super(site, 'stream', `replication stream of slot '${slot}': ${problem}`, false, { cause });
    this.name = 'ReplicationStreamError';
    this.slot = slot;
    this.sqlState = (cause as { code?: string } | undefined)?.code;
  }
}

/**
 * pgoutput looks a publication up as of the WAL it decodes: a slot made before its publication
 * cannot decode the WAL in between with it ("publication ... does not exist"), and every restart
 * reads the same WAL again, so no restart helps.
 */
export class PublicationAfterSlotError extends PostgresCdcError {
  readonly slot: string;
  readonly publication: string;
  /** The WAL position the server was decoding (its error's CONTEXT), when it said. */
  readonly lsn: string | undefined;
  constructor(site: PostgresSite, slot: string, publication: string, lsn: string | undefined, cause?: unknown) {
    super(
      site,
      'publication-after-slot',
      `replication slot '${slot}' holds WAL${lsn ? ` (at ${lsn})` : ''} written before publication '${publication}' existed: pgoutput looks a publication up as of the WAL it decodes, ` +
        `so a publication made after its slot (or dropped) cannot decode the WAL in between. Either drop the slot (SELECT pg_drop_replication_slot('${slot}')) and start again with startup 'initial' (a fresh snapshot, with the publication first), ` +
        `or, if the changes in between are not needed, move the slot past the publication's creation (SELECT pg_replication_slot_advance('${slot}', pg_current_wal_lsn())) and start again`,
      true,
      { cause },
    );
    this.name = 'PublicationAfterSlotError';
    this.slot = slot;
    this.publication = publication;
    this.lsn = lsn;
  }
}

/** The error of a replication stream: a server error that names its cause gets a class of its own. */
export function replicationStreamError(site: PostgresSite, slot: string, e: Error & { code?: string; where?: string }): PostgresCdcError {
  const publication = e.code === '42704' ? /^publication "(.+)" does not exist$/.exec(e.message)?.[1] : undefined;
  if (publication !== undefined) return new PublicationAfterSlotError(site, slot, publication, /associated LSN ([0-9A-F]+\/[0-9A-F]+)/i.exec(e.where ?? '')?.[1], e);
  return new ReplicationStreamError(site, slot, e.message, e);
}
