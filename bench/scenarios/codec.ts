// Scenario `codec`: what a record costs to serialize and deserialize, per codec, in this thread.
//
// Two workloads: `word` records {word: ~6 ASCII chars, count: int < 10000} (the word count's
// records on a keyed edge) and `1k` records {id: int, text: ~1000 ASCII chars, score: double}.
// Each run encodes N records in batches (2048 word records or 64 1k records: a batch is what one
// buffer holds) and then decodes each batch; encode and decode are timed separately with hrtime
// around every batch. Variants: the compiled codec of the declared type, the inferring codec
// (numbers inferred as double, a tag byte per record), the declared codec through
// SegmentWriter/Reader with 32 KiB segments, msgpackr one pack per record as today's default
// serializer does, msgpackr one pack of the whole batch array as today's port channel does, and
// JSON.stringify/parse per record (strings, no bytes: a lower bound for JSON over the wire).
//
// Goal: declared {word, count} encode+decode <= 40 ns/record (median of the runs).
//
// Where the time goes (node --cpu-prof, --only declared): before the int fast paths, a count of
// up to 10000 (a 2-byte zigzag varint) went through the generic 10-byte loop on both sides and
// was the largest self time after the generated functions themselves. Now encode is the charCodeAt
// loop and two varint writes, all inlined into the generated function (--trace-turbo-inlining);
// decode is one String.fromCharCode with the bytes as arguments (~11 ns for 4-8 chars) and the
// object literal. A cache of decoded short strings was tried and dropped: 16.6 against 11.4 ns a
// string on hits, though its strings then hash faster as Map keys. On this 2-core machine other
// jobs' load moves the median by 10-15 ns between invocations; the minimum is steadier (~34 ns).
import { fmtNumber, fmtRatio, intFlag, median, summarize, type Scenario, type ScenarioOptions, type ScenarioResult, type Summary, type Table } from '../harness.ts';
import { Types } from '../../src/serialization/types.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';
import {
  declaredVariant, inferredVariant, jsonVariant, msgpackBatchVariant, msgpackPerRecordVariant, segmentsVariant, type CodecVariant,
} from './codec-variants.ts';

const GOAL_NS = 40;

interface Workload {
  readonly id: string;
  readonly type: TypeInfo;
  readonly records: number;
  readonly batch: number;
  readonly make: (i: number) => unknown;
}

const WORDS = Array.from({ length: 1024 }, (_, i) => (0x100000 + i * 7919).toString(36).slice(-4 - (i % 5)));

function workloads(options: ScenarioOptions): Workload[] {
  const small = options.records ?? 2_000_000;
  return [
    { id: 'word', type: Types.struct({ word: Types.string, count: Types.int }), records: small, batch: 2048, make: (i) => ({ word: WORDS[i % WORDS.length]!, count: (i * 31) % 10_000 }) },
    {
      id: '1k',
      type: Types.struct({ id: Types.int, text: Types.string, score: Types.double }),
      records: intFlag(options, 'records-1k', Math.max(1, Math.floor(small / 20))),
      batch: 64,
      make: (i) => ({ id: i, text: `${WORDS[i % WORDS.length]} `.repeat(200).slice(0, 990 + (i % 20)), score: i / 7 }),
    },
  ];
}

function variants(w: Workload, only: readonly string[] | undefined): CodecVariant[] {
  const size = w.batch * (w.id === 'word' ? 32 : 1100);
  const all = [declaredVariant(w.type, size), inferredVariant(size), segmentsVariant(w.type), msgpackPerRecordVariant(), msgpackBatchVariant(), jsonVariant()];
  return only ? all.filter((v) => only.includes(v.id)) : all;
}

interface Sample {
  readonly workload: string;
  readonly variant: string;
  readonly run: number;
  readonly encodeNs: number;
  readonly decodeNs: number;
  readonly bytesPerRecord: number;
}

/** Fresh record objects per batch slot (the same objects every run), so encode reads real heap objects. */
function batches(w: Workload): unknown[][] {
  return Array.from({ length: 8 }, (_, b) => Array.from({ length: w.batch }, (_, i) => w.make(b * w.batch + i)));
}

