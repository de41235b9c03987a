// Prints the README's configuration table from the option definitions (node --import tsx scripts/config-table.ts).
import { CONFIG_OPTIONS, DEFAULT_CONFIG, type ConfigKey } from '../src/config/configuration.ts';
import { formatDuration } from '../src/config/duration.ts';

const rows = (Object.keys(CONFIG_OPTIONS) as ConfigKey[]).map((key) => {
  const spec = CONFIG_OPTIONS[key];
  const value = DEFAULT_CONFIG[key];
  const shown =
    value === null ? '(none)' : spec.kind === 'duration' ? formatDuration(value as number) : value === Number.MAX_SAFE_INTEGER ? 'unlimited' : String(value);
  return `| \`${key}\` | ${shown} | ${spec.doc} |`;
});
console.log(['| Key | Default | Meaning |', '|---|---|---|', ...rows].join('\n'));
