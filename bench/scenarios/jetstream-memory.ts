// Scenario `jetstream-memory`: what the exactly-once JetStreamSink holds per message of a
// checkpoint until the checkpoint completes and its messages are published. Its writer stages N
// messages (no server: staging is local), then the pre-commit hands them over as one committable.
//
//   heap B/msg      V8 heap growth per staged message (after a full GC; node is given --expose-gc
//                   through v8.setFlagsFromString), the writer's array and its message objects
//   checkpoint B/msg the committable as the checkpoint stores it (MessagePack, the operator-state
//                   codec for untyped values) per message
//
// Variants: 100-byte JSON payloads to one fixed subject, or to a subject per record made by a
// function (`counts.<word>`, as examples/jetstream-counts.ts does: a new string per record), and
// 1 KiB payloads. During a checkpoint the sink also clones its committables once (snapshotAsync's
// structuredClone) until their state is written: count heap B/msg twice for that moment.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { JetStreamSinkOptions } from '../../src/connectors/jetstream/jetstream-sink-options.ts';
import { StagingJetStreamWriter } from '../../src/connectors/jetstream/jetstream-sink-writer.ts';
import { pack } from '../../src/serialization/schemaless-codec.ts';
import { fmtNumber, summarize, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';

interface Count {
  word: string;
  n: number;
  payload: string;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const VARIANTS: Record<string, { options: JetStreamSinkOptions<Count>; payload: number }> = {
  '100 B, fixed subject': { options: { connection: { servers: 'nats://unused' }, stream: 'out', subject: 'out.counts' }, payload: 60 },
  '100 B, subject per record': { options: { connection: { servers: 'nats://unused' }, stream: 'out', subject: (c) => `counts.${c.word}` }, payload: 60 },
  '1 KiB, subject per record': { options: { connection: { servers: 'nats://unused' }, stream: 'out', subject: (c) => `counts.${c.word}` }, payload: 985 },
};

export const jetstreamMemory: Scenario = {
  name: 'jetstream-memory',
  description: "the exactly-once JetStreamSink's memory and checkpoint bytes per message staged for a checkpoint",
  defaultRuns: 3,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const n = options.records ?? 200_000;
    const heap: Record<string, number[]> = {};
    const stored: Record<string, number[]> = {};
    const sizes: Record<string, number> = {};
    for (let run = 0; run < options.runs; run++) {
      for (const [name, v] of Object.entries(VARIANTS)) {
        const m = measure(v.options, v.payload, n);
        sizes[name] = m.jsonBytes;
        (heap[name] ??= []).push(m.heapPerMessage);
        (stored[name] ??= []).push(m.checkpointPerMessage);
        options.log(`run ${run + 1}/${options.runs} ${name.padEnd(26)} heap ${fmtNumber(m.heapPerMessage)} B/msg, checkpoint ${fmtNumber(m.checkpointPerMessage)} B/msg`);
      }
    }
    const rows = Object.keys(VARIANTS).map((name) => {
      const h = summarize(heap[name]!);
      const s = summarize(stored[name]!);
      return [name, fmtNumber(h.median), fmtNumber(s.median), fmtNumber((h.median * 1_000_000) / 2 ** 20)];
    });
    return {
      table: { columns: ['variant', 'heap B/msg (median)', 'checkpoint B/msg', 'heap MiB per 1M msgs staged'], rows },
      notes: [
        `${fmtNumber(n)} messages staged per run, ${options.runs} runs; one staged message as JSON: ${Object.entries(sizes).map(([k, b]) => `${k} ${b} B`).join(', ')}.`,
        'A sink subtask holds what it received since the last pre-commit, plus every committable not yet committed (a checkpoint that completed but whose publication is retried keeps its messages): memory ~ heap B/msg x records per subtask per (checkpoint interval + commit time), twice that while a checkpoint clones them.',
      ],
      data: { messages: n, heap: Object.fromEntries(Object.entries(heap).map(([k, v]) => [k, summarize(v)])), checkpoint: Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, summarize(v)])) },
    };
  },
};

/** One writer's staging, measured on its own: nothing of it is reachable once this returns. */
function measure(options: JetStreamSinkOptions<Count>, payloadLength: number, n: number): { heapPerMessage: number; checkpointPerMessage: number; jsonBytes: number } {
  const payload = 'x'.repeat(payloadLength);
  const writer = new StagingJetStreamWriter<Count>(options, 0);
  const before = heapAfterGc();
  // Records made one by one, as an upstream operator would; only the staged messages stay.
  for (let i = 0; i < n; i++) writer.write({ word: `w${i % 997}`, n: i, payload });
  const heapPerMessage = (heapAfterGc() - before) / n;
  const messages = writer.prepareCommit(1)[0]!.messages;
  // Packed in slices: msgpackr keeps a buffer as large as its largest pack, which would stay on the heap.
  let bytes = 0;
  for (let i = 0; i < n; i += 1000) bytes += pack({ subtask: 0, checkpointId: 1, createdAt: Date.now(), messages: messages.slice(i, i + 1000) }).byteLength;
  return { heapPerMessage, checkpointPerMessage: bytes / n, jsonBytes: JSON.stringify(messages[0]).length };
}
