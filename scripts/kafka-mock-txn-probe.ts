// Probe (issue 32): does a librdkafka mock cluster hide aborted and open transactions from a
// read_committed kafkajs reader? Writes 3 committed, 2 aborted, 1 committed and 1 open record in
// transactions to a one-partition topic, then reads it read_committed and read_uncommitted.
//   node --import tsx scripts/kafka-mock-txn-probe.ts <mock-cluster binary>
// Found (Dec 2026): Debian's 2.0.2 writes no markers (end offset 7), both readers see all 7;
// librdkafka 2.15.1 (bundled in @confluentinc/kafka-javascript 1.10.1) writes COMMIT/ABORT
// markers (end offset 10), but its classic Fetch answers LastStableOffset = high watermark and no
// aborted transactions, so read_committed still sees the aborted and the open records.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';
const bin = process.argv[2]!;
const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: child.stdout });
const it = lines[Symbol.asyncIterator]();
const bootstrap = (await it.next()).value as string;
child.stdin.write('topic t 1\n');
console.log('topic:', (await it.next()).value);
const kafka = new Kafka({ brokers: bootstrap.split(','), logLevel: logLevel.NOTHING });
const p = kafka.producer({ transactionalId: 'probe', maxInFlightRequests: 1, transactionTimeout: 60000, allowAutoTopicCreation: false });
for (let i = 0; ; i++) { try { await p.connect(); break; } catch (e) { if (i > 20) throw e; await new Promise((r) => setTimeout(r, 500)); } }
console.log('producer connected');
for (const [n, commit] of [[3, true], [2, false], [1, true]] as const) {
  const tx = await p.transaction();
  await tx.send({ topic: 't', messages: Array.from({ length: n }, (_, i) => ({ value: `${commit ? 'commit' : 'abort'}-${i}` })) });
  if (commit) await tx.commit(); else await tx.abort();
}
const open = await p.transaction();
await open.send({ topic: 't', messages: [{ value: 'open-0' }] });
const admin = kafka.admin(); await admin.connect();
console.log('offsets', JSON.stringify(await admin.fetchTopicOffsets('t')));
for (const readUncommitted of [false, true]) {
  const c = kafka.consumer({ groupId: `g${readUncommitted}`, readUncommitted, maxWaitTimeInMs: 200 });
  await c.connect(); await c.subscribe({ topics: ['t'], fromBeginning: true });
  const got: string[] = [];
  await c.run({ eachMessage: async ({ message }) => void got.push(`${message.offset}:${message.value}`) });
  await new Promise((r) => setTimeout(r, 3000));
  console.log(readUncommitted ? 'read_uncommitted' : 'read_committed', got.join(' '));
  await c.disconnect();
}
await admin.disconnect(); await p.disconnect().catch(() => {});
child.stdin.end();
process.exit(0);
