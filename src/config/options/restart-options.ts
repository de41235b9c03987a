import { option, TIMER_MAX_MS } from '../config-option.ts';

export const RESTART_STRATEGY_TYPES = ['none', 'fixed-delay', 'failure-rate', 'exponential-delay'] as const;
export type RestartStrategyType = (typeof RESTART_STRATEGY_TYPES)[number];

/** Whether and when a failed job restarts. */
export const RESTART_OPTIONS = [
  option('restart-strategy.type').enumType(RESTART_STRATEGY_TYPES).noDefaultValue()
    .withDescription(
      'none, fixed-delay, failure-rate or exponential-delay. Unset: exponential-delay when checkpointing is on, none when it is off (Flink 1.19+).',
    )
    .withDeprecatedKeys('restart-strategy'),
  option('restart-strategy.fixed-delay.attempts').intType().atLeast(0).defaultValue(1).withDescription('Restarts before the job fails.'),
  option('restart-strategy.fixed-delay.delay').durationType().atMost(TIMER_MAX_MS).defaultValue(1000).withDescription('Wait before each restart.'),
  option('restart-strategy.failure-rate.max-failures-per-interval').intType().atLeast(1).defaultValue(1)
    .withDescription('Failures allowed within one interval before the job fails.'),
  option('restart-strategy.failure-rate.failure-rate-interval').durationType().atLeast(1).defaultValue(60_000).withDescription('The measuring interval.'),
  option('restart-strategy.failure-rate.delay').durationType().atMost(TIMER_MAX_MS).defaultValue(1000).withDescription('Wait before each restart.'),
  option('restart-strategy.exponential-delay.initial-backoff').durationType().atMost(TIMER_MAX_MS).defaultValue(1000).withDescription('First restart delay.'),
  option('restart-strategy.exponential-delay.max-backoff').durationType().atMost(TIMER_MAX_MS).defaultValue(60_000).withDescription('Largest restart delay.'),
  option('restart-strategy.exponential-delay.backoff-multiplier').numberType().atLeast(1).defaultValue(1.5).withDescription('Delay growth per restart.'),
  option('restart-strategy.exponential-delay.reset-backoff-threshold').durationType().defaultValue(3_600_000)
    .withDescription('Running this long without failure resets the delay to the initial backoff.'),
  option('restart-strategy.exponential-delay.jitter-factor').numberType().between(0, 1).defaultValue(0.1)
    .withDescription('Random spread of each delay (0..1).'),
  option('restart-strategy.exponential-delay.attempts-before-reset-backoff').intType().atLeast(1).defaultValue(Number.MAX_SAFE_INTEGER)
    .withDescription('Restarts allowed before the backoff resets.'),
] as const;
