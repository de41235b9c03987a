// The word count the `wordcount` benchmark runs: DataGen words -> {word, count: 1} -> keyBy(word)
// -> sum('count') -> a sink that only counts. A module of its own because worker TaskManagers
// load the job by path.
//
// Job arguments:
//   --words N                records to generate (default 1,000,000)
//   --seed S                 generator seed (default 7)
//   --report-dir DIR         each sink subtask writes sink-<subtask>.json there when it closes
//   --verify                 the sink also keeps the latest count per word (slower; for checking results)
//   --checkpoint-interval MS enable exactly-once checkpoints (off unless given)
//   --declared               the records' type is declared (.returns): a compiled codec, no inference
//   --map-work N             the map also does N rounds of userWork (a stand-in for a user function's cost)
//   --pipeline NAME          what runs between source and sink (default full); the others take
//                            parts away, so that timing them apart shows what each part costs:
//                              full      map -> keyBy(word) -> sum('count')
//                              literal   map -> keyBy(word) -> reduce building the sum with an object literal
//                              hop       map -> rebalance() -> sink: one network channel, no keys, no state
//                              chained   map -> sink, all chained: no network channel
//                            Every pipeline hands the sink one record per input record.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineJob } from '../../src/index.ts';
import type { DataStream, Sink, SinkContext, SinkWriter } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { Types } from '../../src/index.ts';

const WORD_COUNT = Types.struct({ word: Types.string, count: Types.int });

export interface WordCount {
  word: string;
  count: number;
}

/** What a sink subtask reports at the end of the job. */
export interface SinkReport {
  readonly subtask: number;
  readonly records: number;
  /** With --verify: the final count of every word this subtask saw. */
  readonly counts?: Record<string, number>;
}

/** Discards records, counting them; writes one small JSON file at close when given a directory. */
export class CountingSink implements Sink<WordCount> {
  readonly #reportDir: string | undefined;
  readonly #verify: boolean;

  constructor(reportDir: string | undefined, verify: boolean) {
    this.#reportDir = reportDir;
    this.#verify = verify;
  }

  createWriter(ctx: SinkContext): SinkWriter<WordCount> {
    const dir = this.#reportDir;
    const latest = this.#verify ? new Map<string, number>() : undefined;
    let records = 0;
    return {
      write: latest
        ? (r) => {
            records++;
            latest.set(r.word, r.count);
          }
        : () => {
            records++;
          },
      close: () => {
        if (dir === undefined) return;
        const report: SinkReport = { subtask: ctx.subtaskIndex, records, ...(latest ? { counts: Object.fromEntries(latest) } : {}) };
        writeFileSync(join(dir, `sink-${ctx.subtaskIndex}.json`), JSON.stringify(report));
      },
    };
  }
}

/**
 * Stands for a user function's own work, which the data plane's cost per record is weighed
 * against: `rounds` passes of an integer hash over the word. What it returns goes into a module
 * variable so that the JIT cannot drop it.
 */
export function userWork(word: string, rounds: number): number {
  let h = 0;
  for (let r = 0; r < rounds; r++) for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x5bd1e995);
  return h;
}

let workSink = 0;

export default defineJob((env, args) => {
  const interval = args.get('checkpoint-interval');
  if (interval !== undefined) env.enableCheckpointing({ interval: Number(interval), mode: 'exactly-once' });

  const rounds = args.getNumber('map-work', 0);
  const source = env.fromSource(DataGen.words({ seed: args.getNumber('seed', 7), count: args.getNumber('words', 1_000_000) }), { name: 'Source: words', uid: 'source' });
  const mapped =
    rounds > 0
      ? source.map((word: string): WordCount => {
          workSink ^= userWork(word, rounds);
          return { word, count: 1 };
        }, { name: 'Map' })
      : source.map((word: string): WordCount => ({ word, count: 1 }), { name: 'Map' });
  const words = args.has('declared') ? mapped.returns(WORD_COUNT) : mapped;
  const pipeline = args.get('pipeline', 'full');
  let counts: DataStream<WordCount>;
  switch (pipeline) {
    case 'full':
      counts = words.keyBy((r) => r.word).sum('count', { name: 'Sum', uid: 'counts' });
      break;
    case 'literal':
      counts = words.keyBy((r) => r.word).reduce((a, b) => ({ word: a.word, count: a.count + b.count }), { name: 'Sum', uid: 'counts' });
      break;
    case 'hop':
      counts = words.rebalance();
      break;
    case 'chained':
      counts = words;
      break;
    default:
      throw new TypeError(`--pipeline must be full, literal, hop or chained, got '${pipeline}'`);
  }
  counts.sinkTo(new CountingSink(args.get('report-dir'), args.has('verify')), { name: 'Sink: count', uid: 'sink' });
});
