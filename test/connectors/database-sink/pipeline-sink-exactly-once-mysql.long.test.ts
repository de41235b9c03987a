// The pipeline database sink's exactly-once scenario (pipeline-sink-exactly-once-case.ts) on MariaDB.
// (It hung in some runs while a batch queued behind an aborted writer's running one could still
// begin an XA transaction nobody ended: pipeline-sink-abort.test.ts.)
import { pipelineSinkExactlyOnce } from './pipeline-sink-exactly-once-case.ts';

pipelineSinkExactlyOnce('mysql');
