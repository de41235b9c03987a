// Watermarks per Kafka partition with idleness (Flink's KafkaSource: split-local watermark
// generation), in a real job on the librdkafka mock: a topic of 3 partitions with records in
// partitions 0 and 1 only, counted in 1 s tumbling event-time windows. Partition 2 has a watermark
// output from the start, empty or not: without withIdleness it holds every window back (a record
// it gets later for the first window still counts in it); with withIdleness(6000) it is marked
// idle after 6 s of processing time and the windows fire on partitions 0 and 1 alone, not before.
//
// Why this cannot race (a previous attempt with withIdleness(500) saw windows of 5 records
// instead of 10): idleness is processing time, and a partition WITH records can be marked idle
// too, when the consumer's group join and first fetch take longer than the timeout; then the
// other data partition alone moves the watermark and the late partition's records come too late
// for their windows. Here no watermark made from the data records can close any window: their
// event times span 0..9.9 s and the watermarks are bounded-out-of-orderness by 10 s, so the
// highest a data partition can reach is -0.1 s. Windows close only on the two closing records
// (event time 30 s, one in partition 0, one in partition 1), which the test produces after a tap
// on the source's stream has seen every data record: whatever was marked idle meanwhile, every
// data record was emitted before any watermark could pass its window. The run ends by cancelling
// it once the expected windows have come (awaited, no sleeps).
//
// Why 6 s of idleness and not 3: the consumer's group join on the mock takes about 3 s (measured:
// the data reached the tap 3.1-3.2 s after the start), so a 3 s timeout expires before the first
// fetch and the windows would fire at the same time whether the empty partition had an output
// holding them or none at all. With 6 s, a partition without an output lets them fire at about
// 3.3 s; an output held until it is idle, at 6 s at the earliest.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createJobMaster, createLogger, defineJob, TumblingEventTimeWindows, WatermarkStrategy, type Collector, type TimeWindow, type WindowContext } from '../../../src/index.ts';
import type { SourceOutput, SourceReaderContext } from '../../../src/api/source.ts';
import { KafkaDeserializers, KafkaSource, type KafkaTextRecord } from '../../../src/connectors/kafka/index.ts';
import { KafkaSourceReader } from '../../../src/connectors/kafka/kafka-source-reader.ts';
import { uniqueId } from '../../fixtures/helpers.ts';
import { startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../../fixtures/kafka-topics.ts';
import { LiveRecords, LiveSink } from '../../fixtures/live-sink.ts';

/** Event time 0 of the test (whole seconds, so windows start at BASE + k s); recent, so that no retention could touch it. */
const BASE = 1_700_000_000_000;
const WINDOW = 1000;
const DATA = 100;
const IDLENESS = 6000;
/** Larger than the data's event-time span (9.9 s): no data record's watermark closes a window. */
const OUT_OF_ORDERNESS = 10_000;
const CLOSING_TIME = BASE + 30_000;

interface Produced {
  readonly value: string;
  readonly partition: number;
  readonly timestamp: number;
}

interface WindowResult {
  readonly start: number;
  readonly values: string[];
}

/** Record i at event time i * 100 ms, in partition i mod 2: 10 per window, 5 from each partition. */
function dataRecords(): Produced[] {
  return Array.from({ length: DATA }, (_, i) => ({ value: `r${i}`, partition: i % 2, timestamp: BASE + i * 100 }));
}

/** What the windows hold, computed from the records themselves: their values by window start. */
function expectedWindows(records: readonly Produced[], maxTime: number): WindowResult[] {
  const byStart = new Map<number, string[]>();
  for (const r of records) {
    if (r.timestamp > maxTime) continue;
    const start = r.timestamp - ((r.timestamp - BASE) % WINDOW);
    byStart.set(start, [...(byStart.get(start) ?? []), r.value]);
  }
  return [...byStart].map(([start, values]) => ({ start, values: values.sort() })).sort((a, b) => a.start - b.start);
}

const describeWindow = {
  process: (_k: string, ctx: WindowContext<TimeWindow>, records: readonly KafkaTextRecord[], out: Collector<WindowResult>) =>
    out.collect({ start: ctx.window().start, values: records.map((r) => r.value ?? '').sort() }),
};

describe('KafkaSource watermarks per partition', () => {
  let env: KafkaTestEnv;
  before(async () => {
    env = await startKafkaTest('weir-kafka-idleness');
  });
  after(async () => {
    await stopKafkaTest(env ?? {});
  });

  async function produce(topic: string, records: readonly Produced[]): Promise<void> {
    await env.producer.send({ topic, messages: records.map((r) => ({ value: r.value, partition: r.partition, timestamp: String(r.timestamp) })) });
  }

  /** Starts the job on `topic`: the source's values go to the tap channel, the windows to the windows channel. */
  async function start(topic: string, parallelism: number, strategy: WatermarkStrategy<KafkaTextRecord>) {
    const tapName = uniqueId('tap');
    const windowsName = uniqueId('windows');
    const tap = new LiveRecords<string>(tapName);
    const windows = new LiveRecords<WindowResult>(windowsName);
    const job = defineJob((e) => {
      const records = e.fromSource(new KafkaSource<KafkaTextRecord>({ connection: { bootstrapServers: env.mock.bootstrap }, topics: [topic], deserializer: KafkaDeserializers.record() }), { uid: 'kafka', parallelism, watermarks: strategy });
      records.map((r) => r.value ?? '', { uid: 'tap', parallelism }).sinkTo(new LiveSink<string>(tapName));
      records
        .keyBy(() => 'all')
        .window(TumblingEventTimeWindows.of(WINDOW))
        .process(describeWindow, { uid: 'windows', parallelism: 1 })
        .sinkTo(new LiveSink<WindowResult>(windowsName));
    });
    // A short watermark interval: a watermark that was free to move would have moved long before the next record arrives.
    const master = await createJobMaster({ job, config: { 'pipeline.auto-watermark-interval': '20 ms' } });
    const startedAt = Date.now();
    const done = master.run();
    const stop = async () => {
      await master.cancel();
      await done;
      tap.close();
      windows.close();
    };
    return { tap, windows, startedAt, stop };
  }

  test('the reader opens an output for every assigned partition at its next poll, records or not, and for one assigned while it waits', { timeout: 60_000 }, async () => {
    await env.mock.createTopic('opened', 3);
    await env.mock.createTopic('opened-later', 1);
    await produce('opened', [{ value: 'x', partition: 0, timestamp: BASE }]);
    const ctx: SourceReaderContext = {
      jobId: 'j', jobName: 'j', operatorName: 'kafka', operatorUid: 'outputs', subtaskIndex: 0, parallelism: 1, maxParallelism: 128, attemptNumber: 0,
      log: createLogger({ level: 'error', write: () => {} }), sendSplitRequest: () => {}, sendSourceEvent: () => {},
    };
    const reader = new KafkaSourceReader<string>({ connection: { bootstrapServers: env.mock.bootstrap }, topics: ['opened'] }, ctx);
    const opened: string[] = [];
    const got: string[] = [];
    const output: SourceOutput<string> = {
      collect: (v) => assert.fail(`record ${v} on the reader's main output`),
      createOutputForSplit: (id) => {
        if (!opened.includes(id)) opened.push(id);
        return { collect: (v) => void got.push(`${id}:${v}`) };
      },
    };
    try {
      reader.addSplits([0, 1, 2].map((partition) => ({ topic: 'opened', partition, nextOffset: 0 })));
      await reader.isAvailable();
      reader.pollNext(output);
      assert.deepEqual(opened, ['opened-0', 'opened-1', 'opened-2'], 'every partition has its output at the first poll, before any record');
      while (got.length === 0) {
        await reader.isAvailable();
        reader.pollNext(output);
      }
      assert.deepEqual(got, ['opened-0:x']);
      // Nothing queued: the reader waits for records, and a new split must wake it for its output to open.
      const waiting = reader.isAvailable();
      reader.addSplits([{ topic: 'opened-later', partition: 0, nextOffset: 0 }]);
      let guard: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error('the reader waiting for records was not woken by addSplits')), 10_000)));
      await Promise.race([waiting, stuck]).finally(() => clearTimeout(guard));
      reader.pollNext(output);
      assert.deepEqual(opened, ['opened-0', 'opened-1', 'opened-2', 'opened-later-0']);
    } finally {
      await reader.close();
    }
  });

  const hasAll = (values: readonly string[]) => (records: readonly string[]) => values.every((v) => records.includes(v));

  // Partition 0 of 2 readers has partition 2 with it: the reader's watermark is the minimum of its own two partitions.
  for (const parallelism of [1, 2]) {
    test(`without idleness the empty partition holds every window back (source parallelism ${parallelism})`, { timeout: 90_000 }, async () => {
      const topic = `held${parallelism}`;
      await env.mock.createTopic(topic, 3);
      const data = dataRecords();
      await produce(topic, data);
      const closing: Produced[] = [0, 1].map((p) => ({ value: `closing-${p}`, partition: p, timestamp: CLOSING_TIME }));
      // Partition 2's first records come after everything else was emitted: one for the first window, then one that closes the windows.
      const late: Produced[] = [
        { value: 'p2-first-window', partition: 2, timestamp: BASE + 500 },
        { value: 'closing-2', partition: 2, timestamp: CLOSING_TIME },
      ];
      const job = await start(topic, parallelism, WatermarkStrategy.forBoundedOutOfOrderness<KafkaTextRecord>(OUT_OF_ORDERNESS));
      try {
        await job.tap.until('every data record through the source', hasAll(data.map((r) => r.value)));
        await produce(topic, closing);
        await job.tap.until('the closing records of partitions 0 and 1 through the source', hasAll(closing.map((r) => r.value)));
        assert.equal(job.windows.records.length, 0, 'no window fired while partition 2 had no watermark');
        await produce(topic, late);
        const expected = expectedWindows([...data, ...late], CLOSING_TIME - 1);
        await job.windows.until(`${expected.length} windows`, (w) => w.length >= expected.length);
        const got = [...job.windows.records].sort((a, b) => a.start - b.start);
        // Partition 2 held the first window open: its record counts in it (with a watermark free to move it would have come late and been dropped).
        assert.deepEqual(got, expected);
        assert.equal(got[0]!.values.length, 11);
        assert.ok(got.slice(1).every((w) => w.values.length === 10), JSON.stringify(got.map((w) => w.values.length)));
      } finally {
        await job.stop();
      }
    });

    test(`with withIdleness(${IDLENESS}) the empty partition goes idle and the windows fire complete (source parallelism ${parallelism})`, { timeout: 90_000 }, async () => {
      const topic = `idle${parallelism}`;
      await env.mock.createTopic(topic, 3);
      const data = dataRecords();
      await produce(topic, data);
      const closing: Produced[] = [0, 1].map((p) => ({ value: `closing-${p}`, partition: p, timestamp: CLOSING_TIME }));
      const job = await start(topic, parallelism, WatermarkStrategy.forBoundedOutOfOrderness<KafkaTextRecord>(OUT_OF_ORDERNESS).withIdleness(IDLENESS));
      try {
        await job.tap.until('every data record through the source', hasAll(data.map((r) => r.value)));
        await produce(topic, closing);
        await job.tap.until('the closing records through the source', hasAll(closing.map((r) => r.value)));
        const closedAfter = Date.now() - job.startedAt;
        const expected = expectedWindows(data, CLOSING_TIME - 1);
        assert.equal(expected.length, 10);
        assert.ok(expected.every((w) => w.values.length === 10), 'the data gives 10 records to each window');
        await job.windows.until(`${expected.length} windows`, (w) => w.length >= expected.length);
        const firedAfter = Date.now() - job.startedAt;
        assert.deepEqual([...job.windows.records].sort((a, b) => a.start - b.start), expected);
        // Partition 2 held them back until it had been without records for the idleness timeout.
        assert.ok(firedAfter >= IDLENESS, `the windows fired ${firedAfter} ms after the start (the closing records came through at ${closedAfter} ms), before partition 2 could be idle`);
        console.log(`idleness ${IDLENESS} ms: closing records through the source ${closedAfter} ms after the start, windows fired at ${firedAfter} ms`);
      } finally {
        await job.stop();
      }
      assert.deepEqual([...job.windows.records].sort((a, b) => a.start - b.start), expectedWindows(data, CLOSING_TIME - 1), 'no other window fired');
    });
  }
});
