import type { MapStateDescriptor } from './state-descriptors.ts';
import type { BroadcastSpec, Transformation } from './transformation.ts';

/**
 * A stream sent to every subtask of what it is connected to, with the broadcast state it
 * declares (Flink's BroadcastStream, from `rules.broadcast(descriptor)`). It is only good for
 * `stream.connect(broadcastStream)`.
 */
export class BroadcastStream<T> {
  /** @internal The broadcast partitioning step of the stream. */
  readonly transformation: Transformation;
  /** @internal What the planner needs of the broadcast. */
  readonly spec: BroadcastSpec;
  /** Only for type inference: the records' type. */
  declare readonly __records?: T;

  /** @internal Made by DataStream.broadcast; users do not construct it. */
  constructor(transformation: Transformation, descriptors: readonly MapStateDescriptor<unknown, unknown>[], definedAt: string | undefined) {
    this.transformation = transformation;
    this.spec = { descriptors, definedAt };
  }
}
