// Scenario `kafka`: the Kafka connectors against the bare kafkajs client on the same private
// broker (test/fixtures/kafka-mock.ts: librdkafka's mock cluster, 3 brokers, in memory).
//
//   client-send          producer.sendBatch of N messages in batches of 500, 8 batches in flight
//   client-transaction   a transactional producer: one transaction, the same batches, commit
//   sink-exactly-once    KafkaSink's transactional writer + pre-commit + its committer (commit)
//   sink-at-least-once   KafkaSink's writer sending at once + pre-commit (flush)
//   client-consume       a kafkajs consumer (eachBatch) reading the N messages of one partition
//   source-reader        KafkaSourceReader (bounded, one split) polled until it ends
//
// msgs/s = N / wall time; the topics exist before the clock starts. Messages: 100-byte JSON.
// The connectors are driven directly, without a job around them. Variants alternate within a
// run; ratios per run, medians reported.
import { Kafka, logLevel } from 'kafkajs';
import { KafkaSink } from '../../src/connectors/kafka/index.ts';
import { KafkaSourceReader } from '../../src/connectors/kafka/kafka-source-reader.ts';
import { startKafkaMock } from '../../test/fixtures/kafka-mock.ts';
import { fmtNumber, fmtRatio, timed, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';
import { runVariants, variantTable } from '../side-by-side.ts';
import { benchReaderContext, drainReader, driveSink } from '../connector-drivers.ts';

interface Event {
  id: number;
  word: string;
  payload: string;
}

const BATCH = 500;

export const kafkaBench: Scenario = {
  name: 'kafka',
  description: 'KafkaSink and KafkaSource vs the bare kafkajs client on one private librdkafka mock cluster (msgs/s)',
  defaultRuns: 3,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const n = options.records ?? 10_000;
    const data: Event[] = Array.from({ length: n }, (_, i) => ({ id: i, word: `w${i % 97}`, payload: 'x'.repeat(60) }));
    const texts = data.map((e) => JSON.stringify(e));
    const mock = await startKafkaMock();
    const kafka = new Kafka({ brokers: [...mock.brokers], logLevel: logLevel.NOTHING, clientId: 'bench' });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    let topics = 0;
    const newTopic = async () => {
      const t = `out${++topics}`;
      await mock.createTopic(t, 1);
      return t;
    };
    try {
      await mock.createTopic('in', 1);
      for (let i = 0; i < n; i += BATCH) await producer.send({ topic: 'in', messages: texts.slice(i, i + BATCH).map((value) => ({ value })) });
      const connection = { bootstrapServers: mock.bootstrap };
      let round = 0;
      const variants: Record<string, () => Promise<number>> = {
        'client-send': async () => {
          const topic = await newTopic();
          return (await timed(() => sendAll(texts, (messages) => producer.send({ topic, messages })))).ms;
        },
        'client-transaction': async () => {
          const topic = await newTopic();
          const tp = kafka.producer({ transactionalId: `bench-${++round}`, maxInFlightRequests: 1, allowAutoTopicCreation: false });
          await tp.connect();
          const { ms } = await timed(async () => {
            const tx = await tp.transaction();
            // One transaction's batches go one after another (kafkajs refuses concurrent sends of a transactional producer).
            for (let i = 0; i < n; i += BATCH) await tx.send({ topic, messages: texts.slice(i, i + BATCH).map((value) => ({ value })) });
            await tx.commit();
          });
          await tp.disconnect();
          return ms;
        },
        'sink-exactly-once': async () => driveSink(new KafkaSink<Event>({ connection, topic: await newTopic() }), data, `sink-${++round}`),
        'sink-at-least-once': async () => driveSink(new KafkaSink<Event>({ connection, topic: await newTopic(), guarantee: 'at-least-once' }), data, `sink-${++round}`),
        'client-consume': async () => consumeAll(kafka, n, ++round),
        'source-reader': async () => readAll(mock.bootstrap, n),
      };
      const m = await runVariants(options, n, 'msgs/s', variants, { eo: ['client-transaction', 'sink-exactly-once'], alo: ['client-send', 'sink-at-least-once'], source: ['client-consume', 'source-reader'] });
      const r = { eo: m.ratios.eo!, alo: m.ratios.alo!, source: m.ratios.source! };
      return {
        table: variantTable(m, 'msgs/s'),
        notes: [
          `${fmtNumber(n)} messages of ${texts[0]!.length} bytes, ${options.runs} runs per variant, kafkajs 2.2.4 against librdkafka's mock cluster; connectors driven directly.`,
          `KafkaSink exactly-once / client transaction: ${fmtRatio(r.eo.median)}`,
          `KafkaSink at-least-once / client send: ${fmtRatio(r.alo.median)}`,
          `KafkaSourceReader / client consume: ${fmtRatio(r.source.median)}`,
        ],
        data: { messages: n, samples: m.samples, ratios: r },
      };
    } finally {
      await producer.disconnect().catch(() => {});
      await mock.stop();
    }
  },
};

async function sendAll(texts: readonly string[], send: (messages: { value: string }[]) => Promise<unknown>): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; i < texts.length; i += BATCH) {
    const p = send(texts.slice(i, i + BATCH).map((value) => ({ value }))).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 8) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}

async function consumeAll(kafka: Kafka, n: number, round: number): Promise<number> {
  const consumer = kafka.consumer({ groupId: `bench-consume-${round}`, maxWaitTimeInMs: 250 });
  await consumer.connect();
  await consumer.subscribe({ topics: ['in'], fromBeginning: true });
  const { ms } = await timed(
    () =>
      new Promise<void>((resolve) => {
        let count = 0;
        void consumer.run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) JSON.parse(m.value!.toString());
            count += batch.messages.length;
            if (count >= n) resolve();
          },
        });
      }),
  );
  await consumer.disconnect();
  return ms;
}

function readAll(bootstrapServers: string, n: number): Promise<number> {
  const reader = new KafkaSourceReader<unknown>({ connection: { bootstrapServers }, topics: ['in'], bounded: true, commitOffsetsOnCheckpoint: false, deserializer: (r) => JSON.parse(Buffer.from(r.value!).toString()) as unknown }, benchReaderContext());
  return drainReader(reader, [{ topic: 'in', partition: 0, nextOffset: 0, endOffset: n }], n);
}
