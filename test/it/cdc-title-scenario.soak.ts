// `npm run soak`, outside the test suites (about 45 minutes on 2 shared cores: four tables of
// 1M-4.5M rows of 1 KB each): the title scenario at full size, for both dialects, at a 3 s
// checkpoint timeout (test/fixtures/cdc-title-suite.ts; the long suite runs it at 1 s).
import { titleScenarioSuite } from '../fixtures/cdc-title-suite.ts';

titleScenarioSuite(
  'at full size',
  {
    rows: 750_000,
    growBy: 250_000,
    maxRows: 4_500_000,
    noteChars: 1000,
    checkpointTimeoutMs: 3000,
    checkpointIntervalMs: 200,
    minSelectRatio: 10,
    chunkSize: 8000,
    snapshotTimeoutMs: 1_800_000,
    checkHeapMb: 12_000,
  },
  3_600_000,
);
