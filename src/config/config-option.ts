/**
 * One configuration key, declared once (as Flink's ConfigOption): its type, bounds, default,
 * meaning, single-key check, secrecy and Flink's older names for it. The typed WeirConfig, the
 * defaults, `weir config`, the README table and the parsing of every layer derive from these.
 */

/** How a key's value is written and parsed. */
export type OptionKind = 'int' | 'duration' | 'memory' | 'number' | 'boolean' | 'string' | { readonly oneOf: readonly string[] };

/**
 * A rule on one key's value beyond its kind and bounds: the problem, or undefined when the value is
 * good. Method-typed so that every declaration fits the table of them all (ConfigOption<string, unknown>).
 */
export type ValueCheck<T> = { check(value: T): string | undefined }['check'];

/** Node's timers wait at most this long: a longer delay fires at once (with a TimeoutOverflowWarning). */
export const TIMER_MAX_MS = 2 ** 31 - 1;

interface OptionFacts<T> {
  readonly kind: OptionKind;
  readonly min?: number;
  readonly max?: number;
  readonly check?: ValueCheck<NonNullable<T>>;
}

export class ConfigOption<K extends string = string, T = unknown> {
  readonly key: K;
  readonly kind: OptionKind;
  /** A null value means "not set"; only keys without a default may hold it. */
  readonly nullable: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly defaultValue: T;
  readonly doc: string;
  /** Flink's former names of the key: not accepted, but an unknown-key error points from them to this key. */
  readonly deprecatedKeys: readonly string[];
  /** No view of the configuration shows the value. */
  readonly isSecret: boolean;
  readonly #check: ValueCheck<NonNullable<T>> | undefined;

  constructor(key: K, facts: OptionFacts<T>, defaultValue: T, more: { doc?: string; deprecatedKeys?: readonly string[]; isSecret?: boolean } = {}) {
    this.key = key;
    this.kind = facts.kind;
    this.nullable = defaultValue === null;
    if (facts.min !== undefined) this.min = facts.min;
    if (facts.max !== undefined) this.max = facts.max;
    this.#check = facts.check;
    this.defaultValue = defaultValue;
    this.doc = more.doc ?? '';
    this.deprecatedKeys = more.deprecatedKeys ?? [];
    this.isSecret = more.isSecret ?? false;
  }

  withDescription(doc: string): ConfigOption<K, T> {
    return new ConfigOption(this.key, this.#facts(), this.defaultValue, { ...this.#more(), doc });
  }

  withDeprecatedKeys(...deprecatedKeys: string[]): ConfigOption<K, T> {
    return new ConfigOption(this.key, this.#facts(), this.defaultValue, { ...this.#more(), deprecatedKeys });
  }

  secret(): ConfigOption<K, T> {
    return new ConfigOption(this.key, this.#facts(), this.defaultValue, { ...this.#more(), isSecret: true });
  }

  /** The problem with a set value (beyond kind and bounds), or undefined. */
  problemWith(value: T): string | undefined {
    return value === null || value === undefined ? undefined : this.#check?.(value as NonNullable<T>);
  }

  #facts(): OptionFacts<T> {
    return { kind: this.kind, ...(this.min === undefined ? {} : { min: this.min }), ...(this.max === undefined ? {} : { max: this.max }), ...(this.#check ? { check: this.#check } : {}) };
  }

  #more(): { doc: string; deprecatedKeys: readonly string[]; isSecret: boolean } {
    return { doc: this.doc, deprecatedKeys: this.deprecatedKeys, isSecret: this.isSecret };
  }
}

/** The value type a declaration gives its key. */
export type OptionValue<O> = O extends ConfigOption<string, infer T> ? T : never;

/** A key with its kind chosen: bounds and checks, then the default. */
export class TypedOptionBuilder<K extends string, T> {
  readonly #key: K;
  #facts: OptionFacts<T>;

  constructor(key: K, kind: OptionKind) {
    this.#key = key;
    this.#facts = { kind };
  }

  atLeast(min: number): this {
    this.#facts = { ...this.#facts, min };
    return this;
  }

  atMost(max: number): this {
    this.#facts = { ...this.#facts, max };
    return this;
  }

  between(min: number, max: number): this {
    return this.atLeast(min).atMost(max);
  }

  /** A rule on the value alone; checked on the merged configuration, so a later layer may correct an earlier one. */
  satisfies(check: ValueCheck<T>): this {
    this.#facts = { ...this.#facts, check: check as ValueCheck<NonNullable<T>> };
    return this;
  }

  defaultValue(value: T): ConfigOption<K, T> {
    return new ConfigOption<K, T>(this.#key, this.#facts, value);
  }

  /** No default: the key is unset (null) until a layer sets it. */
  noDefaultValue(): ConfigOption<K, T | null> {
    return new ConfigOption<K, T | null>(this.#key, this.#facts as OptionFacts<T | null>, null);
  }
}

/** A key whose kind is still to be chosen. */
export class OptionBuilder<K extends string> {
  readonly #key: K;

  constructor(key: K) {
    this.#key = key;
  }

  intType(): TypedOptionBuilder<K, number> {
    return new TypedOptionBuilder(this.#key, 'int');
  }

  numberType(): TypedOptionBuilder<K, number> {
    return new TypedOptionBuilder(this.#key, 'number');
  }

  /** Milliseconds, written as '200', '10 s' or '1 min'. */
  durationType(): TypedOptionBuilder<K, number> {
    return new TypedOptionBuilder(this.#key, 'duration');
  }

  /** Bytes, written as '32kb', '1 mb' or '4096'. */
  memoryType(): TypedOptionBuilder<K, number> {
    return new TypedOptionBuilder(this.#key, 'memory');
  }

  booleanType(): TypedOptionBuilder<K, boolean> {
    return new TypedOptionBuilder(this.#key, 'boolean');
  }

  stringType(): TypedOptionBuilder<K, string> {
    return new TypedOptionBuilder(this.#key, 'string');
  }

  /** One of the given words; the first is the example an error shows. */
  enumType<const V extends readonly string[]>(values: V): TypedOptionBuilder<K, V[number]> {
    return new TypedOptionBuilder(this.#key, { oneOf: values });
  }
}

/** Starts the declaration of a key: `option('heartbeat.interval').durationType().defaultValue(10_000).withDescription('…')`. */
export function option<const K extends string>(key: K): OptionBuilder<K> {
  return new OptionBuilder(key);
}
