import type { JobEdge } from '../graph/job-graph.ts';
import type { Codec } from '../serialization/codec.ts';
import { InferringCodec } from '../serialization/inferring-codec.ts';

/**
 * The codec of one channel of an edge, one per channel and direction (an inferring codec keeps
 * what it has announced or been told). Streams without a declared type infer one from their
 * records and fall back to MessagePack when the records change shape.
 */
export function edgeCodec(_edge: JobEdge): Codec<unknown> {
  return new InferringCodec();
}
