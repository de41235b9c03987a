// NATS JetStream to NATS JetStream, exactly once: words published to a subject of one stream ->
// a running count per word -> one message per count on `<output subject>.<word>` of another
// stream, each count exactly once, also across failures and restores.
//
//   nats-server -js                                        # a local server on 127.0.0.1:4222
//   nats stream add events --subjects 'events.>' --defaults
//   weir run examples/jetstream-counts.ts -- --create-output
//   nats pub events.words 'apple' --count 10               # 10 messages: apple 1 .. apple 10
//   nats sub 'counts.>'                                    # or: nats stream view counts
//
// --servers URLS            NATS servers (default nats://127.0.0.1:4222)
// --input STREAM            the input stream (default events); every one of its subjects is read,
//                           one split per subject filter spread over the readers
// --output STREAM           the output stream (default counts), which must capture `<subject>.>`
// --output-subject S        the output subjects' prefix (default counts)
// --create-output           create the output stream when it is missing (subjects `<S>.>`)
// --bounded                 stop at the input's last message as of the job's start
// --checkpoint-interval MS  (default 1000): a checkpoint's counts are published when it completes
//
// The sink publishes each checkpoint's messages after the checkpoint completes, with a
// Nats-Msg-Id made of a prefix stable across resumes, the subtask, the checkpoint and the
// message's position: a publication replayed after a failure is dropped by the server within
// the output stream's duplicate_window (2 minutes by default). That window must cover the
// checkpoint interval plus the checkpoint timeout, which is why the timeout is set to 60 s here.
import { defineJob, type DataStream, type Source, type StreamExecutionEnvironment } from 'weir-stream';
import { JetStreamSink, JetStreamSource, type JetStreamSinkOptions } from 'weir-stream/connectors/jetstream';

/** A running count: the word and how often it was seen so far. */
export interface WordCount {
  word: string;
  n: number;
}

/** The pipeline from any source of words: per word, every running count. */
export function runningCounts(env: StreamExecutionEnvironment, words: Source<string, unknown>): DataStream<WordCount> {
  return env
    .fromSource(words, { name: 'Source: jetstream', uid: 'jetstream-source' })
    .map((word: string) => ({ word: word.trim(), n: 1 }), { name: 'Word' })
    .keyBy((c) => c.word)
    .sum('n', { name: 'Count', uid: 'counts' });
}

/** The sink's options: `<prefix>.<word>` subjects, the count as JSON. */
export function countsSinkOptions(servers: string, stream: string, subjectPrefix: string, create: boolean): JetStreamSinkOptions<WordCount> {
  return {
    connection: { servers },
    stream,
    subject: (c) => `${subjectPrefix}.${c.word}`,
    serializer: (c) => JSON.stringify(c),
    ...(create ? { createStream: { subjects: [`${subjectPrefix}.>`] } } : {}),
  };
}

export default defineJob((env, args) => {
  env.enableCheckpointing({ interval: args.getNumber('checkpoint-interval', 1000), timeout: 60_000 });
  const servers = args.get('servers', 'nats://127.0.0.1:4222');
  const source = new JetStreamSource<string>({ connection: { servers }, stream: args.get('input', 'events'), bounded: args.has('bounded') });
  runningCounts(env, source).sinkTo(new JetStreamSink(countsSinkOptions(servers, args.get('output', 'counts'), args.get('output-subject', 'counts'), args.has('create-output'))), {
    name: 'Sink: jetstream',
    uid: 'jetstream-sink',
  });
});
