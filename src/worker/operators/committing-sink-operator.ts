import { SinkError } from '../../api/sink-error.ts';
import { DEFAULT_COMMIT_RETRY, type Committer, type PrecommittingSinkWriter, type TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { systemClock } from '../../clock/clock.ts';
import type { OperatorStateEntry } from '../../state/operator-state-backend.ts';
import { CommittableCollector, type PendingCommit } from '../sink/committable-collector.ts';
import { CommitRetrier } from '../sink/commit-retrier.ts';
import { SchemaChangeHold, type HeldTable } from '../sink/schema-change-hold.ts';
import { keyGroupFor, operatorIndexForKeyGroup } from '../../state/key-group.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';
import type { CheckpointType } from '../../network/stream-event.ts';

/** The legacy file sink's writer state, read when a checkpoint written before the committables existed is restored. */
interface LegacyFileSinkState {
  readonly checkpointId: number;
  readonly pending: readonly unknown[];
}

const STATE_NAME = '_sink-committables';
/** The last pre-commit's id, once the input has ended: it belongs after every checkpoint. */
const AFTER_EVERY_CHECKPOINT = Number.MAX_SAFE_INTEGER;
const LEGACY_STATE_NAME = '_sink-writer';
const HELD_STATE_NAME = '_sink-held';

/**
 * Runs a TwoPhaseCommittingSink (Flink's SinkWriterOperator and CommitterOperator in one): the
 * writer pre-commits at every checkpoint's cut, and the pre-commit's work (flush, PREPARE) is the
 * checkpoint's asynchronous part; the committables wait in operator state (union: on restore
 * every subtask sees all, commits its share and lets the committer clean up the rest) until a
 * checkpoint at or after theirs completes. Commits run beside the task, retried with backoff, so
 * a target that is briefly away holds up neither records nor barriers. A job that finishes
 * without checkpoints commits its finished input at the end.
 */
export class CommittingSinkOperator extends AbstractStreamOperator {
  readonly #sink: TwoPhaseCommittingSink<unknown, unknown>;
  #writer!: PrecommittingSinkWriter<unknown, unknown>;
  #committer!: Committer<unknown>;
  #ctx!: OperatorContext;
  #collector!: CommittableCollector<unknown>;
  #retrier!: CommitRetrier<unknown>;
  /** Commits run one after another: the last one queued (rejected once one failed, so none after it runs). */
  #committing: Promise<void> = Promise.resolve();
  #ended = false;
  /** finish() closed the writer: close() has nothing to abort. */
  #finished = false;
  /** Per checkpoint, the pre-commits whose dead letters were not emitted at its cut. */
  readonly #unemitted = new Map<number, ReadonlySet<number>>();
  /** The final pre-commit ran at the end of input (a dead-letter output needs its letters before the end of data). */
  #finalPrecommit: Promise<unknown> | undefined;
  /** With the sink's schemaChanges: records held behind schema changes, and what each cut held. */
  #hold: SchemaChangeHold<unknown> | undefined;
  readonly #heldAtCut = new Map<number, HeldTable<unknown>[]>();

  constructor(sink: TwoPhaseCommittingSink<unknown, unknown>) {
    super();
    this.#sink = sink;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.#ctx = ctx;
    this.#collector = new CommittableCollector(ctx.subtaskIndex);
    this.#committer = await this.#sink.createCommitter(ctx);
    this.#retrier = new CommitRetrier({
      committer: this.#committer,
      clock: systemClock,
      policy: this.#sink.commitRetry ?? DEFAULT_COMMIT_RETRY,
      defaultTarget: `sink '${ctx.operatorName}' (uid ${ctx.operatorUid})`,
      onRetry: (origin, attempt, delayMs, e) =>
        ctx.log.warn(`commit ${origin === 'restored' ? 'of the restored checkpoint' : `of checkpoint ${origin}`} failed (attempt ${attempt}), retrying in ${delayMs} ms: ${e instanceof Error ? e.message : String(e)}`),
    });
    if (this.#sink.schemaChanges) this.#hold = new SchemaChangeHold(this.#sink.schemaChanges);
    if (ctx.operatorState.isRestored) await this.#recover(ctx);
    else await this.#committer.abortLeftovers?.();
    this.#writer = await this.#sink.createWriter(ctx);
    const hold = this.#hold;
    const writer = this.#writer;
    if (hold || writer.metrics) ctx.metrics.figures = () => ({ ...hold?.figures(), ...writer.metrics?.() });
  }

  /** The restored checkpoint's committables: all of them let the committer clean up, this subtask's share is committed. */
  async #recover(ctx: OperatorContext): Promise<void> {
    const entries = ctx.operatorState.restoredValues<PendingCommit>(STATE_NAME);
    const legacy = ctx.operatorState.restoredValues<LegacyFileSinkState>(LEGACY_STATE_NAME).flatMap((s) => s.pending);
    const retained = distinct([...entries.flatMap((p) => p.committables), ...legacy]);
    const mine = (subtask: number) => subtask % ctx.parallelism === ctx.subtaskIndex;
    await this.#committer.recover?.(retained);
    if (this.#sink.deadLetterOutput) for (const p of entries) if (p.deadLetters && p.subtask !== undefined && mine(p.subtask)) this.#collector.addRestoredDeadLetters(p.checkpointId, p.deadLetters);
    // Entries that say which subtask wrote them are committed by that subtask's successor; older
    // ones are shared out by position, as they were before the subtask was recorded.
    const unattributed = distinct([...entries.filter((p) => p.subtask === undefined).flatMap((p) => p.committables), ...legacy]);
    const share = [...distinct(entries.filter((p) => p.subtask !== undefined && mine(p.subtask)).flatMap((p) => p.committables)), ...unattributed.filter((_, i) => mine(i))];
    if (share.length > 0) await this.#retrier.commit('restored', share);
    // Held tables go to the subtask that owns the table's key now (the sink's input is keyed by table).
    const owned = (h: HeldTable<unknown>) => operatorIndexForKeyGroup(keyGroupFor(h.table, ctx.maxParallelism), ctx.parallelism, ctx.maxParallelism) === ctx.subtaskIndex;
    this.#hold?.restore(ctx.operatorState.restoredValues<HeldTable<unknown>>(HELD_STATE_NAME).filter(owned));
  }

  processElement(value: unknown): void {
    if (this.#hold && !this.#hold.offer(value)) return;
    this.#writer.write(value);
  }

  override ready(): Promise<void> | undefined {
    return this.#writer.ready?.();
  }

  override async endInput(): Promise<void> {
    // Records held behind a schema change are written after the final commit (finish), and what
    // they bring is refused there, after the end of data: a dead-letter output could not get it.
    if (this.#hold?.holding && this.#sink.deadLetterOutput) {
      throw new SinkError('TARGET_UNSUPPORTED', this.#retrier.target, `the input ended while ${this.#hold.holding} table(s) held records behind a schema change; a sink with a dead-letter output cannot apply a schema change at the end of a bounded input: run the job unbounded, or without schema changes`);
    }
    this.#ended = true;
    await this.#writer.flush?.();
    if (this.#sink.deadLetterOutput) {
      // The end of data goes downstream after this: the last dead letters must go before it.
      this.#finalPrecommit = this.#precommit(AFTER_EVERY_CHECKPOINT);
      await this.#finalPrecommit;
      this.#emitDeadLetters(AFTER_EVERY_CHECKPOINT);
    }
  }

  /** The cut: records after it belong to the next checkpoint; the pre-commit's work goes on in the asynchronous part. */
  override prepareSnapshot(checkpointId: number, type: CheckpointType): void {
    if (this.#hold) {
      this.#hold.cut(checkpointId);
      this.#heldAtCut.set(checkpointId, structuredClone(this.#hold.snapshot()));
    }
    this.#precommit(checkpointId, { savepoint: type === 'savepoint' }).catch(() => {});
    if (this.#sink.deadLetterOutput) this.#unemitted.set(checkpointId, this.#collector.unemittedAtCut());
  }

  #precommit(checkpointId: number, checkpoint?: { savepoint: boolean }): Promise<readonly unknown[]> {
    const writer = this.#writer;
    const deadLetters = writer.deadLetters ? () => writer.deadLetters!(checkpointId) : undefined;
    return this.#collector.add(checkpointId, writer.prepareCommit(checkpointId, checkpoint), deadLetters);
  }

  /** Dead letters of pre-commits up to a completed checkpoint go to the side output (on the task's thread, between records). */
  #emitDeadLetters(checkpointId: number): void {
    const tag = this.#sink.deadLetterOutput;
    if (!tag) return;
    const letters = this.#collector.takeDeadLetters(checkpointId);
    if (letters.length === 0) return;
    const output = this.#ctx.sideOutput(tag.id);
    if (!output) {
      this.#ctx.log.warn(`${letters.length} refused record(s) dropped: nothing consumes the dead-letter output ${tag.id} (add sinkTo(...).getSideOutput(tag) to the job)`);
      return;
    }
    for (const letter of letters) output.collect(letter);
  }

  /** The checkpoint's state once its pre-commit has settled: every committable not yet committed, up to it. */
  override async snapshotAsync(checkpointId: number): Promise<ReadonlyMap<string, OperatorStateEntry>> {
    let state: PendingCommit[];
    try {
      const unemitted = this.#unemitted.get(checkpointId);
      this.#unemitted.delete(checkpointId);
      state = await this.#collector.stateUpTo(checkpointId, unemitted);
    } catch (e) {
      if (e instanceof SinkError) throw e;
      throw new SinkError('PRE_COMMIT_FAILED', this.#retrier.target, `the pre-commit of checkpoint ${checkpointId} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const held = this.#heldAtCut.get(checkpointId);
    this.#heldAtCut.delete(checkpointId);
    const entries = new Map<string, OperatorStateEntry>([[STATE_NAME, { mode: 'union', values: structuredClone(state) }]]);
    if (held) entries.set(HELD_STATE_NAME, { mode: 'union', values: held });
    return entries;
  }

  /** Commits every checkpoint up to this one (notifications can be skipped or come late), beside the task. */
  override notifyCheckpointComplete(checkpointId: number): void {
    for (const id of this.#unemitted.keys()) if (id <= checkpointId) this.#unemitted.delete(id);
    this.#emitDeadLetters(checkpointId);
    for (const id of this.#heldAtCut.keys()) if (id <= checkpointId) this.#heldAtCut.delete(id);
    const due = this.#collector.takeDue(checkpointId);
    if (due.length === 0) {
      this.#releaseHeld(checkpointId);
      return;
    }
    const next = this.#committing.then(() => this.#commitAll(due));
    if (this.#hold?.holding) void next.then(() => this.#ctx.mailboxExecutor.execute('release records held behind schema changes', () => this.#releaseHeld(checkpointId)), () => {});
    // A commit that fails for good fails the task, through its mailbox like any operator failure.
    next.catch((e: unknown) => {
      const time = this.#ctx.processingTime;
      time.registerTimer(time.now(), 'a failed commit', () => {
        throw e;
      });
    });
    this.#committing = next;
  }

  /** The checkpoint's transactions are committed: schema changes waiting for it go to the writer, with their tables' records. */
  #releaseHeld(checkpointId: number): void {
    // Once the input has ended, finish() writes what is held, after the final commit.
    if (!this.#hold?.holding || this.#ended) return;
    for (const record of this.#hold.complete(checkpointId)) this.#writer.write(record);
  }

  async #commitAll(due: readonly PendingCommit[]): Promise<void> {
    for (const p of due) {
      await this.#retrier.commit(p.checkpointId, p.committables);
      this.#collector.committed(p.checkpointId);
    }
  }

  /** Finished: without checkpoints nothing committed the output yet, and the finished input is final. */
  override async finish(): Promise<void> {
    await this.#committing;
    if (this.#ended) await this.#commitFinalInput();
    await this.#writer.close?.();
    this.#finished = true;
  }

  /** What no checkpoint committed, and a last pre-commit after every checkpoint: with the input ended nothing can fail them any more. */
  async #commitFinalInput(): Promise<void> {
    await (this.#finalPrecommit ?? this.#precommit(AFTER_EVERY_CHECKPOINT));
    await this.#commitAll(this.#collector.takeDue(AFTER_EVERY_CHECKPOINT));
    await this.#commitHeld();
  }

  /**
   * Every transaction before the held records is committed now, so no lock of ours is left on
   * their tables: each round writes every table's next schema change with the records up to its
   * next one and commits them, as a checkpoint's completion would have (the changes recorded in
   * the sink's ledger, as always, so a restore from the final checkpoint skips them). Rounds take
   * ids below the final pre-commit's, unused by any checkpoint.
   */
  async #commitHeld(): Promise<void> {
    for (let round = 1; this.#hold?.holding; round++) {
      for (const record of this.#hold.releaseNext()) {
        await this.#writer.ready?.();
        this.#writer.write(record);
      }
      const id = AFTER_EVERY_CHECKPOINT - round;
      await this.#precommit(id);
      await this.#commitAll(this.#collector.takeDue(id));
    }
  }

  /** A writer that did not finish (cancellation, failure) is aborted: it commits nothing. */
  override async close(): Promise<void> {
    this.#retrier?.close();
    try {
      if (!this.#finished) await this.#writer?.abort?.();
    } finally {
      await this.#committer?.close?.();
    }
  }
}

/** Committables as JSON-equal values once each, in a stable order (state can hold one more than once). */
function distinct(committables: readonly unknown[]): unknown[] {
  return [...new Set(committables.map((c) => JSON.stringify(c)))].sort().map((c) => JSON.parse(c) as unknown);
}
