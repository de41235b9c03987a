import type { JobEdge } from '../graph/job-graph.ts';
import { blockCodecFor } from '../serialization/block-codec.ts';
import type { Codec } from '../serialization/codec.ts';
import { compileCodec } from '../serialization/compile-codec.ts';
import { DataOutput } from '../serialization/data-output.ts';
import { InferringCodec } from '../serialization/inferring-codec.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import type { TypeInfo } from '../serialization/type-info.ts';

/**
 * The codec of one channel of an edge, one per channel and direction (an inferring codec keeps
 * what it has announced or been told). A declared type (`returns`) is compiled, with its block
 * form when `recordBlocks`; streams without one infer a type from their records and fall back to
 * MessagePack when the records change shape.
 */
export function edgeCodec(edge: JobEdge, recordBlocks: boolean): Codec<unknown> {
  if (!edge.type) return new InferringCodec();
  return recordBlocks ? declaredCodec(edge.type) : compileCodec(edge.type);
}

/**
 * The compiled codec of a declared type, with its block form where it has one (channels then send
 * records by column: taskmanager.network.record-blocks).
 */
export function declaredCodec(type: TypeInfo): Codec<unknown> {
  const codec = compileCodec(type);
  const block = blockCodecFor(type);
  return block === undefined ? codec : { type: codec.type, encode: codec.encode, decode: codec.decode, block };
}

/** What a serialization error on this edge names: the operator that emits onto it and the connection. */
export function edgeContext(edge: JobEdge): { operatorUid: string; edge: string } {
  const op = edge.source.operators[edge.sourceOperator]!;
  return { operatorUid: op.uid, edge: `'${op.name}' -> '${edge.target.operators[0]!.name}' (${edge.partitioner.kind})` };
}

/**
 * For a channel within one TaskManager, where records are handed over as objects: a declared type
 * is checked by encoding into a scratch buffer (the same codec, the same error facts as between
 * threads). Undeclared edges are not checked: there is nothing they must fit.
 */
export function edgeCheck(edge: JobEdge): ((record: unknown) => void) | undefined {
  if (!edge.type) return undefined;
  const codec = compileCodec(edge.type);
  const scratch = DataOutput.growable(256);
  const context = edgeContext(edge);
  return (record) => {
    scratch.pos = 0;
    try {
      codec.encode(record, scratch);
    } catch (e) {
      throw e instanceof SerializationError ? e.withContext(context) : e;
    }
  };
}
