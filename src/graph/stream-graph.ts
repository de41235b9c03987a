import type { TypeInfo } from '../serialization/type-info.ts';
import type { OperatorSpec, PartitionerSpec, Transformation, TransformationSpec } from '../api/transformation.ts';
import type { OutputTag } from '../api/output-tag.ts';
import { GraphValidationError } from './graph-validation-error.ts';
import { hashId, operatorIdFromUid } from './operator-id.ts';

export interface StreamNode {
  readonly id: number;
  /** Stable operator id: from the uid, or generated from the node's place in the topology. */
  readonly operatorId: string;
  /** The uid the user gave, or the generated operator id. State is filed under it. */
  readonly uid: string;
  readonly hasUserUid: boolean;
  readonly name: string;
  readonly spec: OperatorSpec;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly chaining: boolean;
  readonly createdAt: string | undefined;
  /** The declared type of what it emits; a filter passes on its input's. Undefined: inferred at run time. */
  readonly outputType: TypeInfo | undefined;
  readonly inputs: StreamEdge[];
  readonly outputs: StreamEdge[];
}

export interface StreamEdge {
  readonly source: StreamNode;
  readonly target: StreamNode;
  readonly partitioner: PartitionerSpec;
  /** The side output of the source operator this edge carries (getSideOutput); undefined: its main output. */
  readonly outputTag: OutputTag<unknown> | undefined;
  /** Which input of the target it feeds: 0, or 1 for the second input of a two-input operator (connect). */
  readonly inputIndex: number;
}

export interface StreamGraphDefaults {
  readonly parallelism: number;
  readonly maxParallelism: number;
}

export interface StreamGraph {
  readonly nodes: readonly StreamNode[];
  readonly warnings: readonly string[];
}

