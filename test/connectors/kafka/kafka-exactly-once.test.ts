// Kafka -> running counts per word -> Kafka. Exactly-once with 5 injected task failures: the
// records of committed transactions (what a read_committed reader sees where the broker writes
// transaction markers, which Debian's librdkafka 2.0.2 mock does not) hold every running count
// exactly once, and the protocol holds (kafka-transaction-audit.ts). At-least-once with failures:
// nothing is missing. A transaction timeout shorter than checkpoint interval plus timeout is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents } from '../../fixtures/recovery-helpers.ts';
import { expectedRunningCounts } from '../../fixtures/jetstream-streams.ts';
import { produceWords, readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv, type TopicRecord } from '../../fixtures/kafka-topics.ts';
import { checkProtocol, TransactionAudit } from '../../fixtures/kafka-transaction-audit.ts';
import { uniqueId } from '../../fixtures/helpers.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'kafka-counts.ts');

function countLines(records: readonly TopicRecord[]): string[] {
  return records.map((r) => {
    const c = JSON.parse(r.value) as { word: string; n: number };
    assert.equal(r.key, c.word, 'the key is the word');
    return `${c.word} ${c.n}`;
  }).sort();
}

describe('Kafka source and exactly-once sink', () => {
  let env: KafkaTestEnv;
  before(async () => void (env = await startKafkaTest('weir-kafka-eo')));
  after(() => stopKafkaTest(env ?? {}));

  function run(name: string, events: JobEvents, args: string[], faults?: { failures: number; seed: number; minRecords: number; maxRecords: number }) {
    return executeJob({
      job: JOB,
      args: ['--bootstrap-servers', env.mock.bootstrap, ...args],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(env.root, name),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 60,
        'restart-strategy.fixed-delay.delay': '200 ms',
      },
      ...(faults ? { faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
  }

  async function topics(input: string, output: string, words: number, distinct: number): Promise<string[]> {
    await env.mock.createTopic(input, 4);
    await env.mock.createTopic(output, 3);
    return produceWords(env.producer, input, 4, 0, words, distinct);
  }

  test('5 injected failures: the committed transactions hold every running count exactly once, and the protocol holds', { timeout: 300_000 }, async (t) => {
    const words = await topics('words1', 'counts1', 8000, 37);
    const events = new JobEvents();
    const audit = new TransactionAudit(`kafka-audit-${uniqueId()}`);
    const channel = audit;
    try {
      const result = await run('faults', events, ['--input', 'words1', '--output', 'counts1', '--bounded', '--rate', '8000', '--events', channelName(channel)], { failures: 5, seed: 31, minRecords: 800, maxRecords: 3000 });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
      const out = await readTopic(env.kafka, 'counts1');
      const findings = checkProtocol(out, audit, events.completed.map((c) => ({ id: c.id, at: c.completedAt })));
      assert.deepEqual(findings.problems, []);
      assert.deepEqual(countLines(findings.visible), expectedRunningCounts(words));
      assert.ok(findings.visible.length >= words.length, `the committed transactions hold ${findings.visible.length} records for ${words.length} words`);
      // Records of aborted transactions are left only where a failure struck after the writer had
      // sent some of an open transaction's records (seen in most runs: 1,518 in one); when none of
      // the five did, the check that each belongs to an aborted producer had nothing to look at.
      if (findings.abortedOrFencedRecords === 0) t.diagnostic('no records of aborted transactions this run: no failure struck while a transaction had records sent');
      console.log(`committed transactions ${findings.committedTransactions}, resumed commits ${findings.resumedCommits}, records of aborted/fenced transactions ${findings.abortedOrFencedRecords}, all records ${out.length}`);
    } finally {
      audit.close();
    }
  });

  test("guarantee 'at-least-once' with 3 injected failures: every running count is in the topic", { timeout: 300_000 }, async () => {
    const words = await topics('words2', 'counts2', 4000, 19);
    const events = new JobEvents();
    const result = await run('alo', events, ['--input', 'words2', '--output', 'counts2', '--bounded', '--rate', '6000', '--guarantee', 'at-least-once'], { failures: 3, seed: 5, minRecords: 500, maxRecords: 2000 });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    const got = new Set(countLines(await readTopic(env.kafka, 'counts2')));
    const missing = expectedRunningCounts(words).filter((l) => !got.has(l));
    assert.deepEqual(missing, []);
  });

  test('a transaction timeout shorter than checkpoint interval plus timeout is refused at start, naming both keys', { timeout: 120_000 }, async () => {
    await topics('words3', 'counts3', 10, 5);
    const events = new JobEvents();
    const result = await executeJob({
      job: JOB,
      args: ['--bootstrap-servers', env.mock.bootstrap, '--input', 'words3', '--output', 'counts3', '--bounded', '--checkpoint-interval', '2000', '--checkpoint-timeout', '10000', '--transaction-timeout', '5000'],
      config: { 'restart-strategy.type': 'none', 'execution.checkpointing.dir': join(env.root, 'timeout') },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /transactionTimeoutMs \(Kafka's transaction\.timeout\.ms\) 5000 ms is shorter than execution\.checkpointing\.interval \(2000 ms\) plus execution\.checkpointing\.timeout \(10000 ms\)/);
  });
});

function channelName(audit: TransactionAudit): string {
  return audit.name;
}
