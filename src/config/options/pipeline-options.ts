import { option, TIMER_MAX_MS } from '../config-option.ts';
import { UPPER_BOUND_MAX_PARALLELISM } from '../parallelism-bounds.ts';

/** Parallelism, key groups, the job name and watermarks. */
export const PIPELINE_OPTIONS = [
  option('parallelism.default').intType().between(1, UPPER_BOUND_MAX_PARALLELISM).defaultValue(1).withDescription('Parallelism of operators that set none.'),
  option('pipeline.max-parallelism').intType().between(1, UPPER_BOUND_MAX_PARALLELISM).defaultValue(128)
    .withDescription('Number of key groups: the upper bound for rescaling keyed state. Fixed once state exists.'),
  option('pipeline.name').stringType().noDefaultValue()
    .withDescription("The job's name in the REST API, the dashboard and `weir list` (env.setJobName, `weir run --name`). Unset: the first source's name."),
  option('pipeline.auto-watermark-interval').durationType().atMost(TIMER_MAX_MS).defaultValue(200)
    .withDescription(
      'How often sources (and assignTimestampsAndWatermarks) ask their watermark generators for a watermark; 0 turns periodic watermarks off (punctuated ones still flow).',
    ),
] as const;
