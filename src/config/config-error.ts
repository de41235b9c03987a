import { describeConfigSource, type ConfigSource } from './config-source.ts';

/** A bad configuration key or value: names the key, and the layer it came from when that is known. */
export class ConfigError extends Error {
  readonly key: string;
  readonly value: unknown;
  readonly problem: string;
  readonly source: ConfigSource | undefined;
  constructor(key: string, value: unknown, problem: string, options: { readonly source?: ConfigSource; readonly cause?: unknown } = {}) {
    const where = options.source ? `${describeConfigSource(options.source)}: ` : '';
    super(`${where}configuration key '${key}': ${problem}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
    this.key = key;
    this.value = value;
    this.problem = problem;
    this.source = options.source;
  }

  /** The same error, saying which layer the key came from. */
  from(source: ConfigSource | undefined): ConfigError {
    return source && !this.source ? new ConfigError(this.key, this.value, this.problem, { source, cause: this }) : this;
  }
}
