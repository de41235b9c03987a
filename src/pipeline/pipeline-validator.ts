import { readFileSync } from 'node:fs';
import { isScalar, type Node } from 'yaml';
import { BlockReader } from './block-reader.ts';
import { AmbiguousPrimaryKeyProblem, MissingKeyProblem, PipelineCheckError, TransformNeverAppliesProblem, UnknownKeyProblem, type PipelineProblem } from './pipeline-problem.ts';
import { TOP_LEVEL_BLOCKS } from './pipeline-keys.ts';
import type { PipelineDefinition, RouteDefinition, SourceDefinition, TransformDefinition } from './pipeline-definition.ts';
import { readPipelineBlock } from './pipeline-block.ts';
import { readRoutes, readTransforms } from './rule-blocks.ts';
import { readSinkBlock } from './sink-block.ts';
import { readSourceBlock } from './source-block.ts';
import { TableRouter } from './table-router.ts';
import { checkTransforms } from './transform-check.ts';
import { findPrimaryKeyConflicts, findShadowedTransforms } from './transform-rules.ts';
import { nearestKey } from './block-reader.ts';
import { YamlSource } from './yaml-source.ts';

export interface PipelineCheck {
  /** Present when the file has no problem. */
  readonly definition: PipelineDefinition | undefined;
  /** Every problem of the file, in the order of the file. */
  readonly problems: readonly PipelineProblem[];
}

/** Reads and checks a pipeline file; throws PipelineCheckError with every problem. */
export function loadPipelineFile(path: string): PipelineDefinition {
  const text = readFileSync(path, 'utf8');
  const { definition, problems } = checkPipelineText(path, text);
  if (!definition) throw new PipelineCheckError(path, problems);
  return definition;
}

/** Checks the text of a pipeline file (`file` is the name errors give it). */
export function checkPipelineText(file: string, text: string): PipelineCheck {
  const src = new YamlSource(file, text);
  if (src.syntaxProblems.length > 0) return { definition: undefined, problems: src.syntaxProblems };
  const problems: PipelineProblem[] = [];
  const reader = new BlockReader(src, problems);
  const root = reader.asMap(src.root, '', "a map with the blocks 'source', 'sink' and optionally 'route', 'transform', 'pipeline'");
  if (!root) return { definition: undefined, problems };
  const blocks = new Map<string, Node | null>();
  for (const { key, keyNode, value } of reader.entries(root)) {
    if ((TOP_LEVEL_BLOCKS as readonly string[]).includes(key)) blocks.set(key, value);
    else reader.report(new UnknownKeyProblem(src.placeOf(keyNode, key), key, 'the file', nearestKey(key, TOP_LEVEL_BLOCKS)));
  }
  for (const required of ['source', 'sink']) {
    if (!blocks.has(required)) reader.report(new MissingKeyProblem(src.placeOf(root, ''), required, required === 'source' ? 'the database the pipeline reads' : 'where the changes go'));
  }
  const pipelineNode = blocks.get('pipeline');
  const pipeline = readPipelineBlock(src, reader, pipelineNode === undefined || pipelineNode === null || (isScalar(pipelineNode) && pipelineNode.value === null) ? undefined : reader.asMap(pipelineNode, 'pipeline', 'a map of settings'));
  const sourceMap = blocks.has('source') ? reader.asMap(blocks.get('source'), 'source', "a map ('type: mysql', 'hostname: ...', 'tables: ...')") : undefined;
  const source = sourceMap && readSourceBlock(src, reader, sourceMap);
  const sinkMap = blocks.has('sink') ? reader.asMap(blocks.get('sink'), 'sink', "a map ('type: postgres', 'hostname: ...')") : undefined;
  const sink = sinkMap && readSinkBlock(src, reader, sinkMap, pipeline.schemaChangeBehavior);
  const routes = readRoutes(src, reader, blocks.get('route') ?? null);
  const transforms = readTransforms(src, reader, blocks.get('transform') ?? null);
  checkRulesTogether(src, reader, source, routes, transforms, pipeline.routeMode);
  if (problems.length === 0 && source) problems.push(...checkTransforms({ file, source, transforms }));
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  if (problems.length > 0 || !source || !sink) return { definition: undefined, problems };
  return { definition: { file, source, sink, routes, transforms, pipeline }, problems };
}

/** What only the rules together can show: a transform that never applies, a sink table with two primary keys. */
function checkRulesTogether(src: YamlSource, reader: BlockReader, source: SourceDefinition | undefined, routes: readonly RouteDefinition[], transforms: readonly TransformDefinition[], mode: 'ALL_MATCH' | 'FIRST_MATCH'): void {
  for (const s of findShadowedTransforms(transforms)) {
    const at = transforms[s.rule]!.place;
    reader.report(new TransformNeverAppliesProblem({ file: src.file, line: at.line, column: at.column, path: `transform[${s.rule}]` }, s.rule, s.shadowedBy, s.table));
  }
  const router = new TableRouter(routes, mode);
  for (const c of findPrimaryKeyConflicts(transforms, router, namedTables(source, routes, transforms))) {
    const at = transforms[c.claims[c.claims.length - 1]!.rule]!.place;
    reader.report(new AmbiguousPrimaryKeyProblem({ file: src.file, line: at.line, column: at.column, path: `transform[${c.claims[c.claims.length - 1]!.rule}].primary-keys` }, c.sinkTable, c.claims));
  }
}

/** The literal table ids the file names (the tables known before the catalog is read), those the source captures. */
function namedTables(source: SourceDefinition | undefined, routes: readonly RouteDefinition[], transforms: readonly TransformDefinition[]): string[] {
  const named = new Set<string>([...(source?.tables.literalTables() ?? []), ...transforms.flatMap((t) => t.selector.literalTables())]);
  for (const r of routes) if (!/[\\^$|?*+()[\]{}]/.test(r.sourceTable) && !r.sourceTable.includes(',')) named.add(r.sourceTable);
  return [...named].filter((t) => !source || (source.tables.matches(t) && !source.excludedTables?.matches(t)));
}

