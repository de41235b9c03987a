export class ConfigError extends Error {
  readonly key: string;
  readonly value: unknown;
  constructor(key: string, value: unknown, problem: string) {
    super(`configuration key '${key}': ${problem}`);
    this.name = 'ConfigError';
    this.key = key;
    this.value = value;
  }
}
