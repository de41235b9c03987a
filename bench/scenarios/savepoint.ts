// Scenario `savepoint`: how long it takes to take a savepoint of 1M keys of state and to restore a
// job from it, beside the time the same bytes take to write and read with plain fs calls.
//
// Per run, on the in-thread TaskManager (parallelism 1):
//   1. A source emits {key: i, v: 1} for i < K, then nothing (the job stays RUNNING, idle) ->
//      keyBy(key) -> sum('v') (uid sum) -> a counting sink. Checkpointing is on with a 1 h interval
//      (only the start-up checkpoint, with an empty state). Once the sink has seen K records and no
//      checkpoint is pending, the state holds every key and nothing else runs.
//   2. take     = master.triggerSavepoint(dir): from the call to the completed savepoint (trigger,
//                 barrier, synchronous snapshot, the state file written and fsynced, the ack,
//                 _metadata written, fsynced, renamed, its directory fsynced).
//   3. The job is cancelled (savepoints stay). restore = createJobMaster({ restoreFrom }) + run()
//      until every subtask is RUNNING (read _metadata, verify every file's size and checksum,
//      assign state, deploy, read + checksum + decode the state file into the heap tables, open
//      the operators, whose first access claims the restored values). `start` is the same without
//      a savepoint (an empty job to RUNNING), for the fixed cost of a job start.
//   4. On the same bytes (every file of the savepoint concatenated, in memory):
//      raw write        open, one write, fsync, close of a new file
//      raw read         readFile of that file
//      read + insert    raw read, then the savepoint's entries (decoded beforehand, outside the
//                       timing) put into an empty heap table (StateTable.load, 128 key groups):
//                       what any restore must do at least, whatever the bytes
//      read + decode    the state file read and decoded by its reader into a counting sink (no
//                       tables): the format's own cost
//   The goals: take <= 4x raw write, and restore <= 4x read + insert.
//
// The state file is format 2 (keyed-state-file.ts): the sum's undeclared state is written by the
// adapting inferring codec (a schema per block, a tag byte and two doubles per value), keys as
// varints. Where the time goes (CPU profile, node --cpu-prof, 1M keys, 19.1 MB): taking it is the
// asynchronous writer, ~130 ms of CPU a take: the walk over the copy-on-write table's 128 Maps
// (keyGroupEntries) ~55 ms and encoding ~65 ms, nearly all of it the first touch of each entry,
// its aggregate and the record it keeps, which lie scattered on the heap (a cache and TLB miss
// each); checksums and fs writes are a few percent. Both load their next entries ahead in tight
// loops (state-table.ts loadAhead, keyed-state-file.ts loadAhead), so that those misses overlap
// instead of coming one after another: before that the writer took ~300-470 ms. The file is
// synced in the background as it grows (BackgroundSync), so its final fsync waits only for the
// tail: the take is then about the encoding plus the tail, against a raw write's whole fsync.
// Restoring is restoreKeyed (read + checksum + decode straight into the tables) and the claim of
// the restored values by the sum (one aggregate object per entry).
import type { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobMaster, defineJob, type InputStatus, type JobDefinition, type Sink, type Source, type SourceOutput, type SourceReader } from '../../src/index.ts';
import { fileCheckpointStorageWorkerView } from '../../src/checkpoint/file-checkpoint-storage-worker-view.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { readKeyedStateFile } from '../../src/checkpoint/keyed-state-file.ts';
import { StateTable } from '../../src/state/state-table.ts';
import type { Key } from '../../src/state/key-group.ts';
import {
  intFlag, fmtMs, fmtNumber, fmtRatio, max, median, settle, summarize, type Scenario, type ScenarioOptions, type ScenarioResult, type Table
} from '../harness.ts';

const DEFAULT_KEYS = 1_000_000;
const GOAL_RATIO = 4;
const TIMEOUT_MS = 120_000;

interface Rec {
  key: number;
  v: number;
}

