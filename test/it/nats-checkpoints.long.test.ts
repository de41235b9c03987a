// The word count example (examples/wordcount.ts) on worker-thread TaskManagers with the
// transactional file sink and checkpoints on a private 3-node NATS cluster (object store,
// replicas 3): one NATS node is killed during the run and checkpoints keep completing; the job is
// cancelled with its checkpoints retained, and a new run restored from the nats-obj:// pointer
// commits exactly `w\t1..n`. NATS unreachable at the start fails the job naming the servers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobMaster, createLogger, executeJob } from '../../src/index.ts';
import { WordGenerator } from '../../src/connectors/datagen/index.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/wordcount.ts', import.meta.url));
// Long enough at this rate (20 s) that the first run is cancelled mid-input, whatever the NATS failover costs.
const WORDS = 80_000;
const SEED = 11;

describe('word count with checkpoints on the NATS object store', { timeout: 240_000 }, () => {
  let cluster: NatsCluster;
  let root: string;
  before(async () => {
    cluster = await startNatsCluster();
    root = makeTempDir('nats-it');
  });
  after(async () => {
    await cluster?.stop();
    removeDir(root);
  });

  test('a NATS node killed mid-run: checkpoints keep completing; restored from the nats-obj:// checkpoint, the output is exactly-once', async () => {
    const output = join(root, 'out');
    mkdirSync(output, { recursive: true });
    const checkpointDir = 'nats-obj://weir-it/checkpoints';
    const config = {
      'parallelism.default': 2,
      'execution.checkpointing.dir': checkpointDir,
      'execution.checkpointing.externalized-checkpoint-retention': 'RETAIN_ON_CANCELLATION',
      'execution.checkpointing.tolerable-failed-checkpoints': 5,
      'high-availability.nats.servers': cluster.servers,
    };
    const args = ['--words', String(WORDS), '--seed', String(SEED), '--rate', '4000', '--output', output, '--checkpoint-interval', '200'];
    const log = createLogger({ level: 'error' });

    const events = new JobEvents();
    const first = await createJobMaster({ job: EXAMPLE, args, config, taskManagers: 2, listener: events.listener, log });
    const run = first.run();
    await events.waitFor('a first checkpoint on the object store', () => events.completed.find((c) => c.directory.startsWith(`${checkpointDir}/${first.jobId}/chk-`)), 60_000);
    const victim = cluster.nodes[0]!;
    await victim.kill();
    const before = events.completed.length;
    // Those in flight when the node died may decline (a stream's RAFT leader moves, the client reconnects): later ones complete.
    const afterKill = await events.waitFor('two checkpoints with one NATS node down', () => (events.completed.length >= before + 2 ? events.completed.at(-1) : undefined), 60_000);
    assert.ok(!events.statuses.includes('FINISHED'), `the input outlasted the failover: ${events.describe()}`);
    if (process.env.WEIR_TEST_DEBUG) console.log(events.describe());
    const result = await first.cancel().then(() => run);
    assert.equal(result.status, 'CANCELED');
    assert.ok(result.latestCheckpoint?.startsWith(`${checkpointDir}/${first.jobId}/chk-`), `retained on cancel: ${result.latestCheckpoint}`);
    assert.ok(Number(result.latestCheckpoint!.split('chk-')[1]) >= Number(afterKill.directory.split('chk-')[1]));
    await victim.start();

    const again = new JobEvents();
    const second = await executeJob({ job: EXAMPLE, args, config, taskManagers: 2, restoreFrom: result.latestCheckpoint!, listener: again.listener, log });
    assert.equal(second.status, 'FINISHED', second.error?.message);
    assert.deepEqual(again.restored.map((r) => r.path), [result.latestCheckpoint]);

    const gen = new WordGenerator(SEED);
    const counts = new Map<string, number>();
    for (let i = 0; i < WORDS; i++) {
      const w = gen.wordAt(i);
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    const diff = diffSortedLines(readCommittedLines(output), expectedRunningCounts(counts));
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  });

  test('NATS unreachable at the start: the job fails at once, naming the servers', async () => {
    const started = Date.now();
    const result = await executeJob({
      job: EXAMPLE,
      args: ['--words', '100', '--output', join(root, 'never')],
      config: { 'execution.checkpointing.dir': 'nats-obj://weir-it/x', 'state.checkpoints.nats.servers': 'nats://127.0.0.1:9', 'high-availability.nats.connect-timeout': '1 s' },
      log: createLogger({ level: 'error' }),
    });
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /execution\.checkpointing\.dir nats-obj:\/\/weir-it\/x: NATS at nats:\/\/127\.0\.0\.1:9 \(state\.checkpoints\.nats\.servers\): no server could be reached/);
    assert.ok(Date.now() - started < 20_000);
  });
});
