import type { Logger } from '../../log/logger.ts';
import type { CdcCatalog, CdcDialect } from './cdc-dialect.ts';
import type { CdcRecordSource } from './change-record.ts';
import { planTable, type ChunkingOptions, type TablePlan } from './chunk-splitter.ts';
import type { CdcEnumeratorState } from './cdc-split-enumerator.ts';

/**
 * A snapshot restored with tables added later on (scanNewlyAddedTables) and the source's patterns
 * as they are now, which may differ from the run that took it (Flink CDC's enumerator does the
 * same): a table the patterns no longer match leaves the state (its plan, its chunks handed out or
 * finished), with a log line; a matching table the state lacks is published (where the dialect
 * must) and planned, so it is snapshotted with the others rather than by the log's reader later.
 */
export async function reconcileSnapshot<P, S extends CdcRecordSource>(
  s: CdcEnumeratorState<P>,
  catalog: CdcCatalog<P>,
  dialect: CdcDialect<P, S>,
  options: ChunkingOptions,
  log: Pick<Logger, 'info'>,
): Promise<CdcEnumeratorState<P>> {
  const captures = (db: string, table: string) => dialect.captures?.(db, table) ?? true;
  const name = (t: { db: string; table: string }) => `${t.db}.${t.table}`;
  const gone = new Set(s.tables.filter((t) => !captures(t.db, t.table)).map(name));
  for (const t of gone) log.info(`table ${t} no longer matches the source's patterns: dropped from the state, not snapshotted further`, { table: t });
  const kept = s.tables.filter((t) => !gone.has(name(t)));
  const planned = new Set(kept.map(name));
  const added: TablePlan[] = [];
  for (const t of (await catalog.discoverTables?.()) ?? []) {
    if (planned.has(name(t)) || !captures(t.db, t.table)) continue;
    await catalog.capture?.(t);
    added.push(await planTable(catalog, t, options));
    log.info(`table ${name(t)} matches the source's patterns and was not in the restored snapshot: it is snapshotted with the others`, { table: name(t) });
  }
  if (gone.size === 0 && added.length === 0) return s;
  const assigned = Object.fromEntries(Object.entries(s.assigned).filter(([, split]) => !gone.has(name(split))));
  const dropped = s.finished.filter((c) => gone.has(name(c)));
  return {
    ...s,
    tables: [...kept, ...added],
    assigned,
    finished: s.finished.filter((c) => !gone.has(name(c))),
    rowsRead: s.rowsRead - dropped.reduce((n, c) => n + c.rows, 0),
    chunksFinished: s.chunksFinished - dropped.length,
  };
}