// ---- the job ----

/** {key: i, v: 1} for i < keys, then idle for ever; its position is its state. */
class PrefillSource implements Source<Rec, { next: number }> {
  readonly boundedness = 'unbounded' as const;
  readonly #keys: number;
  constructor(keys: number) {
    this.#keys = keys;
  }
  createSplits(): Array<{ next: number }> {
    return [{ next: 0 }];
  }
  createReader(): SourceReader<Rec, { next: number }> {
    const keys = this.#keys;
    let next = 0;
    let has = false;
    return {
      addSplits: (splits) => {
        for (const s of splits) {
          next = s.next;
          has = true;
        }
      },
      notifyNoMoreSplits: () => {},
      pollNext: (out: SourceOutput<Rec>): InputStatus => {
        if (!has || next >= keys) return 'nothing';
        const stop = Math.min(keys, next + 1024);
        while (next < stop) out.collect({ key: next++, v: 1 });
        return 'more';
      },
      isAvailable: () => new Promise((resolve) => setTimeout(resolve, 5)),
      snapshotState: () => (has ? [{ next }] : []),
    };
  }
}

class CountingSink implements Sink<Rec> {
  count = 0;
  createWriter() {
    return { write: () => void this.count++ };
  }
}

function job(keys: number, sink: CountingSink): JobDefinition {
  return defineJob((env) => {
    env.setParallelism(1);
    env
      .fromSource(new PrefillSource(keys), { name: 'Source: prefill', uid: 'source' })
      .keyBy((r) => r.key)
      .sum('v', { name: 'Sum', uid: 'sum' })
      .sinkTo(sink, { name: 'Sink: count', uid: 'sink' });
  });
}

// ---- helpers ----


async function waitFor(what: string, ready: () => boolean, everyMs = 2): Promise<void> {
  const deadline = performance.now() + TIMEOUT_MS;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function filesOf(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isFile())
    .sort()
    .map((n) => join(dir, n));
}

