// The two-phase-commit contract is small to implement: a sink that stages rows in transactions of
// a (here in-memory) database, publishes them when their checkpoint completes, and drops what a
// failed attempt staged. Through injected failures its published rows are exactly-once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createJobMaster, createLogger, defineJob, type Committer, type PrecommittingSinkWriter, type SinkContext, type TwoPhaseCommittingSink } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { diffSortedLines, expectedRunningCounts } from '../fixtures/recovery-helpers.ts';
import { wordCounts } from '../fixtures/savepoint-helpers.ts';

/** A database with transactions: rows are staged under a transaction id, then published. */
class Database {
  readonly staged = new Map<string, string[]>();
  readonly published: string[] = [];
  readonly commits = new Set<string>();
}

class StagedRowsSink implements TwoPhaseCommittingSink<string, string> {
  readonly #db: Database;
  constructor(db: Database) {
    this.#db = db;
  }

  createWriter(ctx: SinkContext): PrecommittingSinkWriter<string, string> {
    const db = this.#db;
    let seq = 0;
    const begin = () => `txn-${ctx.attemptNumber}-${ctx.subtaskIndex}-${seq++}`;
    let txn = begin();
    return {
      write: (row) => {
        const rows = db.staged.get(txn) ?? [];
        rows.push(row);
        db.staged.set(txn, rows);
      },
      prepareCommit: () => {
        const done = db.staged.has(txn) ? [txn] : [];
        txn = begin();
        return done;
      },
    };
  }

  createCommitter(): Committer<string> {
    const db = this.#db;
    return {
      commit: (txns) => {
        for (const t of txns) {
          if (db.commits.has(t)) continue; // idempotent: a restore commits again
          db.commits.add(t);
          db.published.push(...(db.staged.get(t) ?? []));
          db.staged.delete(t);
        }
      },
      // Transactions neither retained nor committed were staged by a failed attempt.
      recover: (retained) => {
        for (const t of [...db.staged.keys()]) if (!retained.includes(t)) db.staged.delete(t);
      },
    };
  }
}

test('a two-phase-committing sink publishes exactly once through failures, and what failed attempts staged is dropped', { timeout: 60_000 }, async () => {
  const WORDS = 20_000;
  const SEED = 4;
  const db = new Database();
  const job = defineJob((env) => {
    env.enableCheckpointing(50);
    env.setParallelism(2);
    env
      .fromSource(DataGen.words({ seed: SEED, count: WORDS, ratePerSecond: 40_000 }), { name: 'Source: words', uid: 'source' })
      .map((w: string) => ({ word: w, count: 1 }))
      .keyBy((r) => r.word)
      .sum('count', { name: 'Sum', uid: 'counts' })
      .map((r) => `${r.word}\t${r.count}`)
      .sinkTo(new StagedRowsSink(db), { name: 'Sink: rows', uid: 'sink' });
  });
  const master = await createJobMaster({
    job,
    config: { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 5, 'restart-strategy.fixed-delay.delay': 0 },
    faults: { failures: 3, seed: 2, maxRecords: 8000 },
    log: createLogger({ level: 'error', write: () => {} }),
  });
  const result = await master.run();
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.equal(result.injectedFailures, 3);
  assert.equal(diffSortedLines([...db.published].sort(), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
  assert.equal(db.staged.size, 0, 'nothing staged is left behind');
});
