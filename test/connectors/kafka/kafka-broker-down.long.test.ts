// Long suite: about 40 s. It once hung until its timeout in 1 run of 4 under load: a commit cut
// off by the broker going down left kafkajs holding the transaction as ended, and every retry and
// restore was refused (fixed in kafka-committer.ts; its unit test is kafka-committer.test.ts).
// A broker of the three set down mid-run and up again (the librdkafka mock can do that, not
// restart one): the exactly-once job rides it out (retries, or a restart from its checkpoint)
// and the committed transactions still hold every running count exactly once. A transaction open
// when its task failed with the broker down may be neither aborted in time (the abort needs the
// broker) nor fenceable here (the 2.0.2 mock answers InitProducerId with a new producer id each
// time): such records are allowed outside the committed transactions and counted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents } from '../../fixtures/recovery-helpers.ts';
import { expectedRunningCounts } from '../../fixtures/jetstream-streams.ts';
import { produceWords, readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../../fixtures/kafka-topics.ts';
import { checkProtocol, TransactionAudit } from '../../fixtures/kafka-transaction-audit.ts';
import { uniqueId } from '../../fixtures/helpers.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'kafka-counts.ts');

describe('Kafka exactly-once with a broker down and up', () => {
  let env: KafkaTestEnv;
  before(async () => void (env = await startKafkaTest('weir-kafka-down')));
  after(() => stopKafkaTest(env ?? {}));

  test('broker 2 down for a while mid-run: every running count exactly once in the committed transactions', { timeout: 300_000 }, async () => {
    await env.mock.createTopic('words', 4);
    await env.mock.createTopic('counts', 3);
    const words = await produceWords(env.producer, 'words', 4, 0, 12_000, 31);
    const events = new JobEvents();
    const audit = new TransactionAudit(`kafka-audit-${uniqueId()}`);
    try {
      const job = executeJob({
        job: JOB,
        args: ['--bootstrap-servers', env.mock.bootstrap, '--input', 'words', '--output', 'counts', '--bounded', '--rate', '3000', '--events', audit.name],
        config: {
          'parallelism.default': 2,
          'execution.checkpointing.dir': join(env.root, 'down'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 60,
          'restart-strategy.fixed-delay.delay': '500 ms',
        },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      const withRecords = () => audit.committed().filter((c) => c.committable.records > 0).length;
      await events.waitFor('5 commits of transactions with records', () => withRecords() >= 5, 120_000);
      await env.mock.setBrokerDown(2);
      const [completed, failed, restarts] = [events.completed.length, events.failed.length, events.restarts.length];
      // Up again once the job felt it: a failed checkpoint, a restart, or 5 more checkpoints.
      await events.waitFor('the job to notice the broker down', () => events.failed.length > failed || events.restarts.length > restarts || events.completed.length >= completed + 5, 120_000);
      await env.mock.setBrokerUp(2);
      const result = await job;
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
      const out = await readTopic(env.kafka, 'counts');
      const findings = checkProtocol(out, audit, events.completed.map((c) => ({ id: c.id, at: c.completedAt })), { leftOpenAllowed: true });
      assert.deepEqual(findings.problems, []);
      const lines = findings.visible.map((r) => {
        const c = JSON.parse(r.value) as { word: string; n: number };
        return `${c.word} ${c.n}`;
      }).sort();
      assert.deepEqual(lines, expectedRunningCounts(words));
      console.log(`while down: checkpoints failed ${events.failed.length - failed}, restarts ${events.restarts.length - restarts}; committed transactions ${findings.committedTransactions}, records outside them ${findings.abortedOrFencedRecords}`);
    } finally {
      audit.close();
    }
  });
});