async function writeAndSync(path: string, bytes: Uint8Array): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.write(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

// ---- one run ----

interface SavepointSample {
  readonly run: number;
  readonly keys: number;
  readonly files: number;
  readonly totalBytes: number;
  readonly stateFileBytes: number;
  readonly takeMs: number;
  /** From the savepoint's statistics: synchronous part, asynchronous part (state file), end to end. */
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly endToEndMs: number;
  readonly restoreMs: number;
  /** run() -> the JobMaster's onRestored (read _metadata, verify files, assign state). */
  readonly restoreMasterMs: number;
  /** The subtask's restore of keyed state (read + checksum + decode + tables). */
  readonly restoreKeyedMs: number;
  readonly startMs: number;
  readonly rawWriteMs: number;
  readonly rawReadMs: number;
  /** Raw read, then the same entries into an empty heap table. */
  readonly readInsertMs: number;
  /** The state file read and decoded by its reader, without tables. */
  readonly readDecodeMs: number;
}

async function runOnce(run: number, keys: number, log: (line: string) => void): Promise<SavepointSample> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-savepoint-'));
  const config = { 'execution.checkpointing.interval': '1 h', 'execution.checkpointing.dir': join(dir, 'checkpoints'), 'restart-strategy.type': 'none' };
  const storage = fileCheckpointStorageWorkerView as { restoreKeyed: typeof fileCheckpointStorageWorkerView.restoreKeyed };
  const original = storage.restoreKeyed;
  try {
    // 1-2: fill the state, take the savepoint.
    const sink = new CountingSink();
    const a = await createJobMaster({ job: job(keys, sink), config });
    const aDone = a.run();
    await a.whenRunning();
    await waitFor('the prefill', () => sink.count >= keys && a.checkpoints.pendingCount === 0 && a.checkpoints.stats.counts.completed >= 1);
    await settle();
    const t0 = performance.now();
    const sp = await a.triggerSavepoint(join(dir, 'savepoints'));
    const takeMs = performance.now() - t0;
    await a.cancel();
    await aDone;
    const stats = a.checkpoints.stats.history().find((s) => s.id === sp.id)!;
    const entries = sp.metadata.operators.reduce((n, o) => n + o.subtasks.reduce((m, s) => m + (s.keyed?.entries ?? 0), 0), 0);
    if (entries !== keys) throw new Error(`savepoint ${sp.id} holds ${entries} entries, expected ${keys}`);
    const files = filesOf(sp.directory);
    const stateFile = sp.metadata.operators.find((o) => o.uid === 'sum')!.subtasks[0]!.keyed!;
    const stateFileBytes = stateFile.bytes;

    // 3: restore (and, for the fixed cost, a start without state).
    const restoreCalls: Array<{ ms: number; entries: number }> = [];
    storage.restoreKeyed = async (backend, state, directory) => {
      const s = performance.now();
      await original(backend, state, directory);
      const ms = performance.now() - s;
      let n = 0;
      for (const st of (backend as HeapKeyedStateBackend).states.values()) n += st.table.size;
      restoreCalls.push({ ms, entries: n });
    };
    await settle();
    let restoredAt = 0;
    const r0 = performance.now();
    const b = await createJobMaster({ job: job(keys, new CountingSink()), config, restoreFrom: sp.directory, listener: { onRestored: () => void (restoredAt = performance.now()) } });
    const bDone = b.run();
    await b.whenRunning();
    const restoreMs = performance.now() - r0;
    await b.cancel();
    await bDone;
    storage.restoreKeyed = original;
    if (restoreCalls.length !== 1 || restoreCalls[0]!.entries !== keys) throw new Error(`the restore put ${JSON.stringify(restoreCalls)} entries back, expected one call with ${keys}`);

    await settle();
    const s0 = performance.now();
    const c = await createJobMaster({ job: job(keys, new CountingSink()), config });
    const cDone = c.run();
    await c.whenRunning();
    const startMs = performance.now() - s0;
    await c.cancel();
    await cDone;

    // 4: the same bytes with plain fs calls.
    // The state file first, so that read+decode finds its frames at the start.
    const statePath = join(sp.directory, stateFile.file);
    const bytes = Buffer.concat([statePath, ...files.filter((f) => f !== statePath)].map((f) => readFileSync(f)));
    const raw = join(dir, 'raw.bin');
    await settle();
    let t = performance.now();
    await writeAndSync(raw, bytes);
    const rawWriteMs = performance.now() - t;
    await settle();
    t = performance.now();
    const back = await readFile(raw);
    const rawReadMs = performance.now() - t;
    if (back.length !== bytes.length) throw new Error('raw read came back short');

    // The entries, decoded once outside the timing, for the insert variant.
    const handle = stateFile;
    const resolveFile = (f: string) => join(sp.directory, f);
    const range = { start: 0, end: sp.metadata.operators.find((o) => o.uid === 'sum')!.maxParallelism - 1 };
    const keysOf: Key[] = [];
    const valuesOf: unknown[] = [];
    const groupsOf: number[] = [];
    const file = readKeyedStateFile(handle, resolveFile, range);
    for (const kg of file.keyGroups) {
      file.readKeyGroup(kg, (_info, g) => (key, value) => {
        keysOf.push(key);
        valuesOf.push(value);
        groupsOf.push(g);
      });
    }
    if (keysOf.length !== keys) throw new Error(`the state file holds ${keysOf.length} entries, expected ${keys}`);
    await settle();
    t = performance.now();
    const again = await readFile(raw);
    const table = new StateTable<unknown>(range.end + 1, (v) => v);
    for (let i = 0; i < keysOf.length; i++) table.load(groupsOf[i]!, keysOf[i]!, valuesOf[i]);
    const readInsertMs = performance.now() - t;
    if (again.length !== bytes.length || table.size !== keys) throw new Error('read + insert came back short');
    keysOf.length = valuesOf.length = groupsOf.length = 0;

    await settle();
    t = performance.now();
    let sum = 0;
    let n = 0;
    const decoding = readKeyedStateFile(handle, resolveFile, range);
    for (const kg of decoding.keyGroups) {
      decoding.readKeyGroup(kg, () => (_key, value) => {
        sum += (value as Rec).v;
        n++;
      });
    }
    const readDecodeMs = performance.now() - t;
    if (n !== keys || sum !== keys) throw new Error(`decoded ${n} entries (sum ${sum}), expected ${keys}`);

    const sample: SavepointSample = {
      run,
      keys,
      files: files.length,
      totalBytes: bytes.length,
      stateFileBytes,
      takeMs,
      syncMs: max(stats.subtasks.map((x) => x.syncMs)),
      asyncMs: max(stats.subtasks.map((x) => x.asyncMs)),
      endToEndMs: stats.endToEndDuration,
      restoreMs,
      restoreMasterMs: restoredAt - r0,
      restoreKeyedMs: restoreCalls[0]!.ms,
      startMs,
      rawWriteMs,
      rawReadMs,
      readInsertMs,
      readDecodeMs,
    };
    log(
      `run ${run + 1}: take ${fmtMs(takeMs)} (raw write ${fmtMs(rawWriteMs)}); restore ${fmtMs(restoreMs)} (raw read ${fmtMs(rawReadMs)}, read+insert ${fmtMs(readInsertMs)}, read+decode ${fmtMs(readDecodeMs)}; start without state ${fmtMs(startMs)})`,
    );
    // The savepoint reads back as written (and _metadata is what restores read first).
    await readMetadata(sp.directory);
    return sample;
  } finally {
    storage.restoreKeyed = original;
    rmSync(dir, { recursive: true, force: true });
  }
}

