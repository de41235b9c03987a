import { CONFIG_OPTIONS, DEFAULT_CONFIG, type ConfigKey } from './configuration.ts';
import { formatMemorySize } from './memory-size.ts';

/** A default as a person writes it in a config file: '1 s', '10 min', '1 h' (whole units). */
function durationDefault(ms: number): string {
  const units: Array<[number, string]> = [[3_600_000, 'h'], [60_000, 'min'], [1000, 's']];
  const unit = units.find(([size]) => ms >= size && ms % size === 0);
  return unit ? `${ms / unit[0]} ${unit[1]}` : `${ms} ms`;
}

export interface ConfigRow {
  readonly key: ConfigKey;
  readonly default: string;
  readonly doc: string;
}

/** Every configuration key with its default as a person writes it and what it means. */
export function configRows(): ConfigRow[] {
  return (Object.keys(CONFIG_OPTIONS) as ConfigKey[]).map((key) => {
    const spec = CONFIG_OPTIONS[key];
    const value = DEFAULT_CONFIG[key];
    const shown = value === null ? '(none)' : spec.kind === 'duration' ? durationDefault(value as number) : spec.kind === 'memory' ? formatMemorySize(value as number) : value === Number.MAX_SAFE_INTEGER ? 'unlimited' : String(value);
    return { key, default: shown, doc: spec.doc };
  });
}

/** The README's configuration table (Markdown). */
export function configTable(): string {
  return ['| Key | Default | Meaning |', '|---|---|---|', ...configRows().map((r) => `| \`${r.key}\` | ${r.default} | ${r.doc} |`)].join('\n');
}
