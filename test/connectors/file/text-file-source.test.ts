// TextFileSource on input that is not all valid UTF-8: such lines are read with U+FFFD (a real
// U+FFFD in the file is valid and not counted), counted in the reader's metrics, and the first of
// each split is logged with the file and its byte offset; or, with invalidUtf8 'fail', they fail
// the job without restarts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, defineJob } from '../../../src/index.ts';
import type { SourceReader, SourceReaderContext } from '../../../src/api/source.ts';
import { DataGen } from '../../../src/connectors/datagen/index.ts';
import { InvalidUtf8Error, TextFileSource, type TextFileSplit } from '../../../src/connectors/file/index.ts';
import { createLogger, silentLogger, type Logger } from '../../../src/log/logger.ts';
import { singleJob } from '../../../src/rest/job-directory.ts';
import { createMetricsEndpoint } from '../../../src/rest/prometheus.ts';
import { DiscardSink } from '../../fixtures/helpers.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { SHUTDOWN } from '../../../src/lifecycle/service.ts';

const BAD = Buffer.from([0x66, 0x6f, 0xff, 0x6f]); // 'fo', a byte no UTF-8 has, 'o'
const TRUNCATED = Buffer.from([0x63, 0x61, 0x66, 0xc3]); // 'caf' and the first half of 'é'
const REAL_FFFD = 'a real \uFFFD is text';

interface Warning {
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

let dir: string;
before(() => {
  dir = makeTempDir('text-file-source');
});
after(() => removeDir(dir));

/** Writes the lines (strings as UTF-8, buffers as they are) joined by \n; returns the path and each line's byte offset. */
function writeLines(name: string, lines: ReadonlyArray<string | Buffer>, finalNewline = true): { path: string; offsets: number[] } {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  lines.forEach((line, i) => {
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    offsets.push(at);
    const last = i === lines.length - 1 && !finalNewline;
    parts.push(last ? bytes : Buffer.concat([bytes, Buffer.from('\n')]));
    at += bytes.length + (last ? 0 : 1);
  });
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts));
  return { path, offsets };
}

/** A reader of the source's splits at this parallelism, as subtask 0 would get them all, and what it logs. */
function readAll(source: TextFileSource, parallelism = 1): { lines: string[]; warnings: Warning[]; reader: SourceReader<string, TextFileSplit> } {
  const warnings: Warning[] = [];
  const log: Logger = { ...silentLogger, warn: (message, fields) => warnings.push({ message, fields }), child: () => log };
  const ctx = { jobId: 'j', jobName: 'test', operatorName: 'Source', operatorUid: 'source', subtaskIndex: 0, parallelism: 1, maxParallelism: 128, attemptNumber: 0, log, sendSplitRequest() {}, sendSourceEvent() {} } satisfies SourceReaderContext;
  const reader = source.createReader(ctx);
  reader.addSplits(source.createSplits({ parallelism }));
  reader.notifyNoMoreSplits();
  const lines: string[] = [];
  while (reader.pollNext({ collect: (l) => lines.push(l) }) !== 'end');
  return { lines, warnings, reader };
}

