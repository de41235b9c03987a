import { CONFIG_OPTIONS } from '../config/configuration.ts';
import type { ConfigOption } from '../config/config-option.ts';
import { PIPELINE_KEYS, ROUTE_KEYS, SINK_KEYS, SINK_TYPES, SOURCE_KEYS, SOURCE_TYPES, TRANSFORM_KEYS, type KeySpec } from './pipeline-keys.ts';

type Schema = Record<string, unknown>;

/**
 * The JSON Schema (draft-07) of a pipeline file, made from the same key declarations as the
 * validator: editors complete keys and check kinds with it. What only the validator can see (a bad
 * regular expression, a transform that never applies, an ambiguous primary key, a time zone) is
 * not in it. Written to schemas/pipeline.schema.json by scripts/pipeline-schema.ts.
 */
export function pipelineJsonSchema(): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://weir-stream.dev/schemas/pipeline.schema.json',
    title: 'weir pipeline (Flink CDC 3 style)',
    description: 'A change data capture pipeline: a source database, a sink, routes, transforms and pipeline settings. Check it with `weir pipeline --check FILE`.',
    type: 'object',
    additionalProperties: false,
    required: ['source', 'sink'],
    properties: {
      source: typedBlock('The database the pipeline reads.', SOURCE_TYPES, SOURCE_KEYS),
      sink: typedBlock('Where the changes go.', SINK_TYPES, SINK_KEYS),
      route: { description: 'Rules sending source tables to sink tables.', type: ['array', 'null'], items: block(ROUTE_KEYS) },
      transform: { description: 'Rules projecting and filtering rows; the first matching rule applies.', type: ['array', 'null'], items: block(TRANSFORM_KEYS) },
      pipeline: pipelineBlock(),
    },
  };
}

function typedBlock(description: string, types: readonly string[], keys: Readonly<Record<string, readonly KeySpec[]>>): Schema {
  return {
    description,
    type: 'object',
    required: ['type'],
    properties: { type: { enum: [...types] } },
    allOf: types.map((t) => ({ if: { properties: { type: { const: t } }, required: ['type'] }, then: block(keys[t]!) })),
  };
}

function block(keys: readonly KeySpec[]): Schema {
  const required = keys.filter((k) => k.required).map((k) => k.key);
  return {
    type: 'object',
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties: Object.fromEntries(keys.map((k) => [k.key, { description: k.doc, ...kindSchema(k) }])),
  };
}

function kindSchema(k: KeySpec): Schema {
  const range = { ...(k.min === undefined ? {} : { minimum: k.min }), ...(k.max === undefined ? {} : { maximum: k.max }) };
  switch (k.kind) {
    case 'string':
      return { type: ['string', 'number', 'boolean'], ...(k.pattern ? { pattern: k.pattern.regex } : {}) };
    case 'int':
      return { anyOf: [{ type: 'integer', ...range }, { type: 'string', pattern: '^\\s*-?\\d+\\s*$' }] };
    case 'number':
      return { anyOf: [{ type: 'number', ...range }, { type: 'string', pattern: '^\\s*-?\\d+(\\.\\d+)?\\s*$' }] };
    case 'boolean':
      return { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }] };
    case 'duration':
      return { anyOf: [{ type: 'number', minimum: 0 }, { type: 'string', pattern: DURATION }] };
    case 'string-list':
      return { anyOf: [{ type: 'string', pattern: '[^\\s,]' }, { type: 'array', items: { type: ['string', 'number', 'boolean'] } }] };
    default:
      return { enum: [...k.kind.oneOf] };
  }
}

const DURATION = '^\\s*\\d+(\\.\\d+)?\\s*[a-zA-Z]*\\s*$';

/** Flink CDC's pipeline keys, and every weir configuration key (flat, or nested as in a config file). */
function pipelineBlock(): Schema {
  const weir = Object.values(CONFIG_OPTIONS as Record<string, ConfigOption>);
  const own = new Set(PIPELINE_KEYS.map((k) => k.key));
  const nestedRoots = [...new Set(weir.map((o) => o.key.split('.')[0]!))].filter((r) => !own.has(r) && !weir.some((o) => o.key === r));
  return {
    description: "The pipeline's name, parallelism, schema change behaviour and route mode, and weir's own configuration keys (such as execution.checkpointing.interval).",
    type: ['object', 'null'],
    additionalProperties: false,
    properties: {
      ...Object.fromEntries(PIPELINE_KEYS.map((k) => [k.key, { description: k.doc, ...kindSchema(k) }])),
      ...Object.fromEntries(weir.filter((o) => !own.has(o.key)).map((o) => [o.key, { description: o.doc, ...configSchema(o) }])),
      ...Object.fromEntries(nestedRoots.map((r) => [r, { description: `weir configuration keys under ${r}., nested`, type: 'object' }])),
    },
  };
}

function configSchema(o: ConfigOption): Schema {
  const range = { ...(o.min === undefined ? {} : { minimum: o.min }), ...(o.max === undefined ? {} : { maximum: o.max }) };
  const kind = o.kind;
  let schema: Schema;
  if (typeof kind === 'object') schema = { enum: [...new Set([...kind.oneOf, ...kind.oneOf.map((v) => v.toUpperCase())])] };
  else if (kind === 'boolean') schema = { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }] };
  else if (kind === 'string') schema = { type: ['string', 'number', 'boolean'] };
  else if (kind === 'duration') schema = { anyOf: [{ type: 'number', ...range }, { type: 'string', pattern: DURATION }] };
  else if (kind === 'memory') schema = { anyOf: [{ type: 'integer', ...range }, { type: 'string', pattern: '^\\s*\\d+\\s*[a-zA-Z]*\\s*$' }] };
  else schema = { anyOf: [{ type: kind === 'int' ? 'integer' : 'number', ...range }, { type: 'string', pattern: kind === 'int' ? '^\\s*-?\\d+\\s*$' : '^\\s*-?\\d+(\\.\\d+)?\\s*$' }] };
  return o.nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
}
