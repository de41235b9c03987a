// Connectors driven directly, without a job: a sink's writer and committer through one
// checkpoint, a source reader drained. What the connector benchmarks time against the clients.
import type { SourceOutput, SourceReader, SourceReaderContext } from '../src/api/source.ts';
import type { Committer, PrecommittingSinkWriter } from '../src/api/two-phase-committing-sink.ts';
import { sinkContext } from '../test/fixtures/sink-commit-idempotence.ts';
import { timed } from './harness.ts';

/** A two-phase sink as the benchmarks drive it (the writer's and committer's context aside). */
export interface DrivenSink<T, C> {
  createWriter(ctx: never): PrecommittingSinkWriter<T, C> | Promise<PrecommittingSinkWriter<T, C>>;
  createCommitter(ctx: never): Committer<C> | Promise<Committer<C>>;
}

/** Milliseconds to write `data` through the sink's writer (with its backpressure) and commit it as one checkpoint. */
export async function driveSink<T, C>(sink: DrivenSink<T, C>, data: readonly T[], uid: string): Promise<number> {
  const ctx = sinkContext({ jobName: 'bench', uid }) as never;
  const committer = await sink.createCommitter(ctx);
  const writer = await sink.createWriter(ctx);
  await committer.abortLeftovers?.();
  const { ms } = await timed(async () => {
    for (const e of data) {
      writer.write(e);
      const ready = writer.ready?.();
      if (ready) await ready;
    }
    await committer.commit(await writer.prepareCommit(1));
  });
  await writer.close?.();
  await committer.close?.();
  return ms;
}

/** A reader context for subtask 0 of 1 that logs nothing. */
export function benchReaderContext(): SourceReaderContext {
  const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => log };
  return { jobId: 'bench', jobName: 'bench', operatorName: 'Source', operatorUid: 'source', subtaskIndex: 0, parallelism: 1, maxParallelism: 128, attemptNumber: 0, log, sendSplitRequest: () => {}, sendSourceEvent: () => {} } as unknown as SourceReaderContext;
}

/** Milliseconds for a bounded reader to read its splits to the end; fails unless it read `n` records. */
export async function drainReader<S>(reader: SourceReader<unknown, S>, splits: S[], n: number): Promise<number> {
  let count = 0;
  const output: SourceOutput<unknown> = { collect: () => void count++ } as SourceOutput<unknown>;
  const { ms } = await timed(async () => {
    reader.addSplits(splits);
    reader.notifyNoMoreSplits();
    for (;;) {
      const status = reader.pollNext(output);
      if (status === 'end') break;
      if (status === 'nothing') await reader.isAvailable();
    }
  });
  await reader.close?.();
  if (count !== n) throw new Error(`the source reader read ${count} of ${n} records`);
  return ms;
}