function measure(w: Workload, v: CodecVariant, data: unknown[][], records: number, run: number): Sample {
  let encode = 0n;
  let decode = 0n;
  let sink = 0;
  let bytes = 0;
  for (let done = 0, b = 0; done < records; done += w.batch, b++) {
    const batch = data[b % data.length]!;
    const n = Math.min(w.batch, records - done);
    const t0 = process.hrtime.bigint();
    v.encode(batch, n);
    const t1 = process.hrtime.bigint();
    sink += v.decode(n);
    const t2 = process.hrtime.bigint();
    encode += t1 - t0;
    decode += t2 - t1;
    bytes += v.bytes;
  }
  if (sink === -1) console.log('unreachable');
  return { workload: w.id, variant: v.id, run, encodeNs: Number(encode) / records, decodeNs: Number(decode) / records, bytesPerRecord: bytes / records };
}

function rotated<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]!);
}

export const codec: Scenario = {
  name: 'codec',
  description: 'ns/record to encode+decode {word, count} and 1 KiB records: declared vs inferred vs msgpackr vs JSON (default 2,000,000 word records, 100,000 1k records)',
  flags: {
    only: 'comma-separated variants: declared,inferred,segments,msgpackr,msgpackr-batch,json (default all)',
    'records-1k': 'records of the 1 KiB workload (default --records / 20)',
  },
  defaultRuns: 7,

  async run(options): Promise<ScenarioResult> {
    const only = options.flags.only?.split(',').map((s) => s.trim());
    const samples: Sample[] = [];
    const labels = new Map<string, string>();
    for (const w of workloads(options)) {
      const vs = variants(w, only);
      const data = batches(w);
      for (const v of vs) {
        labels.set(v.id, v.label);
        measure(w, v, data, Math.max(w.batch, Math.floor(w.records / 4)), -1); // warm-up: let V8 optimize
      }
      for (let run = 0; run < options.runs; run++) {
        for (const v of rotated(vs, run)) {
          const s = measure(w, v, data, w.records, run);
          samples.push(s);
          options.log(`${w.id} run ${run + 1}/${options.runs} ${v.label.padEnd(52)} ${(s.encodeNs + s.decodeNs).toFixed(1).padStart(8)} ns/record`);
        }
      }
    }
    return report(samples, labels, options);
  },
};

function report(samples: readonly Sample[], labels: ReadonlyMap<string, string>, options: ScenarioOptions): ScenarioResult {
  const groups = new Map<string, Sample[]>();
  for (const s of samples) groups.set(`${s.workload}/${s.variant}`, [...(groups.get(`${s.workload}/${s.variant}`) ?? []), s]);
  const rows: string[][] = [];
  const summaries: Record<string, { encode: Summary; decode: Summary; total: Summary; bytesPerRecord: number }> = {};
  for (const [key, ss] of groups) {
    const [workload, variant] = key.split('/') as [string, string];
    const total = summarize(ss.map((s) => s.encodeNs + s.decodeNs));
    const encode = summarize(ss.map((s) => s.encodeNs));
    const decode = summarize(ss.map((s) => s.decodeNs));
    const bytesPerRecord = ss[0]!.bytesPerRecord;
    summaries[key] = { encode, decode, total, bytesPerRecord };
    const declared = groups.get(`${workload}/declared`);
    const ratio = declared ? median(ss.map((s) => (s.encodeNs + s.decodeNs) / (declared.find((d) => d.run === s.run)!.encodeNs + declared.find((d) => d.run === s.run)!.decodeNs))) : NaN;
    const recordBytes = workload === '1k' ? groups.get('1k/declared')?.[0]?.bytesPerRecord ?? 1024 : NaN;
    rows.push([
      workload, labels.get(variant) ?? variant, encode.median.toFixed(1), decode.median.toFixed(1), total.median.toFixed(1), `${total.min.toFixed(1)}-${total.max.toFixed(1)}`,
      bytesPerRecord > 0 ? bytesPerRecord.toFixed(1) : '-', fmtRatio(ratio), Number.isNaN(recordBytes) ? '-' : fmtNumber((recordBytes * 1e9) / total.median / 2 ** 20, 0),
    ]);
  }
  const table: Table = {
    columns: ['workload', 'variant', 'encode ns', 'decode ns', 'enc+dec ns (median)', 'min-max', 'bytes/rec', 'vs declared', 'MiB/s (1k)'],
    rows,
    align: ['left', 'left'],
  };
  const goal = summaries['word/declared']?.total.median;
  const notes = [
    `runs: ${options.runs} per variant (median shown; min-max over runs). MiB/s: declared-encoded bytes of a 1k record x records/s of encode+decode.`,
    goal === undefined ? 'goal not measured (declared variant not run)' : `goal: declared {word, count} encode+decode <= ${GOAL_NS} ns/record: ${goal.toFixed(1)} ns -> ${goal <= GOAL_NS ? 'met' : 'NOT met'}`,
  ];
  return { table, notes, data: { summaries, samples } };
}
