import type { WeirConfig } from '../config/configuration.ts';

export type RestartDecision = { readonly restart: true; readonly delayMs: number } | { readonly restart: false; readonly reason: string };

/** Decides, at each failure, whether and when the job restarts (Flink's restart strategies). */
export interface RestartStrategy {
  readonly description: string;
  onFailure(now: number): RestartDecision;
}

export function createRestartStrategy(config: WeirConfig, random: () => number = Math.random): RestartStrategy {
  const checkpointing = config['execution.checkpointing.interval'] !== null && config['execution.checkpointing.mode'] !== 'at-most-once';
  const type = config['restart-strategy.type'] ?? (checkpointing ? 'exponential-delay' : 'none');
  switch (type) {
    case 'none':
      return { description: 'none', onFailure: () => ({ restart: false, reason: 'restart strategy is none' }) };
    case 'fixed-delay':
      return fixedDelay(config['restart-strategy.fixed-delay.attempts'], config['restart-strategy.fixed-delay.delay']);
    case 'failure-rate':
      return failureRate(
        config['restart-strategy.failure-rate.max-failures-per-interval'],
        config['restart-strategy.failure-rate.failure-rate-interval'],
        config['restart-strategy.failure-rate.delay'],
      );
    case 'exponential-delay':
      return exponentialDelay(
        {
          initial: config['restart-strategy.exponential-delay.initial-backoff'],
          max: config['restart-strategy.exponential-delay.max-backoff'],
          multiplier: config['restart-strategy.exponential-delay.backoff-multiplier'],
          resetThreshold: config['restart-strategy.exponential-delay.reset-backoff-threshold'],
          jitter: config['restart-strategy.exponential-delay.jitter-factor'],
          attemptsBeforeReset: config['restart-strategy.exponential-delay.attempts-before-reset-backoff'],
        },
        random,
      );
  }
}

export function fixedDelay(attempts: number, delayMs: number): RestartStrategy {
  let used = 0;
  return {
    description: `fixed-delay (${attempts} attempts, ${delayMs} ms)`,
    onFailure: () =>
      used++ < attempts ? { restart: true, delayMs } : { restart: false, reason: `fixed-delay restart strategy used all ${attempts} attempts` },
  };
}

export function failureRate(maxFailures: number, intervalMs: number, delayMs: number): RestartStrategy {
  const failures: number[] = [];
  return {
    description: `failure-rate (${maxFailures} per ${intervalMs} ms, ${delayMs} ms delay)`,
    onFailure(now) {
      failures.push(now);
      while (failures.length > 0 && failures[0]! <= now - intervalMs) failures.shift();
      return failures.length <= maxFailures
        ? { restart: true, delayMs }
        : { restart: false, reason: `failure-rate restart strategy: ${failures.length} failures within ${intervalMs} ms (at most ${maxFailures})` };
    },
  };
}

export interface ExponentialDelayOptions {
  readonly initial: number;
  readonly max: number;
  readonly multiplier: number;
  readonly resetThreshold: number;
  readonly jitter: number;
  readonly attemptsBeforeReset: number;
}

export function exponentialDelay(o: ExponentialDelayOptions, random: () => number = Math.random): RestartStrategy {
  let backoff = o.initial;
  let last = -Infinity;
  let attempts = 0;
  return {
    description: `exponential-delay (${o.initial} ms .. ${o.max} ms, x${o.multiplier})`,
    onFailure(now) {
      // A long enough quiet period means the previous failures were not a streak.
      if (now - last >= o.resetThreshold) {
        backoff = o.initial;
        attempts = 0;
      } else if (attempts > 0) {
        backoff = Math.min(backoff * o.multiplier, o.max);
      }
      last = now;
      attempts++;
      if (attempts > o.attemptsBeforeReset) {
        return { restart: false, reason: `exponential-delay restart strategy used all ${o.attemptsBeforeReset} attempts before a reset` };
      }
      const spread = backoff * o.jitter;
      const delayMs = Math.max(0, Math.round(backoff + (random() * 2 - 1) * spread));
      return { restart: true, delayMs: Math.min(delayMs, o.max) };
    },
  };
}