/** Resolves the recorded transformations into operators and edges; partitions and unions become edge properties. */
export function buildStreamGraph(transformations: readonly Transformation[], defaults: StreamGraphDefaults): StreamGraph {
  const nodes = new Map<number, StreamNode>();
  const warnings: string[] = [];
  const uids = new Map<string, string>();
  const outputOrdinal = new Map<number, number>();

  for (const t of transformations) {
    const spec = t.spec;
    if (spec.kind === 'partition' || spec.kind === 'union' || spec.kind === 'side-output') continue;
    const name = t.settings.name ?? defaultOperatorName(spec);
    const parallelism = t.settings.parallelism ?? defaults.parallelism;
    const maxParallelism = t.settings.maxParallelism ?? defaults.maxParallelism;
    checkParallelism(name, t, parallelism, maxParallelism);

    const upstream = resolveInputs(t);
    // The input index joins the hash only past the first input, so single-input ids stay as they were.
    const inputIds = upstream.map((u) => `${nodes.get(u.node.id)!.operatorId}/${u.partitioner?.kind ?? 'default'}${u.tag ? `/${u.tag.id}` : ''}${u.inputIndex > 0 ? `#${u.inputIndex}` : ''}`);
    const ordinal = upstream.length > 0 ? nextOrdinal(outputOrdinal, upstream[0]!.node.id) : nextOrdinal(outputOrdinal, 0);
    const uid = t.settings.uid;
    if (uid !== undefined) {
      const previous = uids.get(uid);
      if (previous) throw new GraphValidationError(`uid '${uid}' is used by '${previous}' too; uids must be unique within a job`, name, t.createdAt);
      uids.set(uid, name);
    }
    const operatorId = uid !== undefined ? operatorIdFromUid(uid) : hashId('generated', spec.kind, String(ordinal), ...inputIds);
    if (uid === undefined && isStateful(spec) && spec.kind !== 'sink') {
      warnings.push(`operator '${name}' keeps state but has no uid; its state will not be found again if the job's topology changes. Give it { uid: '...' }.`);
    }
    const node: StreamNode = {
      id: t.id,
      operatorId,
      uid: uid ?? operatorId,
      hasUserUid: uid !== undefined,
      name,
      spec,
      parallelism,
      maxParallelism,
      chaining: t.settings.chaining !== false,
      createdAt: t.createdAt,
      outputType: t.settings.returns ?? (passesTypeOn(spec) && upstream.length === 1 ? edgeType(nodes.get(upstream[0]!.node.id)!, upstream[0]!.tag) : undefined),
      inputs: [],
      outputs: [],
    };
    nodes.set(t.id, node);
    for (const u of upstream) {
      const source = nodes.get(u.node.id)!;
      const partitioner = u.partitioner ?? (source.parallelism === node.parallelism ? { kind: 'forward' as const } : { kind: 'rebalance' as const });
      const edge: StreamEdge = { source, target: node, partitioner, outputTag: u.tag, inputIndex: u.inputIndex };
      checkEdge(edge);
      source.outputs.push(edge);
      node.inputs.push(edge);
    }
    checkKeyedInput(node);
  }

  const all = [...nodes.values()];
  if (!all.some((n) => n.spec.kind === 'sink')) {
    throw new GraphValidationError('the job has no sink: add .sinkTo(...) to at least one stream');
  }
  for (const n of all) {
    if (n.spec.kind !== 'sink' && n.outputs.length === 0) warnings.push(`the output of operator '${n.name}' goes nowhere (no sink is attached to it)`);
  }
  return { nodes: all, warnings };
}

interface ResolvedInput {
  readonly node: Transformation;
  readonly partitioner: PartitionerSpec | undefined;
  readonly tag: OutputTag<unknown> | undefined;
  readonly inputIndex: number;
}

/** Walks back through partition, union and side-output steps to the operators that feed a transformation. */
function resolveInputs(t: Transformation): ResolvedInput[] {
  const out: ResolvedInput[] = [];
  const walk = (input: Transformation, partitioner: PartitionerSpec | undefined, tag: OutputTag<unknown> | undefined, inputIndex: number): void => {
    const spec = input.spec;
    if (spec.kind === 'partition') {
      for (const i of input.inputs) walk(i, partitioner ?? spec.partitioner, tag, inputIndex);
    } else if (spec.kind === 'union') {
      for (const i of input.inputs) walk(i, partitioner, tag, inputIndex);
    } else if (spec.kind === 'side-output') {
      // A side output of a side output is not a thing: the tag names the operator's own output.
      for (const i of input.inputs) walk(i, partitioner, spec.tag, inputIndex);
    } else {
      out.push({ node: input, partitioner, tag, inputIndex });
    }
  };
  // A transformation's inputs are its operator's inputs, in order (two for connect).
  t.inputs.forEach((input, index) => walk(input, undefined, undefined, index));
  if (t.spec.kind !== 'source' && out.length === 0) throw new GraphValidationError('has no input', defaultOperatorName(t.spec), t.createdAt);
  return out;
}

function nextOrdinal(counter: Map<number, number>, id: number): number {
  const n = counter.get(id) ?? 0;
  counter.set(id, n + 1);
  return n;
}

function checkParallelism(name: string, t: Transformation, parallelism: number, maxParallelism: number): void {
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    throw new GraphValidationError(`parallelism must be a whole number of at least 1, got ${parallelism}`, name, t.createdAt);
  }
  if (!Number.isInteger(maxParallelism) || maxParallelism < 1 || maxParallelism > 32768) {
    throw new GraphValidationError(`maxParallelism must be between 1 and 32768, got ${maxParallelism}`, name, t.createdAt);
  }
  if (parallelism > maxParallelism) {
    throw new GraphValidationError(
      `parallelism ${parallelism} is above maxParallelism ${maxParallelism}; raise pipeline.max-parallelism or lower the parallelism`,
      name,
      t.createdAt,
    );
  }
}

function checkEdge(edge: StreamEdge): void {
  if (edge.partitioner.kind === 'forward' && edge.source.parallelism !== edge.target.parallelism) {
    throw new GraphValidationError(
      `forward partitioning from '${edge.source.name}' (parallelism ${edge.source.parallelism}) needs the same parallelism, got ${edge.target.parallelism}; use rebalance() instead`,
      edge.target.name,
      edge.target.createdAt,
    );
  }
}

