// The audit the Kafka exactly-once tests rely on: where the test broker hands two transactional
// ids the same producer id and epoch (librdkafka's mock draws them at random), each record still
// goes to its own transaction by where each transaction's records begin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KafkaCommittable, KafkaTransactionEvent } from '../../../src/connectors/kafka/index.ts';
import { checkProtocol, TransactionAudit } from '../../fixtures/kafka-transaction-audit.ts';
import type { TopicRecord } from '../../fixtures/kafka-topics.ts';

const PID = '417000';

function committable(slot: number, records: number): KafkaCommittable {
  return { subtask: 1, slot, checkpointId: slot, transactionalId: `p-1-${slot}`, producerId: PID, producerEpoch: 0, records };
}

function record(partition: number, offset: number): TopicRecord {
  return { topic: 'out', partition, offset, key: null, value: `${partition}@${offset}`, headers: {}, producerId: PID, producerEpoch: 0 };
}

function audit(events: KafkaTransactionEvent[]): TransactionAudit {
  return TransactionAudit.fromFile(events.map((event, i) => JSON.stringify({ event, at: i })).join('\n'));
}

test('a committed transaction with no records claims none of another transaction’s records under the same producer id', () => {
  const events: KafkaTransactionEvent[] = [
    { type: 'aborted', transactionalId: 'p-1-7', producerId: PID, producerEpoch: 0, firstOffsets: { 'out/0': 0 } },
    { type: 'pre-committed', committable: committable(85, 0), firstOffsets: {} },
    { type: 'committed', committable: committable(85, 0), resumed: false },
  ];
  const findings = checkProtocol([record(0, 0), record(0, 1)], audit(events), undefined);
  assert.deepEqual(findings.problems, []);
  assert.equal(findings.visible.length, 0);
  assert.equal(findings.abortedOrFencedRecords, 2);
});

test('records of two transactions sharing a producer id go to the one whose records began last before them', () => {
  const events: KafkaTransactionEvent[] = [
    { type: 'pre-committed', committable: committable(3, 2), firstOffsets: { 'out/0': 0, 'out/1': 0 } },
    { type: 'committed', committable: committable(3, 2), resumed: false },
    { type: 'aborted', transactionalId: 'p-1-9', producerId: PID, producerEpoch: 0, firstOffsets: { 'out/0': 1 } },
  ];
  const findings = checkProtocol([record(0, 0), record(0, 1), record(0, 2), record(1, 0)], audit(events), undefined);
  assert.deepEqual(findings.problems, []);
  assert.deepEqual(findings.visible.map((r) => r.value), ['0@0', '1@0']);
  assert.equal(findings.abortedOrFencedRecords, 2);
});

test('a committed transaction that holds more records than its pre-commit counted is reported', () => {
  const events: KafkaTransactionEvent[] = [
    { type: 'pre-committed', committable: committable(3, 1), firstOffsets: { 'out/0': 0 } },
    { type: 'committed', committable: committable(3, 1), resumed: false },
  ];
  const findings = checkProtocol([record(0, 0), record(0, 1)], audit(events), undefined);
  assert.deepEqual(findings.problems, ['transaction p-1-3 (checkpoint 3) holds 2 records, its pre-commit counted 1']);
});
