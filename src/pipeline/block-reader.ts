import { isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';
import { editDistance } from '../config/edit-distance.ts';
import { parseDuration } from '../config/duration.ts';
import { BadValueProblem, MissingKeyProblem, UnknownKeyProblem, WrongTypeProblem, type PipelineProblem } from './pipeline-problem.ts';
import { canonicalChoice, type KeySpec } from './pipeline-keys.ts';
import { splitUnescaped } from './table-selector.ts';
import { describeNode, type YamlSource } from './yaml-source.ts';

/** A key's value as read, and the node it was read from (for later problems about it). */
export interface ReadValue {
  readonly value: unknown;
  readonly node: Node;
  readonly keyNode: Node;
}

/** A key the block's declarations do not have: handled by the caller (weir's configuration keys), or undefined to report it unknown. */
export type ExtraKey = (key: string, valueNode: Node, keyNode: Node) => 'taken' | undefined;

/**
 * Reads one map of the file by its keys' declarations: each value checked and converted by its
 * kind, problems collected (every one, not only the first), unknown keys reported with the nearest
 * known one.
 */
export class BlockReader {
  readonly #source: YamlSource;
  readonly #problems: PipelineProblem[];

  constructor(source: YamlSource, problems: PipelineProblem[]) {
    this.#source = source;
    this.#problems = problems;
  }

  report(problem: PipelineProblem): void {
    this.#problems.push(problem);
  }

  /** How many problems were reported so far (a block compares before and after to know whether it is whole). */
  get problemCount(): number {
    return this.#problems.length;
  }

  /** The node as a map, or a wrong-type problem and undefined. */
  asMap(node: Node | null | undefined, path: string, what: string): YAMLMap | undefined {
    if (isMap(node)) return node;
    this.report(new WrongTypeProblem(this.#source.placeOf(node, path), what, describeNode(node)));
    return undefined;
  }

  /** The entries of a map, by key text, with their nodes. */
  entries(map: YAMLMap): { key: string; keyNode: Node; value: Node | null }[] {
    return (map.items as Pair<Node, Node | null>[]).map((p) => ({ key: String(isScalar(p.key) ? p.key.value : p.key), keyNode: p.key, value: p.value }));
  }

  read(map: YAMLMap, path: string, block: string, specs: readonly KeySpec[], extra?: ExtraKey, moreKnown: readonly string[] = []): Map<string, ReadValue> {
    const out = new Map<string, ReadValue>();
    const byKey = new Map(specs.map((s) => [s.key, s]));
    for (const { key, keyNode, value } of this.entries(map)) {
      const spec = byKey.get(key);
      const keyPath = path ? `${path}.${key}` : key;
      if (!spec) {
        if (extra && value && extra(key, value, keyNode) === 'taken') continue;
        this.report(new UnknownKeyProblem(this.#source.placeOf(keyNode, keyPath), key, block, nearestKey(key, [...specs.map((s) => s.key), ...moreKnown])));
        continue;
      }
      const converted = this.#convert(spec, value, keyNode, keyPath);
      if (converted !== undefined) out.set(key, { value: converted, node: value ?? keyNode, keyNode });
    }
    for (const spec of specs) {
      if (spec.required && !out.has(spec.key) && !this.entries(map).some((e) => e.key === spec.key)) {
        this.report(new MissingKeyProblem(this.#source.placeOf(map, path), spec.key, `${spec.doc}`));
      }
    }
    return out;
  }

  #convert(spec: KeySpec, node: Node | null, keyNode: Node, path: string): unknown {
    const place = this.#source.placeOf(node ?? keyNode, path);
    const wrong = (expected: string) => {
      this.report(new WrongTypeProblem(place, expected, describeNode(node)));
      return undefined;
    };
    if (spec.kind === 'string-list') {
      if (isSeq(node)) {
        const items = node.items as Node[];
        if (!items.every((i) => isScalar(i) && i.value !== null && typeof i.value !== 'object')) return wrong('a list of texts');
        return items.map((i) => String((i as { value: unknown }).value).trim()).filter((s) => s.length > 0);
      }
      if (!isScalar(node) || node.value === null) return wrong('a text (comma-separated) or a list of texts');
      const items = splitUnescaped(String(node.value), ',').map((s) => s.trim()).filter((s) => s.length > 0);
      if (items.length === 0) {
        this.report(new BadValueProblem(place, 'is empty'));
        return undefined;
      }
      return items;
    }
    if (!isScalar(node) || node.value === null || typeof node.value === 'object') return wrong(expectedOf(spec));
    const raw = node.value as string | number | boolean;
    const text = String(raw).trim();
    const bad = (problem: string) => {
      this.report(new BadValueProblem(place, problem));
      return undefined;
    };
    switch (spec.kind) {
      case 'string':
        if (spec.pattern && !new RegExp(spec.pattern.regex).test(text)) return bad(`'${text}' is not ${spec.pattern.hint}`);
        return String(raw);
      case 'boolean':
        if (raw === true || raw === false) return raw;
        if (text === 'true' || text === 'false') return text === 'true';
        return wrong('true or false');
      case 'int':
      case 'number': {
        const n = typeof raw === 'number' ? raw : /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
        if (!Number.isFinite(n) || (spec.kind === 'int' && !Number.isInteger(n))) return wrong(expectedOf(spec));
        return this.#inRange(spec, n, place) ? n : undefined;
      }
      case 'duration': {
        const ms = typeof raw === 'boolean' ? undefined : parseDuration(raw);
        if (ms === undefined) return bad(`expected a duration such as '30 s', '500 ms' or '1 min', got '${text}'`);
        return ms;
      }
      default: {
        const choice = spec.kind.oneOf.find((v) => v === text);
        if (choice === undefined) return bad(`expected one of ${[...new Set(spec.kind.oneOf.map((v) => canonicalChoice(spec.kind as { oneOf: readonly string[] }, v)))].join(', ')}, got '${text}'`);
        return canonicalChoice(spec.kind, choice);
      }
    }
  }

  #inRange(spec: KeySpec, n: number, place: ReturnType<YamlSource['placeOf']>): boolean {
    if (spec.min !== undefined && n < spec.min) this.report(new BadValueProblem(place, `must be at least ${spec.min}, got ${n}`));
    else if (spec.max !== undefined && n > spec.max) this.report(new BadValueProblem(place, `must be at most ${spec.max}, got ${n}`));
    else return true;
    return false;
  }
}

function expectedOf(spec: KeySpec): string {
  switch (spec.kind) {
    case 'int':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'duration':
      return "a duration such as '30 s'";
    case 'string':
      return 'a text';
    case 'string-list':
      return 'a text or a list of texts';
    default:
      return `one of ${spec.kind.oneOf.join(', ')}`;
  }
}

/** The known key nearest to an unknown one by edit distance, when it is close (a typo, not another word). */
export function nearestKey(unknown: string, known: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(unknown.length / 4));
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(unknown.toLowerCase(), key.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}
