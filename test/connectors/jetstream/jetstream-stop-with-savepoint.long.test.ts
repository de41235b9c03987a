// JetStreamSource's stop-with-savepoint case (test/fixtures/stop-and-resume.ts): a bounded read of
// a stream of 12,000 words on 3 subjects at p2, stopped with `weir stop --savepoint` mid-stream
// and resumed with `weir run -s`, commits exactly what a run that never stopped commits.
import { after, before, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { ranToItsEnd, stopAndResume } from '../../fixtures/stop-and-resume.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { completedCheckpoints, weirEnv } from '../../fixtures/weir-process.ts';
import { startNatsCluster, type NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, createStream, publishWords } from '../../fixtures/jetstream-streams.ts';

let root: string;
let nats: NatsCluster;
let nc: NatsConnection;
before(async () => {
  root = makeTempDir('jetstream-stop');
  nats = await startNatsCluster({ nodes: 1 });
  nc = await connectTo(nats.servers);
});
after(async () => {
  await nc?.close().catch(() => {});
  await nats?.stop();
  removeDir(root);
});

test('JetStreamSource at p2: stopped with a savepoint and resumed, the same output as a run that never stopped', { timeout: 180_000 }, async (t) => {
  const subjects = ['sp.a', 'sp.b', 'sp.c'];
  await createStream(nc, 'sp', subjects);
  await publishWords(nc, subjects, 0, 12_000, 997);
  const r = await stopAndResume(
    {
      name: 'jetstream p2',
      parallelism: 2,
      drain: false,
      jobArgs: ['--source', 'jetstream', '--servers', nats.servers, '--stream', 'sp'],
      stoppedRunArgs: ['--rate', '600'],
      beforeStop: (run) => run.waitFor('two completed checkpoints', (p) => completedCheckpoints(p).length >= 2),
      complete: ranToItsEnd,
    },
    root,
    weirEnv(root),
  );
  t.diagnostic(`${r.beforeStop} of ${r.total} lines committed before the stop`);
});