/** Operators whose records are their input's: a declared type carries over. */
function passesTypeOn(spec: OperatorSpec): boolean {
  return spec.kind === 'filter' || spec.kind === 'timestamps-watermarks';
}

/** The declared type of what an edge from `source` carries: its main output's, or the side output tag's. */
export function edgeType(source: StreamNode, tag: OutputTag<unknown> | undefined): TypeInfo | undefined {
  return tag ? tag.type : source.outputType;
}

/** Operators that run on a keyed stream: keyed state, timers. */
export function isKeyedOperator(kind: OperatorSpec['kind']): boolean {
  return kind === 'keyed-process' || kind === 'reduce' || kind === 'window' || kind === 'keyed-co-process' || kind === 'keyed-broadcast-process' || kind === 'interval-join';
}

/** How each input of an operator must be partitioned, by input index: keyed inputs by key, a broadcast state's input to every subtask. */
function requiredPartitioning(spec: OperatorSpec): ReadonlyArray<'hash' | 'broadcast' | undefined> {
  switch (spec.kind) {
    case 'keyed-process':
    case 'reduce':
    case 'window':
      return ['hash'];
    case 'keyed-co-process':
    case 'interval-join':
      return ['hash', 'hash'];
    case 'keyed-broadcast-process':
      return ['hash', 'broadcast'];
    case 'broadcast-process':
      return [undefined, 'broadcast'];
    default:
      return [];
  }
}

function checkKeyedInput(node: StreamNode): void {
  const required = requiredPartitioning(node.spec);
  for (const edge of node.inputs) {
    const needed = required[edge.inputIndex];
    if (needed === undefined || edge.partitioner.kind === needed) continue;
    const message =
      needed === 'hash'
        ? `a keyed operator needs a keyed input: call keyBy(...) right before it (its input from '${edge.source.name}' is partitioned by ${edge.partitioner.kind})`
        : `its broadcast input from '${edge.source.name}' must reach every subtask: connect a stream made by broadcast(descriptor) (it is partitioned by ${edge.partitioner.kind})`;
    throw new GraphValidationError(message, node.name, node.createdAt);
  }
}

/** Operators that keep state of their own and so should carry a uid. */
export function isStateful(spec: TransformationSpec): boolean {
  return (
    spec.kind === 'keyed-process' ||
    spec.kind === 'reduce' ||
    spec.kind === 'window' ||
    spec.kind === 'source' ||
    spec.kind === 'sink' ||
    spec.kind === 'keyed-co-process' ||
    spec.kind === 'interval-join' ||
    spec.kind === 'broadcast-process' ||
    spec.kind === 'keyed-broadcast-process' ||
    spec.kind === 'async'
  );
}

export function defaultOperatorName(spec: TransformationSpec): string {
  switch (spec.kind) {
    case 'source':
      return 'Source';
    case 'map':
      return 'Map';
    case 'flatMap':
      return 'FlatMap';
    case 'filter':
      return 'Filter';
    case 'keyed-process':
      return 'KeyedProcess';
    case 'reduce':
      return 'Reduce';
    case 'sink':
      return 'Sink';
    case 'timestamps-watermarks':
      return 'Timestamps/Watermarks';
    case 'process':
      return 'Process';
    case 'window':
      return `Window(${spec.window.describe()})`;
    case 'local-window-aggregate':
      return `LocalWindowAggregate(${spec.size})`;
    case 'async':
      return spec.mode === 'ordered' ? 'Async (ordered)' : 'Async (unordered)';
    case 'partition':
      return spec.partitioner.kind;
    case 'union':
      return 'Union';
    case 'side-output':
      return `SideOutput(${spec.tag.id})`;
    case 'co-process':
      return 'CoProcess';
    case 'keyed-co-process':
      return 'KeyedCoProcess';
    case 'interval-join':
      return 'IntervalJoin';
    case 'broadcast-process':
      return 'BroadcastProcess';
    case 'keyed-broadcast-process':
      return 'KeyedBroadcastProcess';
  }
}
