import { isMap, isScalar, type Node, type YAMLMap } from 'yaml';
import { ConfigError } from '../config/config-error.ts';
import { CONFIG_OPTIONS, isConfigKey, parseConfigValue } from '../config/configuration.ts';
import { nearestKey, type BlockReader } from './block-reader.ts';
import { BadValueProblem, ConflictingKeysProblem, UnknownKeyProblem, WrongTypeProblem } from './pipeline-problem.ts';
import { PIPELINE_KEYS, type SchemaChangeBehavior } from './pipeline-keys.ts';
import type { PipelineSettings } from './pipeline-definition.ts';
import type { RouteMode } from './table-router.ts';
import { isValidTimeZone } from './time-zone.ts';
import { describeNode, type YamlSource } from './yaml-source.ts';

/** Flink CDC's pipeline keys that are weir configuration keys under another name. */
const SAME_AS: Readonly<Record<string, string>> = { name: 'pipeline.name', parallelism: 'parallelism.default' };

/**
 * Reads the `pipeline` block: Flink CDC's own keys, and any weir configuration key by its name
 * (`execution.checkpointing.interval: 10 s`, or nested as in a config file), checked by weir's
 * declaration of the key.
 */
export function readPipelineBlock(src: YamlSource, reader: BlockReader, map: YAMLMap | undefined): PipelineSettings {
  const config: Record<string, unknown> = {};
  const configNodes = new Map<string, Node>();
  const takeConfig = (key: string, value: Node, keyNode: Node): 'taken' | undefined => {
    if (isMap(value)) {
      const leaves = flattenLeaves(reader, key, value);
      if (!leaves.some((l) => isConfigKey(l.key))) return undefined;
      for (const l of leaves) {
        if (!isConfigKey(l.key)) reader.report(new UnknownKeyProblem(src.placeOf(l.keyNode, `pipeline.${l.key}`), l.key, 'pipeline', nearestKey(l.key, Object.keys(CONFIG_OPTIONS))));
        else takeConfig(l.key, l.value, l.keyNode);
      }
      return 'taken';
    }
    if (!isConfigKey(key)) return undefined;
    const path = `pipeline.${key}`;
    if (!isScalar(value)) {
      reader.report(new WrongTypeProblem(src.placeOf(value, path), 'a value', describeNode(value)));
      return 'taken';
    }
    try {
      parseConfigValue(key, value.value);
      config[key] = value.value;
      configNodes.set(key, keyNode);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      reader.report(new BadValueProblem(src.placeOf(value, path), e.problem, e));
    }
    return 'taken';
  };
  const values = map ? reader.read(map, 'pipeline', 'pipeline', PIPELINE_KEYS, takeConfig, Object.keys(CONFIG_OPTIONS)) : new Map();
  for (const [own, weirKey] of Object.entries(SAME_AS)) {
    const mine = values.get(own);
    if (!mine) continue;
    if (weirKey in config) {
      reader.report(new ConflictingKeysProblem(src.placeOf(configNodes.get(weirKey), `pipeline.${weirKey}`), weirKey, own));
      continue;
    }
    try {
      config[weirKey] = parseConfigValue(weirKey as 'pipeline.name' | 'parallelism.default', mine.value);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      reader.report(new BadValueProblem(src.placeOf(mine.node, `pipeline.${own}`), `${e.problem} (it sets ${weirKey})`, e));
    }
  }
  const zone = values.get('local-time-zone');
  if (zone && !isValidTimeZone(String(zone.value))) reader.report(new BadValueProblem(src.placeOf(zone.node, 'pipeline.local-time-zone'), `'${zone.value}' is not a time zone (an IANA name such as UTC or Europe/Paris)`));
  return {
    name: (values.get('name')?.value ?? config['pipeline.name']) as string | undefined,
    parallelism: (values.get('parallelism')?.value ?? (config['parallelism.default'] === undefined ? undefined : Number(config['parallelism.default']))) as number | undefined,
    localTimeZone: zone?.value as string | undefined,
    schemaChangeBehavior: (values.get('schema.change.behavior')?.value ?? 'lenient') as SchemaChangeBehavior,
    routeMode: String(values.get('route-mode')?.value ?? 'ALL_MATCH').toUpperCase() as RouteMode,
    config,
  };
}

/** The keys of a nested map as dotted keys (`execution: {checkpointing: {interval: 1 s}}`), as a config file's. */
function flattenLeaves(reader: BlockReader, prefix: string, map: YAMLMap): { key: string; keyNode: Node; value: Node }[] {
  return reader.entries(map).flatMap((e) => {
    const key = `${prefix}.${e.key}`;
    if (e.value && isMap(e.value)) return flattenLeaves(reader, key, e.value);
    return [{ key, keyNode: e.keyNode, value: e.value ?? e.keyNode }];
  });
}
