// Incremental checkpoints in running jobs on the heap backend: exact output after 5 injected
// failures (in this thread and on worker TaskManagers), retention of shared files, a rescale from
// another job's checkpoint with NO_CLAIM (test/fixtures/incremental-checkpoint-jobs.ts). The same
// on the lmdb backend is in incremental-checkpoints.long.test.ts (test:long).
import { describeIncrementalCheckpointJobs } from '../../fixtures/incremental-checkpoint-jobs.ts';

describeIncrementalCheckpointJobs(['heap']);
