import type { OperatorSpec } from '../api/transformation.ts';
import { FilterOperator } from './operators/filter-operator.ts';
import { FlatMapOperator } from './operators/flat-map-operator.ts';
import { KeyedProcessOperator } from './operators/keyed-process-operator.ts';
import { MapOperator } from './operators/map-operator.ts';
import { ReduceOperator } from './operators/reduce-operator.ts';
import { SinkOperator } from './operators/sink-operator.ts';
import { CommittingSinkOperator } from './operators/committing-sink-operator.ts';
import { isTwoPhaseCommittingSink } from '../api/two-phase-committing-sink.ts';
import type { Sink } from '../api/sink.ts';
import { SourceOperator } from './operators/source-operator.ts';
import { ProcessOperator } from './operators/process-operator.ts';
import { TimestampsAndWatermarksOperator } from './operators/timestamps-and-watermarks-operator.ts';
import { createWindowOperator } from './windowing/create-window-operator.ts';
import { LocalWindowAggregateOperator } from './windowing/local-window-aggregate-operator.ts';
import type { StreamOperator } from './operators/stream-operator.ts';
import { AsyncWaitOperator } from './async/async-wait-operator.ts';
import { CoProcessOperator } from './operators/co-process-operator.ts';
import { IntervalJoinOperator } from './operators/interval-join-operator.ts';
import { KeyedCoProcessOperator } from './operators/keyed-co-process-operator.ts';
import { BroadcastProcessOperator } from './operators/broadcast-process-operator.ts';
import { KeyedBroadcastProcessOperator } from './operators/keyed-broadcast-process-operator.ts';

export function createOperator(spec: OperatorSpec): StreamOperator {
  switch (spec.kind) {
    case 'source':
      return new SourceOperator(spec.source, spec.watermarks);
    case 'map':
      return new MapOperator(spec.fn);
    case 'flatMap':
      return new FlatMapOperator(spec.fn);
    case 'filter':
      return new FilterOperator(spec.fn);
    case 'keyed-process':
      return new KeyedProcessOperator(spec.fn, spec.keySelector);
    case 'reduce':
      return new ReduceOperator(spec.fn, spec.keySelector);
    case 'timestamps-watermarks':
      return new TimestampsAndWatermarksOperator(spec.strategy);
    case 'process':
      return new ProcessOperator(spec.fn);
    case 'window':
      return createWindowOperator(spec.window, spec.keySelector);
    case 'local-window-aggregate':
      return new LocalWindowAggregateOperator(spec);
    case 'async':
      return new AsyncWaitOperator(spec);
    case 'sink':
      return isTwoPhaseCommittingSink(spec.sink) ? new CommittingSinkOperator(spec.sink) : new SinkOperator(spec.sink as Sink<unknown, unknown>);
    case 'co-process':
      return new CoProcessOperator(spec.fn);
    case 'keyed-co-process':
      return new KeyedCoProcessOperator(spec.fn, spec.keySelectors, spec.definedAt);
    case 'interval-join':
      return new IntervalJoinOperator(spec);
    case 'broadcast-process':
      return new BroadcastProcessOperator(spec.fn, spec.broadcast);
    case 'keyed-broadcast-process':
      return new KeyedBroadcastProcessOperator(spec.fn, spec.keySelector, spec.broadcast);
  }
}
