import type { ChunkBound, ChunkKeyKind } from './chunk-key.ts';

import type { BinlogPosition } from './binlog-position.ts';

/** Where in the binlog: a file and a byte offset in it (an event or transaction boundary). */
export type LogPosition = BinlogPosition;

/** One chunk of one table's snapshot: the rows whose chunk key lies in [start, end). */
export interface SnapshotSplit {
  readonly kind: 'snapshot';
  readonly id: string;
  readonly db: string;
  readonly table: string;
  readonly keyColumn: string;
  readonly keyKind: ChunkKeyKind;
  readonly index: number;
  readonly start: ChunkBound;
  readonly end: ChunkBound;
}

/** A chunk that was read and emitted: it holds every change of its key range up to `high`. */
export interface FinishedChunk {
  readonly id: string;
  readonly db: string;
  readonly table: string;
  readonly index: number;
  readonly start: ChunkBound;
  readonly end: ChunkBound;
  readonly high: LogPosition;
  readonly rows: number;
}

/** Per table: its key kind and chunk key, and its finished chunks in key order. */
export interface FinishedTable {
  readonly db: string;
  readonly table: string;
  readonly keyColumn: string;
  readonly keyKind: ChunkKeyKind;
  readonly chunks: ReadonlyArray<Pick<FinishedChunk, 'start' | 'end' | 'high'>>;
}

/**
 * Following the binlog. `start` is a transaction boundary; the first `skipEvents` row events of
 * the transaction there were emitted before the checkpoint. Until the binlog passes `maxHigh`,
 * an event is dropped when the finished chunk of its key already holds it (position <= HIGH).
 */
export interface BinlogSplit {
  readonly kind: 'binlog';
  readonly id: 'binlog';
  readonly start: LogPosition | { readonly gtid: string; readonly file?: undefined; readonly pos?: undefined };
  readonly skipEvents: number;
  readonly tables: ReadonlyArray<FinishedTable>;
  readonly maxHigh: LogPosition | null;
  /** Startup mode timestamp: events committed before this (ms) are skipped. */
  readonly fromTimestamp?: number;
}

/** A reader's report that a chunk is done, kept in its state until the enumerator has it. */
export interface FinishedReport {
  readonly kind: 'finished';
  readonly id: string;
  readonly chunk: FinishedChunk;
}

export type CdcSplit = SnapshotSplit | BinlogSplit | FinishedReport;

/** Reader -> enumerator: these chunks are done. Enumerator -> reader: acknowledged (in its state now). */
export type CdcSourceEvent =
  | { readonly kind: 'chunks-finished'; readonly chunks: FinishedChunk[] }
  | { readonly kind: 'chunks-acknowledged'; readonly ids: string[] };
