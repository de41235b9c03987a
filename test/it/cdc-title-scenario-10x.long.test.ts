// The title scenario at ten times the checkpoint timeout, for both dialects, unthrottled and with
// the sink at a third of the source's speed (test/fixtures/cdc-title-suite.ts). The timeout is 2 s
// so that ten of them take a table of one or two gigabytes rather than several: what the scenario
// proves is that no read the snapshot makes outlasts the timeout, whatever the table's size. The
// workload writes 300 statements a second (every chunk's read still sees changes), so that what the
// slowed sink works through after the snapshot stays in proportion to the run.
// `npm run soak` runs the same at a 3 s timeout (tables of 1M-4.5M rows, about 45 minutes).
import { titleScenarioSuite } from '../fixtures/cdc-title-suite.ts';

titleScenarioSuite(
  'at 10x the checkpoint timeout',
  {
    rows: 300_000,
    growBy: 150_000,
    maxRows: 7_000_000,
    noteChars: 1000,
    checkpointTimeoutMs: 2000,
    checkpointIntervalMs: 500,
    minSelectRatio: 10,
    chunkSize: 4000,
    snapshotTimeoutMs: 900_000,
    checkHeapMb: 14_000,
    workloadRate: 300,
  },
  1_200_000,
);
