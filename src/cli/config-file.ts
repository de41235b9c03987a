import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../config/config-error.ts';

/**
 * Reads a YAML or JSON config file (flink-conf.yaml style): flat keys such as
 * `execution.checkpointing.interval: 1 s`, or nested maps, which are flattened with dots.
 */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(path, undefined, `cannot read config file: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(path, undefined, `not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(e as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(path, undefined, 'a config file must hold a map of keys to values');
  return flatten(parsed as Record<string, unknown>);
}

function flatten(obj: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Record<string, unknown>, key));
    else out[key] = v;
  }
  return out;
}

/** `-D key=value` flags into a settings layer. */
export function parseDynamicProperties(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new ConfigError(flag, undefined, 'expected -D key=value');
    out[flag.slice(0, eq).trim()] = flag.slice(eq + 1).trim();
  }
  return out;
}
