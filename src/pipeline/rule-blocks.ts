import { isScalar, isSeq, type Node } from 'yaml';
import type { BlockReader } from './block-reader.ts';
import { BadRegexProblem, BadValueProblem, WrongTypeProblem } from './pipeline-problem.ts';
import { ROUTE_KEYS, TRANSFORM_KEYS } from './pipeline-keys.ts';
import type { RouteDefinition, TransformDefinition } from './pipeline-definition.ts';
import { RoutePatternError, TableRouter } from './table-router.ts';
import { parseSelector } from './source-block.ts';
import { describeNode, type YamlSource } from './yaml-source.ts';

/** The items of a rule list (`route`, `transform`); a single map is not a list (Flink CDC's blocks are lists). */
function ruleItems(src: YamlSource, reader: BlockReader, node: Node | null, block: string): Node[] {
  if (node === null || (isScalar(node) && node.value === null)) return [];
  if (isSeq(node)) return node.items as Node[];
  reader.report(new WrongTypeProblem(src.placeOf(node, block), `a list of rules (each item starting with '- source-table: ...')`, describeNode(node)));
  return [];
}

export function readRoutes(src: YamlSource, reader: BlockReader, node: Node | null): RouteDefinition[] {
  const out: RouteDefinition[] = [];
  ruleItems(src, reader, node, 'route').forEach((item, i) => {
    const path = `route[${i}]`;
    const map = reader.asMap(item, path, "a rule (a map with 'source-table' and 'sink-table')");
    if (!map) return;
    const v = reader.read(map, path, 'a route rule', ROUTE_KEYS);
    const source = v.get('source-table');
    const sink = v.get('sink-table');
    if (!source || !sink) return;
    const rule: RouteDefinition = {
      sourceTable: String(source.value),
      sinkTable: String(sink.value),
      replaceSymbol: v.get('replace-symbol')?.value as string | undefined,
      description: v.get('description')?.value as string | undefined,
      place: src.placeOf(map, ''),
    };
    try {
      new TableRouter([rule]);
      out.push(rule);
    } catch (e) {
      if (!(e instanceof RoutePatternError)) throw e;
      const at = e.key === 'source-table' ? source : sink;
      const place = src.placeOf(at.node, `${path}.${e.key}`);
      reader.report(e.key === 'source-table' ? new BadRegexProblem(place, rule.sourceTable, e.cause) : new BadValueProblem(place, e.message.replace(/^route rule \d+: sink-table: /, '')));
    }
  });
  return out;
}

export function readTransforms(src: YamlSource, reader: BlockReader, node: Node | null): TransformDefinition[] {
  const out: TransformDefinition[] = [];
  ruleItems(src, reader, node, 'transform').forEach((item, i) => {
    const path = `transform[${i}]`;
    const map = reader.asMap(item, path, "a rule (a map with 'source-table' and 'projection' or 'filter')");
    if (!map) return;
    const v = reader.read(map, path, 'a transform rule', TRANSFORM_KEYS);
    const source = v.get('source-table');
    if (!source) return;
    const selector = parseSelector(src, reader, String(source.value), source, `${path}.source-table`);
    if (!selector) return;
    const placed = (key: string) => {
      const r = v.get(key);
      return r ? src.placedText(r.node, String(r.value), key === 'projection') : undefined;
    };
    out.push({
      sourceTable: String(source.value),
      selector,
      projection: placed('projection'),
      filter: placed('filter'),
      primaryKeys: v.get('primary-keys')?.value as string[] | undefined,
      partitionKeys: v.get('partition-keys')?.value as string[] | undefined,
      description: v.get('description')?.value as string | undefined,
      place: src.placeOf(map, ''),
    });
  });
  return out;
}
