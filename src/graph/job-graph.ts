import type { TypeInfo } from '../serialization/type-info.ts';
import { createHash } from 'node:crypto';
import type { OperatorSpec, PartitionerSpec } from '../api/transformation.ts';
import { edgeType, type StreamEdge, type StreamGraph, type StreamNode } from './stream-graph.ts';

/** One operator inside a vertex's chain. Its outputs go to chained operators or to network edges. */
export interface ChainedOperator {
  readonly index: number;
  readonly operatorId: string;
  readonly uid: string;
  readonly name: string;
  readonly spec: OperatorSpec;
  /** Indices of chained successors within the same vertex. */
  readonly chainedOutputs: number[];
  /** Chained successors that take one of this operator's side outputs, by tag id. */
  readonly chainedSideOutputs: Array<{ readonly tag: string; readonly index: number }>;
  /** Ids of the job edges this operator writes to. */
  readonly networkOutputs: number[];
}

export interface JobVertex {
  /** The head operator's id, stable across runs. */
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  /** Topologically ordered; operators[0] is the head. */
  readonly operators: readonly ChainedOperator[];
  readonly inputs: JobEdge[];
  readonly outputs: JobEdge[];
  readonly isSource: boolean;
}

export interface JobEdge {
  readonly id: number;
  readonly source: JobVertex;
  readonly sourceOperator: number;
  readonly target: JobVertex;
  readonly partitioner: PartitionerSpec;
  /** The declared type of the records on it (its source operator's); undefined: inferred at run time. */
  readonly type: TypeInfo | undefined;
  /** The side output of the source operator it carries (tag id); undefined: the main output. */
  readonly outputTag: string | undefined;
  /** Which input of the target's head operator it feeds (0; 1 for a two-input operator's second). */
  readonly inputIndex: number;
}

export interface JobGraph {
  readonly vertices: readonly JobVertex[];
  readonly edges: readonly JobEdge[];
  readonly warnings: readonly string[];
  /** Hash of the structure: every TaskManager must build the same graph from the job module. */
  readonly fingerprint: string;
}

function isChainable(edge: StreamEdge): boolean {
  return (
    edge.partitioner.kind === 'forward' &&
    edge.target.inputs.length === 1 &&
    edge.source.parallelism === edge.target.parallelism &&
    edge.source.chaining &&
    edge.target.chaining
  );
}

/** Fuses operators connected by chainable forward edges into vertices (Flink's operator chaining). */
export function buildJobGraph(streamGraph: StreamGraph): JobGraph {
  const vertexOf = new Map<StreamNode, { vertex: JobVertex; index: number }>();
  const vertices: JobVertex[] = [];

  for (const node of streamGraph.nodes) {
    const chainIn = node.inputs.length === 1 && isChainable(node.inputs[0]!) ? node.inputs[0]! : undefined;
    let placement: { vertex: JobVertex; index: number };
    const op = (index: number): ChainedOperator => ({
      index,
      operatorId: node.operatorId,
      uid: node.uid,
      name: node.name,
      spec: node.spec,
      chainedOutputs: [],
      chainedSideOutputs: [],
      networkOutputs: [],
    });
    if (chainIn) {
      const upstream = vertexOf.get(chainIn.source)!;
      const operators = upstream.vertex.operators as ChainedOperator[];
      placement = { vertex: upstream.vertex, index: operators.length };
      operators.push(op(placement.index));
      if (chainIn.outputTag) operators[upstream.index]!.chainedSideOutputs.push({ tag: chainIn.outputTag.id, index: placement.index });
      else operators[upstream.index]!.chainedOutputs.push(placement.index);
    } else {
      const vertex: JobVertex = {
        id: node.operatorId,
        name: node.name,
        parallelism: node.parallelism,
        maxParallelism: node.maxParallelism,
        operators: [op(0)],
        inputs: [],
        outputs: [],
        isSource: node.spec.kind === 'source',
      };
      vertices.push(vertex);
      placement = { vertex, index: 0 };
    }
    vertexOf.set(node, placement);
  }

  const edges: JobEdge[] = [];
  for (const node of streamGraph.nodes) {
    for (const e of node.inputs) {
      if (vertexOf.get(e.target)!.vertex === vertexOf.get(e.source)!.vertex) continue;
      const from = vertexOf.get(e.source)!;
      const to = vertexOf.get(e.target)!;
      const edge: JobEdge = {
        id: edges.length,
        source: from.vertex,
        sourceOperator: from.index,
        target: to.vertex,
        partitioner: e.partitioner,
        type: edgeType(e.source, e.outputTag),
        outputTag: e.outputTag?.id,
        inputIndex: e.inputIndex,
      };
      edges.push(edge);
      from.vertex.outputs.push(edge);
      to.vertex.inputs.push(edge);
      (from.vertex.operators[from.index] as ChainedOperator).networkOutputs.push(edge.id);
    }
  }

  for (const v of vertices) (v as { name: string }).name = v.operators.map((o) => o.name).join(' -> ');
  return { vertices, edges, warnings: streamGraph.warnings, fingerprint: fingerprint(vertices, edges) };
}

function fingerprint(vertices: readonly JobVertex[], edges: readonly JobEdge[]): string {
  const shape = {
    v: vertices.map((v) => [v.id, v.parallelism, v.maxParallelism, v.operators.map((o) => [o.operatorId, o.spec.kind, o.chainedOutputs, o.networkOutputs, ...(o.chainedSideOutputs.length > 0 ? [o.chainedSideOutputs] : [])])]),
    e: edges.map((e) => [e.id, e.source.id, e.sourceOperator, e.target.id, e.partitioner.kind, e.type ?? null, ...(e.outputTag !== undefined ? [e.outputTag] : []), ...(e.inputIndex > 0 ? [{ input: e.inputIndex }] : [])]),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 16);
}
