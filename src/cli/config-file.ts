import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../config/config-error.ts';
import { ConfigFileError } from '../config/config-file-error.ts';
import { exampleValue } from '../config/configuration.ts';

/**
 * Reads a YAML or JSON config file (flink-conf.yaml style): flat keys such as
 * `execution.checkpointing.interval: 1 s`, or nested maps, which are flattened with dots. Its keys
 * and values are checked where the layers are merged (buildLayeredConfig), naming this file.
 */
export function readConfigFile(path: string): Record<string, unknown> {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigFileError(file, `cannot read it: ${(e as Error).message}`, e);
  }
  let parsed: unknown;
  const format = file.endsWith('.json') ? 'JSON' : 'YAML';
  try {
    parsed = format === 'JSON' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigFileError(file, `not valid ${format}: ${(e as Error).message}`, e);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigFileError(file, `it must hold a map of keys to values (such as 'execution.checkpointing.interval: 10 s'), not ${Array.isArray(parsed) ? 'a list' : `a ${typeof parsed}`}`);
  }
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

/**
 * `-D key=value` flags into a settings layer. An empty value is an error: later it would read as
 * "unset" for the keys that may be unset, and silently undo the job's own setting.
 */
export function parseDynamicProperties(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new ConfigError(flag, undefined, 'expected -D key=value');
    const key = flag.slice(0, eq).trim();
    out[key] = nonEmpty(`-D ${key}=`, key, flag.slice(eq + 1).trim());
  }
  return out;
}

/** A command-line value for a key, refused when empty; `flag` is how the user wrote it (`-p`, `-D key=`). */
export function nonEmpty(flag: string, key: string, value: string): string {
  if (value !== '') return value;
  const example = `${flag}${flag.endsWith('=') ? '' : ' '}${exampleValue(key)}`;
  throw new ConfigError(key, value, `'${flag}' has an empty value: write one (e.g. ${example}), or leave the flag out to keep the job's own setting or the default`);
}
