import type { EnumeratorContext, Source, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
import { cdcAlignedCheckpointTimeout } from '../cdc/cdc-checkpointing.ts';
import { CdcSourceReader } from '../cdc/cdc-source-reader.ts';
import { CdcSplitEnumerator, type CdcEnumeratorState } from '../cdc/cdc-split-enumerator.ts';
import type { CdcSplit } from '../cdc/cdc-split.ts';
import type { Lsn } from './lsn.ts';
import type { PostgresChangeRecord } from './pg-change-record.ts';
import { resolvePostgresCdcOptions, type PostgresCdcOptions, type ResolvedPostgresCdcOptions } from './postgres-cdc-options.ts';
import { PostgresDialect } from './postgres-dialect.ts';

/** The PostgreSQL source's splits and enumerator state: the CDC core's, with LSNs. */
export type PostgresCdcSplit = CdcSplit<Lsn>;
export type PostgresEnumeratorState = CdcEnumeratorState<Lsn>;

/**
 * Change data capture from PostgreSQL (10 and later) through logical replication with the built-in
 * pgoutput plugin: a consistent snapshot of the tables read in chunks without locks (LOW/HIGH are
 * WAL positions, the WAL between them read from each reader's backfill slot), then the source's
 * slot, as one stream of change records with no change lost or doubled across failures (DESIGN
 * §8). The slot's confirmed LSN moves only after checkpoints that hold it complete, a few
 * checkpoints late. The CDC core (../cdc/) does the rest; PostgresDialect speaks to the server.
 * With startup 'snapshot-only' the readers end after the snapshot (no slot of the source's own).
 */
export class PostgresCdcSource implements Source<PostgresChangeRecord, PostgresCdcSplit, PostgresEnumeratorState | undefined> {
  readonly boundedness = 'unbounded' as const;
  readonly options: ResolvedPostgresCdcOptions;
  readonly #dialect: PostgresDialect;

  constructor(options: PostgresCdcOptions) {
    this.options = resolvePostgresCdcOptions(options);
    this.#dialect = new PostgresDialect(this.options);
  }

  createSplits(): PostgresCdcSplit[] {
    return [];
  }

  createEnumerator(ctx: EnumeratorContext<PostgresCdcSplit>, restored: PostgresEnumeratorState | undefined): SplitEnumerator<PostgresCdcSplit, PostgresEnumeratorState | undefined> {
    const mode = this.options.startup.mode;
    return new CdcSplitEnumerator(ctx, this.#dialect, this.options, restored, mode === 'initial' || mode === 'snapshot-only', mode === 'snapshot-only' ? 'end' : 'log');
  }

  createReader(ctx: SourceReaderContext): SourceReader<PostgresChangeRecord, PostgresCdcSplit> {
    return new CdcSourceReader(ctx, this.#dialect);
  }

  /** A stuck aligned checkpoint switches to unaligned in time (see cdc-checkpointing.ts). */
  defaultAlignedCheckpointTimeout(checkpointTimeoutMs: number): number {
    return cdcAlignedCheckpointTimeout(checkpointTimeoutMs);
  }
}
