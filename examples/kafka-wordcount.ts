// Kafka to Kafka, exactly once: lines of a topic -> words -> a running count per word -> one
// record per count (key: the word, value: {"word","n"} as JSON) on another topic, each count in
// exactly one committed transaction, also across failures and restores.
//
//   weir run examples/kafka-wordcount.ts -- --bootstrap-servers localhost:9092
//   kafka-console-producer.sh --bootstrap-server localhost:9092 --topic lines
//   kafka-console-consumer.sh --bootstrap-server localhost:9092 --topic counts \
//     --isolation-level read_committed --property print.key=true
//
// --bootstrap-servers LIST  host:port,... (default localhost:9092)
// --input TOPIC             (default lines), read from the earliest offsets; both topics must exist
// --output TOPIC            (default counts)
// --guarantee G             exactly-once (default) | at-least-once | none
// --bounded                 stop at the input's end offsets as of the job's start
// --checkpoint-interval MS  (default 1000): a checkpoint's counts become visible to read_committed
//                           readers when it completes (its transactions are committed then)
//
// The sink's transactions time out after 15 minutes (transactionTimeoutMs, at most the brokers'
// transaction.max.timeout.ms), which must exceed the checkpoint interval plus its timeout.
import { defineJob, type Collector, type DataStream, type Source, type StreamExecutionEnvironment } from 'weir-stream';
import { KafkaSink, KafkaSource, type KafkaDeliveryGuarantee, type KafkaSinkOptions } from 'weir-stream/connectors/kafka';

/** A running count: the word and how often it was seen so far. */
export interface WordCount {
  word: string;
  n: number;
}

/** The pipeline from any source of lines: per word, every running count. */
export function wordCounts(env: StreamExecutionEnvironment, lines: Source<string, unknown>): DataStream<WordCount> {
  return env
    .fromSource(lines, { name: 'Source: kafka', uid: 'kafka-source' })
    .flatMap((line: string, out: Collector<WordCount>) => {
      for (const word of line.split(/\s+/)) if (word.length > 0) out.collect({ word, n: 1 });
    }, { name: 'Words' })
    .keyBy((c) => c.word)
    .sum('n', { name: 'Count', uid: 'counts' });
}

/** The sink's options: the word as key (so a word's counts share a partition, in order), the count as JSON. */
export function countsSinkOptions(bootstrapServers: string, topic: string, guarantee: KafkaDeliveryGuarantee): KafkaSinkOptions<WordCount> {
  return { connection: { bootstrapServers }, topic, key: (c) => c.word, serializer: (c) => JSON.stringify(c), guarantee };
}

export default defineJob((env, args) => {
  env.enableCheckpointing({ interval: args.getNumber('checkpoint-interval', 1000), timeout: 60_000 });
  const bootstrapServers = args.get('bootstrap-servers', 'localhost:9092');
  const source = new KafkaSource<string>({ connection: { bootstrapServers }, topics: [args.get('input', 'lines')], bounded: args.has('bounded') });
  const guarantee = args.get('guarantee', 'exactly-once') as KafkaDeliveryGuarantee;
  wordCounts(env, source).sinkTo(new KafkaSink(countsSinkOptions(bootstrapServers, args.get('output', 'counts'), guarantee)), { name: 'Sink: kafka', uid: 'kafka-sink' });
});