export const savepoint: Scenario = {
  name: 'savepoint',
  description: `time to take and to restore a savepoint of ${fmtNumber(DEFAULT_KEYS)} keys, vs a raw fs write of the same bytes and a raw read plus inserting the same entries into a heap table (goal <= ${GOAL_RATIO}x)`,
  flags: {
    keys: `keys of state (default ${fmtNumber(DEFAULT_KEYS)})`,
    warmup: 'unmeasured warm-up runs (default 1, 0 to skip)',
  },

  async run(options): Promise<ScenarioResult> {
    const { log, runs } = options;
    const keys = intFlag(options, 'keys', DEFAULT_KEYS);
    const warmups = intFlag(options, 'warmup', 1);
    for (let i = 0; i < warmups; i++) {
      log(`warm-up run ${i + 1}/${warmups}`);
      await runOnce(-1, keys, () => {});
    }
    const samples: SavepointSample[] = [];
    for (let run = 0; run < runs; run++) samples.push(await runOnce(run, keys, log));

    const col = (f: (s: SavepointSample) => number) => summarize(samples.map(f));
    const row = (name: string, f: (s: SavepointSample) => number): string[] => {
      const s = col(f);
      return [name, fmtMs(s.median), fmtMs(s.min), fmtMs(s.max)];
    };
    const ratio = (name: string, f: (s: SavepointSample) => number): string[] => {
      const s = col(f);
      return [name, fmtRatio(s.median), fmtRatio(s.min), fmtRatio(s.max)];
    };
    const table: Table = {
      columns: ['measure', 'median', 'min', 'max'],
      rows: [
        row('take: triggerSavepoint -> completed', (s) => s.takeMs),
        row('  raw write (1 write + fsync)', (s) => s.rawWriteMs),
        row('restore: restoreFrom -> every subtask RUNNING', (s) => s.restoreMs),
        row('  raw read (readFile)', (s) => s.rawReadMs),
        row('  raw read + insert the entries into an empty heap table', (s) => s.readInsertMs),
        row('  read + decode the state file (no tables)', (s) => s.readDecodeMs),
        row('  start without state (fixed cost)', (s) => s.startMs),
        ratio('take / raw write', (s) => s.takeMs / s.rawWriteMs),
        ratio('restore / (raw read + insert)', (s) => s.restoreMs / s.readInsertMs),
        ratio('restore / raw read', (s) => s.restoreMs / s.rawReadMs),
      ],
    };
    const take = median(samples.map((s) => s.takeMs));
    const restore = median(samples.map((s) => s.restoreMs));
    const m = (f: (s: SavepointSample) => number) => median(samples.map(f));
    const breakdown: Table = {
      columns: ['step (medians over runs)', 'ms', 'share'],
      rows: [
        ['take: synchronous snapshot (task thread)', m((s) => s.syncMs).toFixed(1), `${((100 * m((s) => s.syncMs)) / take).toFixed(0)}%`],
        ['take: asynchronous part (encode + write + fsync state file)', m((s) => s.asyncMs).toFixed(1), `${((100 * m((s) => s.asyncMs)) / take).toFixed(0)}%`],
        ['take: rest (trigger, ack, _metadata + fsyncs)', m((s) => s.takeMs - s.syncMs - s.asyncMs).toFixed(1), `${((100 * m((s) => s.takeMs - s.syncMs - s.asyncMs)) / take).toFixed(0)}%`],
        ['restore: JobMaster (read _metadata, verify files, assign)', m((s) => s.restoreMasterMs).toFixed(1), `${((100 * m((s) => s.restoreMasterMs)) / restore).toFixed(0)}%`],
        ['restore: restoreKeyed (read, checksum, decode, tables)', m((s) => s.restoreKeyedMs).toFixed(1), `${((100 * m((s) => s.restoreKeyedMs)) / restore).toFixed(0)}%`],
        ['restore: rest (deploy, open operators, claim values)', m((s) => s.restoreMs - s.restoreMasterMs - s.restoreKeyedMs).toFixed(1), `${((100 * m((s) => s.restoreMs - s.restoreMasterMs - s.restoreKeyedMs)) / restore).toFixed(0)}%`],
      ],
    };
    const verdict = (name: string, f: (s: SavepointSample) => number) => {
      const r = col(f);
      return `goal ${name} <= ${GOAL_RATIO}x: ${fmtRatio(r.median)} median (range ${fmtRatio(r.min)}..${fmtRatio(r.max)}): ${r.median <= GOAL_RATIO ? 'met' : 'NOT met'}`;
    };
    const s0 = samples[0]!;
    const notes = [
      `load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores (the figures are only as steady as the machine)`,
      `${fmtNumber(keys)} keys; the savepoint has ${s0.files} files, ${(s0.totalBytes / (1024 * 1024)).toFixed(1)} MB (state file ${(s0.stateFileBytes / (1024 * 1024)).toFixed(1)} MB); in-thread TaskManager, parallelism 1; ${runs} runs${warmups ? ` after ${warmups} warm-up run(s)` : ''}; temporary directory ${tmpdir()}`,
      verdict('take / raw write', (s) => s.takeMs / s.rawWriteMs),
      verdict('restore / (raw read + insert)', (s) => s.restoreMs / s.readInsertMs),
    ];
    return {
      table,
      extraTables: [{ title: `Where the time goes (take ${fmtMs(take)}, restore ${fmtMs(restore)})`, table: breakdown }],
      notes,
      data: {
        settings: { keys, runs, warmups, taskManagers: 0, parallelism: 1 },
        summary: {
          takeMs: col((s) => s.takeMs),
          restoreMs: col((s) => s.restoreMs),
          rawWriteMs: col((s) => s.rawWriteMs),
          rawReadMs: col((s) => s.rawReadMs),
          readInsertMs: col((s) => s.readInsertMs),
          readDecodeMs: col((s) => s.readDecodeMs),
          goal: GOAL_RATIO,
        },
        samples,
      },
    };
  },
};
