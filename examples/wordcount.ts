// The seed's example: Source -> Map -> keyBy -> Sum, with checkpoints and exactly-once output.
//
//   weir run examples/wordcount.ts -p 2 --task-managers 2 -- [--input FILE] [--output DIR] [--words N]
//
// --input FILE   a text file, split on whitespace (default: seeded datagen words)
// --output DIR   committed files with one line per update, `word<TAB>running count` (default: print the final counts)
// --words N      datagen words in all (default 200000); --seed S; --rate R words per second (default unlimited)
// --checkpoint-interval MS (default 500)
import { defineJob } from 'weir-stream';
import { DataGen } from 'weir-stream/connectors/datagen';
import { FileSink, TextFileSource } from 'weir-stream/connectors/file';
import { PrintSink } from 'weir-stream/connectors/print';

interface WordCount {
  word: string;
  count: number;
}

export default defineJob((env, args) => {
  env.enableCheckpointing({ interval: args.getNumber('checkpoint-interval', 500), mode: 'exactly-once' });

  const input = args.get('input');
  const lines = input
    ? env.fromSource(new TextFileSource(input), { name: 'Source: lines', uid: 'source' })
    : env.fromSource(
        DataGen.words({
          seed: args.getNumber('seed', 7),
          count: args.getNumber('words', 200_000),
          ...(args.has('rate') ? { ratePerSecond: args.getNumber('rate', 0) } : {}),
        }),
        { name: 'Source: words', uid: 'source' },
      );

  const counts = lines
    .flatMap((line: string) => {
      const out: WordCount[] = [];
      for (const word of line.split(/\s+/)) if (word !== '') out.push({ word, count: 1 });
      return out;
    }, { name: 'Map' })
    .keyBy((r) => r.word)
    .sum('count', { name: 'Sum', uid: 'counts' });

  const output = args.get('output');
  if (output) {
    counts.map((r) => `${r.word}\t${r.count}`, { name: 'Format' }).sinkTo(new FileSink<string>(output), { name: 'Sink: files', uid: 'sink' });
  } else {
    counts.sinkTo(new PrintSink<WordCount>({ latestBy: (r) => r.word, format: (r) => `${r.word}\t${r.count}` }), { name: 'Sink: print', uid: 'sink' });
  }
});
