// Partition discovery through a real job: a Kafka source reading every topic matching a pattern
// -> running counts per word -> exactly-once Kafka sink, at parallelism 2. A topic created while
// it runs is read without a restart; the job stops with a savepoint; another matching topic is
// created (and more is written to an old one) before it resumes at parallelism 3. The records of
// committed transactions equal the running counts of all the input matching topics hold.
// In test:long (about half a minute); the option's checks and the enumerator on its own are in
// kafka-discovery.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, type JobMaster } from '../../../src/index.ts';
import { JobEvents } from '../../fixtures/recovery-helpers.ts';
import { expectedRunningCounts } from '../../fixtures/jetstream-streams.ts';
import { produceWords, readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv, type TopicRecord } from '../../fixtures/kafka-topics.ts';
import { checkProtocol, TransactionAudit } from '../../fixtures/kafka-transaction-audit.ts';
import { uniqueId } from '../../fixtures/helpers.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'kafka-counts.ts');
const DISTINCT = 23;

function countLines(records: readonly TopicRecord[]): string[] {
  return records.map((r) => {
    const c = JSON.parse(r.value) as { word: string; n: number };
    return `${c.word} ${c.n}`;
  }).sort();
}

function committedRecords(audit: TransactionAudit): number {
  return audit.committed().reduce((n, c) => n + c.committable.records, 0);
}

async function until(what: string, check: () => boolean, failed: () => string): Promise<void> {
  const deadline = Date.now() + 240_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${failed()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


describe('Kafka partition discovery in a job', () => {
  let env: KafkaTestEnv;
  const started: JobMaster[] = [];
  before(async () => void (env = await startKafkaTest('weir-kafka-discovery')));
  after(async () => {
    for (const jm of started) await jm.cancel().catch(() => {});
    await stopKafkaTest(env ?? {});
  });

  test('a topic created while running and one created between stop-with-savepoint at p2 and resume at p3: committed counts equal the counts of all input', { timeout: 300_000 }, async () => {
    const log = createLogger({ level: 'error', write: () => {} });
    const audit = new TransactionAudit(`kafka-discovery-audit-${uniqueId()}`);
    const base = ['--bootstrap-servers', env.mock.bootstrap, '--topic-pattern', '^pin-', '--discovery-interval', '300', '--output', 'pcounts', '--events', audit.name];
    const config = (name: string, parallelism: number) => ({
      'parallelism.default': parallelism,
      'execution.checkpointing.dir': join(env.root, name),
      'restart-strategy.type': 'none',
    });
    try {
      await env.mock.createTopic('pcounts', 3);
      await env.mock.createTopic('pin-a', 3);
      await env.mock.createTopic('pin-b', 2);
      await env.mock.createTopic('other', 2);
      const words = [...(await produceWords(env.producer, 'pin-a', 3, 0, 1500, DISTINCT)), ...(await produceWords(env.producer, 'pin-b', 2, 1500, 3000, DISTINCT))];
      await produceWords(env.producer, 'other', 2, 0, 500, DISTINCT);

      const a = new JobEvents();
      const first = await createJobMaster({ job: JOB, args: [...base, '--rate', '1500'], config: config('first', 2), listener: a.listener, log });
      started.push(first);
      const firstDone = first.run();
      await first.whenRunning();
      await env.mock.createTopic('pin-c', 2);
      words.push(...(await produceWords(env.producer, 'pin-c', 2, 3000, 6000, DISTINCT)));
      // More committed than the topics of the start hold: the new topic was read without a restart.
      await until('records of the topic created while running', () => committedRecords(audit) > 3200, () => `${committedRecords(audit)} committed; ${a.describe()}`);
      const sp = await first.stopWithSavepoint(join(env.root, 'savepoints'));
      assert.equal((await firstDone).status, 'FINISHED');
      const beforeResume = committedRecords(audit);
      assert.ok(beforeResume < words.length, `the stop came mid-stream (${beforeResume} of ${words.length} committed)`);

      await env.mock.createTopic('pin-d', 3);
      words.push(...(await produceWords(env.producer, 'pin-d', 3, 6000, 7500, DISTINCT)));
      words.push(...(await produceWords(env.producer, 'pin-a', 3, 7500, 8000, DISTINCT)));

      const b = new JobEvents();
      const second = await createJobMaster({ job: JOB, args: base, config: config('second', 3), restoreFrom: sp.directory, listener: b.listener, log });
      started.push(second);
      const secondDone = second.run();
      await until('every input record counted', () => committedRecords(audit) >= words.length, () => `${committedRecords(audit)} of ${words.length} committed; ${b.describe()}`);
      assert.deepEqual(b.restored.map((r) => r.isSavepoint), [true]);
      await second.cancel();
      await secondDone;

      const out = await readTopic(env.kafka, 'pcounts');
      const completed = [...a.completed, ...b.completed].map((c) => ({ id: c.id, at: c.completedAt }));
      // The cancel may leave the last transaction open (neither committed nor aborted).
      const findings = checkProtocol(out, audit, completed, { leftOpenAllowed: true });
      assert.deepEqual(findings.problems, []);
      const expected = expectedRunningCounts(words);
      assert.equal(expected.length, 8000);
      assert.deepEqual(countLines(findings.visible), expected);
      console.log(`committed before the savepoint ${beforeResume}, after ${committedRecords(audit)}; committed transactions ${findings.committedTransactions}, all records ${out.length}`);
    } finally {
      audit.close();
    }
  });
});
