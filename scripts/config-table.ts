// Prints the README's configuration table from the option definitions (node --import tsx scripts/config-table.ts).
import { CONFIG_OPTIONS, DEFAULT_CONFIG, type ConfigKey } from '../src/config/configuration.ts';

/** A default as a person writes it in a config file: '1 s', '10 min', '1 h' (whole units). */
function durationDefault(ms: number): string {
  const units: Array<[number, string]> = [[3_600_000, 'h'], [60_000, 'min'], [1000, 's']];
  const unit = units.find(([size]) => ms >= size && ms % size === 0);
  return unit ? `${ms / unit[0]} ${unit[1]}` : `${ms} ms`;
}

const rows = (Object.keys(CONFIG_OPTIONS) as ConfigKey[]).map((key) => {
  const spec = CONFIG_OPTIONS[key];
  const value = DEFAULT_CONFIG[key];
  const shown =
    value === null ? '(none)' : spec.kind === 'duration' ? durationDefault(value as number) : value === Number.MAX_SAFE_INTEGER ? 'unlimited' : String(value);
  return `| \`${key}\` | ${shown} | ${spec.doc} |`;
});
console.log(['| Key | Default | Meaning |', '|---|---|---|', ...rows].join('\n'));
