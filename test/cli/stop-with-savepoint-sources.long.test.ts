// Every source kind stopped with `weir stop --savepoint` mid-stream and resumed with `weir run -s`,
// at p1 and p2, with and without --drain: each commits exactly what a run of the same job that
// never stopped commits, and the stopped job ends FINISHED. The CDC cases change rows of a private
// MariaDB all through the stop. A NEW SOURCE ADDS ITS CASES HERE (see test/fixtures/stop-and-resume.ts).
import { after, before, describe, test } from 'node:test';
import { boundedSourceCase, stopAndResume, type BoundedSourceKind } from '../fixtures/stop-and-resume.ts';
import { stopAndResumeCdc } from '../fixtures/cdc-stop-case.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weirEnv } from '../fixtures/weir-process.ts';

const KINDS: readonly BoundedSourceKind[] = ['datagen', 'collection', 'file'];
const SHAPES: ReadonlyArray<{ parallelism: number; drain: boolean }> = [
  { parallelism: 1, drain: false },
  { parallelism: 1, drain: true },
  { parallelism: 2, drain: false },
  { parallelism: 2, drain: true },
];
const describeShape = (s: { parallelism: number; drain: boolean }) => `at p${s.parallelism}${s.drain ? ', draining' : ''}`;

let root: string;
before(() => {
  root = makeTempDir('stop-sources-long');
});
after(() => removeDir(root));

describe('bounded sources', () => {
  for (const kind of KINDS) {
    for (const shape of SHAPES) {
      test(`${kind} ${describeShape(shape)}: stopped and resumed, the same output as a run that never stopped`, { timeout: 120_000 }, async (t) => {
        const r = await stopAndResume(boundedSourceCase(kind, { ...shape, root }), root, weirEnv(root));
        t.diagnostic(`${r.beforeStop} of ${r.total} lines committed before the stop`);
      });
    }
  }
});

describe('MySQL CDC, rows changing during the stop', () => {
  let server: MariaDbServer;
  before(async () => {
    server = await startMariaDb();
  });
  after(async () => {
    await server?.stop();
  });

  SHAPES.forEach((shape, i) => {
    test(`cdc ${describeShape(shape)}: FINISHED, then every change once, as a run that never stopped`, { timeout: 180_000 }, async (t) => {
      const r = await stopAndResumeCdc(server, root, weirEnv(root), { name: `cdc p${shape.parallelism}${shape.drain ? ' drain' : ''}`, ...shape, seed: 20 + i });
      t.diagnostic(`${r.beforeStop} of ${r.total} change lines committed before the stop`);
    });
  });
});
