// The pipeline database sink's exactly-once scenario (pipeline-sink-exactly-once-case.ts) on MariaDB.
// NOT YET IN test:long: some runs hang (seen in the helper's combined runs and in this stop's
// test:long, 10 min without progress): a failover while a writer's final pre-commit waits on row
// locks of a prepared XA transaction of the failed attempt. Run with `npm run soak` until fixed.
import { pipelineSinkExactlyOnce } from './pipeline-sink-exactly-once-case.ts';

pipelineSinkExactlyOnce('mysql');
