// Incremental checkpoints in running jobs on the lmdb backend (a cache of a few entries): exact
// output after 5 injected failures (in this thread and on worker TaskManagers), retention of shared
// files, a rescale from another job's checkpoint with NO_CLAIM
// (test/fixtures/incremental-checkpoint-jobs.ts). The heap backend's run is in npm test
// (incremental-checkpoints.test.ts).
import { describeIncrementalCheckpointJobs } from '../../fixtures/incremental-checkpoint-jobs.ts';

describeIncrementalCheckpointJobs(['lmdb']);
