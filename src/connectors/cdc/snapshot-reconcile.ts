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
 *
 * Returns the change to make, applied by the caller to its state as it is then: readers' reports
 * (a restored reader sends its finished chunks again at once) may change it while this queries.
 */
export async function reconcileSnapshot<P, S extends CdcRecordSource>(
  s: CdcEnumeratorState<P>,
  catalog: CdcCatalog<P>,
  dialect: CdcDialect<P, S>,
  options: ChunkingOptions,
  log: Pick<Logger, 'info'>,
): Promise<(now: CdcEnumeratorState<P>) => CdcEnumeratorState<P>> {
  const captures = (db: string, table: string) => dialect.captures?.(db, table) ?? true;
  const gone = new Set(s.tables.filter((t) => !captures(t.db, t.table)).map(nameOf));
  const planned = new Set(s.tables.map(nameOf));
  const added: TablePlan[] = [];
  for (const t of (await catalog.discoverTables?.()) ?? []) {
    if (planned.has(nameOf(t)) || !captures(t.db, t.table)) continue;
    await catalog.capture?.(t);
    added.push(await planTable(catalog, t, options));
  }
  for (const t of gone) log.info(`table ${t} no longer matches the source's patterns: dropped from the state, not snapshotted further`, { table: t });
  for (const t of added) log.info(`table ${nameOf(t)} matches the source's patterns and was not in the restored snapshot: it is snapshotted with the others`, { table: nameOf(t) });
  if (gone.size === 0 && added.length === 0) return (now) => now;
  return (now) => {
    const dropped = now.finished.filter((c) => gone.has(nameOf(c)));
    const kept = now.tables.filter((t) => !gone.has(nameOf(t)));
    const known = new Set(kept.map(nameOf));
    return {
      ...now,
      tables: [...kept, ...added.filter((t) => !known.has(nameOf(t)))],
      assigned: Object.fromEntries(Object.entries(now.assigned).filter(([, split]) => !gone.has(nameOf(split)))),
      finished: now.finished.filter((c) => !gone.has(nameOf(c))),
      rowsRead: now.rowsRead - dropped.reduce((n, c) => n + c.rows, 0),
      chunksFinished: now.chunksFinished - dropped.length,
    };
  };
}

function nameOf(t: { readonly db: string; readonly table: string }): string {
  return `${t.db}.${t.table}`;
}
