// Scenario `jetstream`: the JetStream connectors against the bare NATS client on the same private
// nats-server (test/fixtures/nats-cluster.ts, one node, file storage).
//
//   client-publish    js.publish of N messages with a Nats-Msg-Id each, 512 acks in flight
//   sink-exactly-once JetStreamSink's writer (stages the messages) + pre-commit + its committer
//                     (publishes them with their ids, 512 acks in flight)
//   sink-at-least-once JetStreamSink's writer publishing at once (512 in flight) + pre-commit
//   client-consume    an ordered consumer reading the N messages (consume(), batches of 1024)
//   source-reader     JetStreamSourceReader (bounded, one split) polled until it ends
//
// msgs/s = N / wall time; connections and streams are made before the clock starts (the output
// stream purged before each sink run). Messages: 100-byte JSON. The connectors are driven
// directly, without a job around them: the figure is the connector's, not the engine's.
// Variants alternate within a run; ratios per run, medians reported.
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { JetStreamSink } from '../../src/connectors/jetstream/index.ts';
import { JetStreamSourceReader } from '../../src/connectors/jetstream/jetstream-source-reader.ts';
import { startNatsCluster } from '../../test/fixtures/nats-cluster.ts';
import { fmtNumber, fmtRatio, timed, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';
import { runVariants, variantTable } from '../side-by-side.ts';
import { benchReaderContext, drainReader, driveSink } from '../connector-drivers.ts';

interface Event {
  id: number;
  word: string;
  payload: string;
}

function events(n: number): Event[] {
  return Array.from({ length: n }, (_, i) => ({ id: i, word: `w${i % 97}`, payload: 'x'.repeat(60) }));
}

export const jetstreamBench: Scenario = {
  name: 'jetstream',
  description: 'JetStreamSink and JetStreamSource vs the bare NATS client on one private server (msgs/s)',
  defaultRuns: 3,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const n = options.records ?? 100_000;
    const data = events(n);
    const texts = data.map((e) => JSON.stringify(e));
    const nats = await startNatsCluster({ nodes: 1 });
    const nc = await connect({ servers: nats.servers.split(',') });
    try {
      const jsm = await jetstreamManager(nc);
      const js = jetstream(nc);
      await jsm.streams.add({ name: 'out', subjects: ['out.>'] });
      await jsm.streams.add({ name: 'in', subjects: ['in.>'] });
      // The source's input: written once.
      for (let i = 0; i < n; i += 512) await Promise.all(texts.slice(i, i + 512).map((t) => js.publish('in.events', t)));
      const connection = { servers: nats.servers };
      const eo = new JetStreamSink<Event>({ connection, stream: 'out', subject: 'out.events', maxInFlight: 512 });
      const alo = new JetStreamSink<Event>({ connection, stream: 'out', subject: 'out.events', guarantee: 'at-least-once', maxInFlight: 512 });
      let round = 0;
      const variants: Record<string, () => Promise<number>> = {
        'client-publish': async () => {
          await jsm.streams.purge('out');
          round++;
          return (
            await timed(async () => {
              const inFlight = new Set<Promise<unknown>>();
              for (let i = 0; i < n; i++) {
                const p = js.publish('out.events', texts[i]!, { msgID: `bench-${round}-${i}` }).finally(() => inFlight.delete(p));
                inFlight.add(p);
                if (inFlight.size >= 512) await Promise.race(inFlight);
              }
              await Promise.all(inFlight);
            })
          ).ms;
        },
        'sink-exactly-once': async () => {
          await jsm.streams.purge('out');
          return driveSink(eo, data, `sink-${++round}`);
        },
        'sink-at-least-once': async () => {
          await jsm.streams.purge('out');
          return driveSink(alo, data, `sink-${++round}`);
        },
        'client-consume': async () =>
          (
            await timed(async () => {
              const consumer = await js.consumers.get('in', { deliver_policy: DeliverPolicy.All });
              const messages = await consumer.consume({ max_messages: 1024 });
              let count = 0;
              for await (const m of messages) {
                JSON.parse(new TextDecoder().decode(m.data));
                if (++count >= n) break;
              }
              messages.stop();
            })
          ).ms,
        'source-reader': async () => readAll(nats.servers, n),
      };
      const m = await runVariants(options, n, 'msgs/s', variants, { eo: ['client-publish', 'sink-exactly-once'], alo: ['client-publish', 'sink-at-least-once'], source: ['client-consume', 'source-reader'] });
      const r = { eo: m.ratios.eo!, alo: m.ratios.alo!, source: m.ratios.source! };
      return {
        table: variantTable(m, 'msgs/s'),
        notes: [
          `${fmtNumber(n)} messages of ${texts[0]!.length} bytes, ${options.runs} runs per variant, nats-server ${nats.version}; connectors driven directly.`,
          `JetStreamSink exactly-once / client publish: ${fmtRatio(r.eo.median)}`,
          `JetStreamSink at-least-once / client publish: ${fmtRatio(r.alo.median)}`,
          `JetStreamSourceReader / client consume: ${fmtRatio(r.source.median)}`,
        ],
        data: { messages: n, samples: m.samples, ratios: r },
      };
    } finally {
      await nc.close().catch(() => {});
      await nats.stop();
    }
  },
};

async function readAll(servers: string, n: number): Promise<number> {
  const reader = new JetStreamSourceReader<unknown>({ connection: { servers }, stream: 'in', bounded: true, deserializer: (d) => JSON.parse(new TextDecoder().decode(d)) as unknown }, benchReaderContext());
  await reader.start();
  return drainReader(reader, [{ filter: 'in.>', nextSequence: 1, endSequence: n }], n);
}
