import { ConfigError } from './config-error.ts';
import { ConfigOption, type OptionKind, type OptionValue } from './config-option.ts';
import type { ConfigSource } from './config-source.ts';
import { checkCrossKeyRules } from './cross-key-rules.ts';
import { parseDuration } from './duration.ts';
import { suggestKey } from './key-suggestion.ts';
import { parseMemorySize } from './memory-size.ts';
import { ALL_OPTIONS } from './options/all-options.ts';

type DeclaredOption = (typeof ALL_OPTIONS)[number];

/**
 * All of weir's settings in one typed object, keyed like Flink's configuration where a Flink key
 * means the same thing; derived from the declarations under options/, so type and table agree.
 * Durations are milliseconds. `null` means "not set" where Flink has no default.
 */
export type WeirConfig = { [O in DeclaredOption as O['key']]: OptionValue<O> };

export type ConfigKey = keyof WeirConfig;
export type { ConsistencyMode } from './consistency-mode.ts';
export type { RestartStrategyType } from './options/restart-options.ts';

/** The documented options by key; the README's configuration table is this table. */
export const CONFIG_OPTIONS: { readonly [K in ConfigKey]: ConfigOption<K, WeirConfig[K]> } = Object.freeze(indexByKey(ALL_OPTIONS));

/** Keys whose values are secrets: no view of the configuration shows them. */
export const SECRET_CONFIG_KEYS: ReadonlySet<ConfigKey> = new Set(ALL_OPTIONS.filter((o) => o.isSecret).map((o) => o.key));

export const DEFAULT_CONFIG: Readonly<WeirConfig> = Object.freeze(Object.fromEntries(ALL_OPTIONS.map((o) => [o.key, o.defaultValue])) as WeirConfig);

/** A key or one of Flink's former names declared twice would make the table ambiguous: refused when weir loads. */
function indexByKey(options: readonly ConfigOption[]): { readonly [K in ConfigKey]: ConfigOption<K, WeirConfig[K]> } {
  const byKey: Record<string, ConfigOption> = {};
  const names = new Set<string>();
  for (const o of options) {
    for (const name of [o.key, ...o.deprecatedKeys]) {
      if (names.has(name)) throw new Error(`configuration key '${name}' is declared twice`);
      names.add(name);
    }
    if (!o.doc) throw new Error(`configuration key '${o.key}' has no description`);
    byKey[o.key] = o;
  }
  return byKey as { readonly [K in ConfigKey]: ConfigOption<K, WeirConfig[K]> };
}

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_OPTIONS, key);
}

/** A value of the key's kind to show in an error ("write it like this"). */
export function exampleValue(key: string): string {
  if (!isConfigKey(key)) return 'VALUE';
  const kind = CONFIG_OPTIONS[key].kind;
  if (typeof kind === 'object') return kind.oneOf[0]!;
  const examples: Record<Exclude<OptionKind, object>, string> = { int: '4', duration: "'10 s'", memory: '32kb', number: '0.5', boolean: 'true', string: 'VALUE' };
  return examples[kind];
}

/** Checks and converts one value (from a -D flag, a config file or the API); throws ConfigError naming the key. */
export function parseConfigValue<K extends ConfigKey>(key: K, raw: unknown): WeirConfig[K] {
  const spec: ConfigOption = CONFIG_OPTIONS[key];
  if (raw === null || raw === undefined || raw === '') {
    if (spec.nullable) return null as WeirConfig[K];
    throw new ConfigError(key, raw, 'a value is required');
  }
  const kind = spec.kind;
  let value: unknown;
  if (typeof kind === 'object') {
    const text = String(raw);
    const match = kind.oneOf.find((v) => v.toLowerCase() === text.toLowerCase().replace(/_/g, '-') || v === text);
    if (!match) throw new ConfigError(key, raw, `expected one of ${kind.oneOf.join(', ')}, got '${text}'`);
    value = match;
  } else if (kind === 'boolean') {
    if (raw === true || raw === 'true') value = true;
    else if (raw === false || raw === 'false') value = false;
    else throw new ConfigError(key, raw, `expected true or false, got '${String(raw)}'`);
  } else if (kind === 'string') {
    value = String(raw);
  } else {
    const n = kind === 'duration' ? parseDuration(raw as string | number) : kind === 'memory' ? parseMemorySize(raw as string | number) : Number(raw);
    if (n === undefined || !Number.isFinite(n)) {
      const expected = kind === 'duration' ? "a duration such as '200', '10 s' or '1 min'" : kind === 'memory' ? "a memory size such as '32kb', '1 mb' or '4096'" : 'a number';
      throw new ConfigError(key, raw, `expected ${expected}, got '${String(raw)}'`);
    }
    if (kind === 'int' && !Number.isInteger(n)) throw new ConfigError(key, raw, `expected a whole number, got '${String(raw)}'`);
    const unit = kind === 'duration' ? ' ms' : kind === 'memory' ? ' bytes' : '';
    if (spec.min !== undefined && n < spec.min) throw new ConfigError(key, raw, `must be at least ${spec.min}${unit}, got ${n}${unit}`);
    if (spec.max !== undefined && n > spec.max) throw new ConfigError(key, raw, `must be at most ${spec.max}${unit}, got ${n}${unit}`);
    value = n;
  }
  return value as WeirConfig[K];
}

/** One layer of settings, and where it came from (named in errors about its keys). */
export interface ConfigLayer {
  readonly source?: ConfigSource;
  readonly settings?: Readonly<Record<string, unknown>> | undefined;
}

/** Merges layers of settings over the defaults, later layers winning; every key and value is checked. */
export function buildConfig(...layers: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>): WeirConfig {
  return buildLayeredConfig(layers.map((settings) => ({ settings })));
}

/** buildConfig for layers that know where they came from: an error names the layer of the bad key. */
export function buildLayeredConfig(layers: readonly ConfigLayer[]): WeirConfig {
  const config: WeirConfig = { ...DEFAULT_CONFIG };
  const origins = new Map<ConfigKey, ConfigSource | undefined>();
  for (const { source, settings } of layers) {
    for (const [key, raw] of Object.entries(settings ?? {})) {
      if (!isConfigKey(key)) throw new ConfigError(key, raw, `unknown key${suggestKey(key, ALL_OPTIONS)}`, source ? { source } : {});
      try {
        (config as unknown as Record<string, unknown>)[key] = parseConfigValue(key, raw);
      } catch (e) {
        throw e instanceof ConfigError ? e.from(source) : e;
      }
      origins.set(key, source);
    }
  }
  try {
    checkValues(config);
    checkCrossKeyRules(config);
  } catch (e) {
    // A rule between two keys: the layer that set the key the error names.
    throw e instanceof ConfigError && isConfigKey(e.key) ? e.from(origins.get(e.key)) : e;
  }
  return config;
}

/** Each key's own rule (declared with it), on the merged value: a later layer may correct an earlier one. */
function checkValues(c: WeirConfig): void {
  for (const o of ALL_OPTIONS as readonly ConfigOption[]) {
    const value = (c as unknown as Record<string, unknown>)[o.key];
    const problem = o.problemWith(value);
    if (problem !== undefined) throw new ConfigError(o.key, value, problem);
  }
}
