import type { EnumeratorContext, Source, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
import { cdcAlignedCheckpointTimeout } from '../cdc/cdc-checkpointing.ts';
import { CdcSourceReader } from '../cdc/cdc-source-reader.ts';
import { CdcSplitEnumerator, type CdcEnumeratorState } from '../cdc/cdc-split-enumerator.ts';
import type { CdcSplit, MySqlLogPosition } from './cdc-split.ts';
import type { ChangeRecord } from './change-record.ts';
import { resolveCdcOptions, serverIdFor, type MySqlCdcOptions, type ResolvedCdcOptions } from './mysql-cdc-options.ts';
import { MySqlDialect } from './mysql-dialect.ts';

/** The MySQL source's enumerator state: the CDC core's, with binlog positions. */
export type MySqlEnumeratorState = CdcEnumeratorState<MySqlLogPosition>;

/**
 * Change data capture from MySQL 8 / MariaDB 10.x: a consistent snapshot of the tables read in
 * chunks without locks, then the binlog, as one stream of ChangeRecords with no change lost or
 * doubled across failures (DESIGN §8). Parallel readers share the snapshot's chunks; one follows
 * the binlog after it. The CDC core (../cdc/) does all that; MySqlDialect speaks to the server.
 */
export class MySqlCdcSource implements Source<ChangeRecord, CdcSplit, MySqlEnumeratorState | undefined> {
  readonly boundedness = 'unbounded' as const;
  readonly options: ResolvedCdcOptions;
  readonly #dialect: MySqlDialect;

  constructor(options: MySqlCdcOptions) {
    this.options = resolveCdcOptions(options);
    this.#dialect = new MySqlDialect(this.options);
  }

  createSplits(): CdcSplit[] {
    return [];
  }

  createEnumerator(ctx: EnumeratorContext<CdcSplit>, restored: MySqlEnumeratorState | undefined): SplitEnumerator<CdcSplit, MySqlEnumeratorState | undefined> {
    // Fails here, at the start, rather than when the binlog phase begins.
    serverIdFor(this.options, ctx.parallelism - 1, ctx.parallelism);
    // Tables added later are backfilled with a spare id while the binlog is followed.
    if (this.options.scanNewlyAddedTables) serverIdFor(this.options, ctx.parallelism, ctx.parallelism + 1);
    const mode = this.options.startup.mode;
    return new CdcSplitEnumerator(ctx, this.#dialect, this.options, restored, mode === 'initial' || mode === 'snapshot-only', mode === 'snapshot-only' ? 'end' : 'log');
  }

  createReader(ctx: SourceReaderContext): SourceReader<ChangeRecord, CdcSplit> {
    // Fails at the reader's creation, as before, when the range has too few ids.
    serverIdFor(this.options, ctx.subtaskIndex, ctx.parallelism);
    return new CdcSourceReader(ctx, this.#dialect);
  }

  /** A stuck aligned checkpoint switches to unaligned in time (see cdc-checkpointing.ts). */
  defaultAlignedCheckpointTimeout(checkpointTimeoutMs: number): number {
    return cdcAlignedCheckpointTimeout(checkpointTimeoutMs);
  }
}