describe('invalid UTF-8 in text files', () => {
  test('replaced by U+FFFD, counted (not the real U+FFFD), one warning naming the file and the first bad line', () => {
    const { path, offsets } = writeLines('mixed.txt', ['good', BAD, REAL_FFFD, 'café ✓', TRUNCATED, 'end'], false);
    const { lines, warnings, reader } = readAll(new TextFileSource(path));
    assert.deepEqual(lines, ['good', 'fo\uFFFDo', REAL_FFFD, 'café ✓', 'caf\uFFFD', 'end']);
    assert.deepEqual(reader.metrics?.(), { invalid_utf8_lines: 2 });
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.ok(warnings[0]!.message.includes(`${path}: the line at byte ${offsets[1]} is not valid UTF-8`), warnings[0]!.message);
    assert.deepEqual(warnings[0]!.fields, { file: path, offset: offsets[1] });
  });

  test('a clean file with real U+FFFD characters counts nothing and logs nothing', () => {
    const { path } = writeLines('clean.txt', [REAL_FFFD, '\uFFFD', 'ünïcødé 😀']);
    const { lines, warnings, reader } = readAll(new TextFileSource(path));
    assert.equal(lines.length, 3);
    assert.deepEqual(reader.metrics?.(), { invalid_utf8_lines: 0 });
    assert.deepEqual(warnings, []);
  });

  test('a last line without a newline and lines beyond the first 256 kB buffer are checked too', () => {
    const filler = Array.from({ length: 6000 }, (_, i) => `line ${i} ${'x'.repeat(60)} \uFFFD`);
    const { path, offsets } = writeLines('large.txt', [...filler, BAD, ...filler, TRUNCATED], false);
    assert.ok(offsets[6000]! > 256 * 1024, 'the bad line is past the first buffer');
    const { lines, warnings, reader } = readAll(new TextFileSource(path, { minSplitBytes: 1 << 30 }));
    assert.equal(lines.length, 12_002);
    assert.deepEqual(reader.metrics?.(), { invalid_utf8_lines: 2 });
    assert.equal(warnings.length, 1);
    assert.deepEqual(warnings[0]!.fields, { file: path, offset: offsets[6000] });
  });

  test('one warning per split: a file read as two splits logs the first bad line of each', () => {
    const half = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    const { path, offsets } = writeLines('split.txt', [BAD, ...half, BAD, ...half, BAD]);
    const source = new TextFileSource(path, { minSplitBytes: 1024 });
    const { warnings, reader } = readAll(source, 2);
    assert.deepEqual(reader.metrics?.(), { invalid_utf8_lines: 3 });
    // A split owns the lines that start inside it.
    const bad = [offsets[0]!, offsets[201]!, offsets[402]!];
    const splits = source.createSplits({ parallelism: 2 });
    assert.equal(splits.length, 2);
    const firstBad = splits.map((s) => bad.find((o) => o >= s.start && o < s.end));
    assert.ok(firstBad.every((o) => o !== undefined), 'each split holds a bad line');
    assert.deepEqual(
      warnings.map((w) => w.fields?.offset),
      firstBad,
    );
  });

  test("invalidUtf8 'fail': an InvalidUtf8Error naming the file and the line's byte offset", () => {
    const { path, offsets } = writeLines('fail.txt', ['good', REAL_FFFD, BAD, 'after']);
    assert.throws(
      () => readAll(new TextFileSource(path, { invalidUtf8: 'fail' })),
      (e: unknown) => e instanceof InvalidUtf8Error && e.path === path && e.offset === offsets[2] && e.message.includes(`${path}: the line at byte ${offsets[2]} is not valid UTF-8`),
    );
  });
});

describe('invalid UTF-8 in a running job', { timeout: 30_000 }, () => {
  test('the count is in /metrics as weir_source_reader_invalid_utf8_lines, the warning in the job log', async () => {
    const { path, offsets } = writeLines('job.txt', ['one', BAD, 'two', TRUNCATED]);
    const logged: Array<Record<string, unknown>> = [];
    const log = createLogger({ level: 'warn', json: true, write: (line) => logged.push(JSON.parse(line) as Record<string, unknown>) });
    const job = defineJob((env) => {
      // The endless second input keeps the job running while its metrics are read.
      env
        .fromSource(new TextFileSource(path), { name: 'Source: lines', uid: 'lines' })
        .union(env.fromSource(DataGen.of((i) => `gen ${i}`, { ratePerSecond: 100 }), { name: 'Source: gen', uid: 'gen' }))
        .sinkTo(new DiscardSink<string>(), { name: 'Sink: discard', uid: 'sink' });
    });
    const master = await createJobMaster({ job, log });
    const result = master.run();
    const metrics = createMetricsEndpoint(singleJob(master));
    try {
      const sample = /weir_source_reader_invalid_utf8_lines\{[^}]*vertex="Source: lines"[^}]*\} (\d+)/;
      // The TaskManager reports its subtasks' figures every 500 ms.
      while (sample.exec(await metrics.scrape())?.[1] !== '2') await new Promise((r) => setTimeout(r, 50));
      const warning = logged.find((l) => String(l.msg).includes('not valid UTF-8'));
      assert.ok(warning, JSON.stringify(logged));
      assert.equal(warning.level, 'warn');
      assert.equal(warning.file, path);
      assert.equal(warning.offset, offsets[1]);
    } finally {
      await metrics.stop(SHUTDOWN);
      await master.cancel();
      await result;
    }
  });

  test("with invalidUtf8 'fail' the job fails at once, naming the file and offset, without restarts", async () => {
    const { path, offsets } = writeLines('job-fail.txt', ['one', 'two', BAD]);
    const job = defineJob((env) => {
      env.fromSource(new TextFileSource(path, { invalidUtf8: 'fail' }), { name: 'Source: lines', uid: 'lines' }).sinkTo(new DiscardSink<string>(), { name: 'Sink: discard', uid: 'sink' });
    });
    const master = await createJobMaster({ job, log: silentLogger, config: { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 3, 'restart-strategy.fixed-delay.delay': 10 } });
    const result = await master.run();
    assert.equal(result.status, 'FAILED');
    assert.equal(result.restarts, 0, 'the bytes will not change on a restart');
    assert.ok(result.error?.message.includes(`${path}: the line at byte ${offsets[2]} is not valid UTF-8`), result.error?.message);
  });
});
