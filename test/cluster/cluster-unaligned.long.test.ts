// Unaligned checkpoints across processes: a word count whose sinks take far fewer records per
// second than its sources read, with every channel between the two TaskManager processes full.
// The slow sinks slow the sources in the other process (backpressure crosses the TCP connection),
// every process stays small, the unaligned barriers overtake the in-flight records over TCP and
// those records are channel state; a TaskManager SIGKILLed then, and the job resumes from such a
// checkpoint on a spare TaskManager with exactly-once output.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { completeCheckpoints, diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, REPO_ROOT, writeWordsFile } from '../fixtures/recovery-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { slotsOf, TestCluster } from '../fixtures/weir-cluster.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'wordcount-unaligned.ts');

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('cluster-unaligned');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

test('unaligned checkpoints over TCP under backpressure, SIGKILL of a TaskManager, resume from in-flight channel state: exactly-once', { timeout: 180_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s', 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 3, 'restart-strategy.fixed-delay.delay': '200 ms' } });
  await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a' });
  await cluster.startTaskManager({ id: 'tm-b' });
  const input = join(root, 'words.txt');
  // About 28 s at the sink's 2,500 words/s: the SIGKILL must come while the victim still runs (at
  // load 15 the waits before it took the whole 14 s of a 200 kB input, twice: no restore).
  const { counts } = writeWordsFile(input, { seed: 99, bytes: 400_000 });
  const output = join(root, 'out');
  const checkpointDir = join(root, 'checkpoints');
  const run = spawnWeir(
    ['run', JOB, '-m', cluster.address, '-p', '2', '--unaligned', '--checkpoint-dir', checkpointDir, '-D', 'taskmanager.network.buffer-records=32', '--', '--input', input, '--output', output, '--sink-rate', '2500', '--checkpoint-interval', '100'],
    cluster.env,
  );
  const jobId = await run.jobId();
  const jm = cluster.jobManager!;
  const jobDir = join(checkpointDir, jobId);

  // Unaligned checkpoints whose channel state holds records that were in flight between the processes.
  const inFlight = async (dir: string) => {
    const { metadata } = await readMetadata(dir);
    assert.equal(metadata.unaligned, true);
    return metadata.operators.flatMap((o) => o.subtasks).flatMap((s) => [...Object.values(s.inputChannels ?? {}), ...Object.values(s.outputChannels ?? {})]).reduce((n, h) => n + h.records, 0);
  };
  let withInFlight: { id: number; dir: string } | undefined;
  for (let i = 0; !withInFlight; i++) {
    assert.ok(i < 300 && run.child.exitCode === null, `no unaligned checkpoint with in-flight records:\n${jm.tail()}`);
    for (const c of completeCheckpoints(jobDir)) if ((await inFlight(c.dir).catch(() => 0)) > 0) withInFlight = c;
    if (!withInFlight) await new Promise((r) => setTimeout(r, 100));
  }

  // Backpressure crossed the processes: the sources (all of them, in both processes) wait on their outputs.
  type Details = { vertices: Array<{ name: string; subtasks: Array<{ backPressuredTimeMsPerSecond: number }> }> };
  let sources: Details['vertices'][number] | undefined;
  for (let i = 0; i < 100; i++) {
    sources = ((await (await fetch(`http://${cluster.address}/jobs/${jobId}`)).json()) as Details).vertices[0]!;
    if (sources.subtasks.every((s) => s.backPressuredTimeMsPerSecond > 300)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(sources!.subtasks.every((s) => s.backPressuredTimeMsPerSecond > 300), `the sources are not backpressured: ${JSON.stringify(sources!.subtasks)}`);
  // Bounded memory: what waits is in the rings (a few segments per channel), not in heaps.
  for (const p of cluster.processes) {
    if (p.child.exitCode === null) assert.ok(rssBytes(p.child.pid!) < 600 * 1024 * 1024, `process ${p.child.spawnargs.slice(2, 4).join(' ')} holds ${rssBytes(p.child.pid!)} bytes`);
  }

  await cluster.startTaskManager({ id: 'tm-spare' });
  const victimId = slotsOf(jm, jobId).get(0)!;
  cluster.processes.find((p) => p.child.spawnargs.includes(victimId))!.child.kill('SIGKILL');
  assert.equal(await run.finished(150_000), 0, `${run.tail()}\n--- JobManager:\n${jm.tail()}`);
  const restored = jm.log.filter((l) => l.jobId === jobId && typeof l.msg === 'string' && l.msg.startsWith('restored from checkpoint ')).map((l) => l.checkpointId as number);
  assert.ok(restored.length > 0 && restored[0]! >= withInFlight.id, `restored ${restored.join(', ')}; a checkpoint with in-flight records was ${withInFlight.id}`);
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(counts)), undefined);
});
