// The pipeline database sink's exactly-once scenario (pipeline-sink-exactly-once-case.ts) on PostgreSQL.
import { pipelineSinkExactlyOnce } from './pipeline-sink-exactly-once-case.ts';

pipelineSinkExactlyOnce('postgres');
