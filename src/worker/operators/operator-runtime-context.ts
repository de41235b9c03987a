import type { RuntimeContext } from '../../api/functions.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { OperatorContext } from './stream-operator.ts';

type StateAccess = Pick<RuntimeContext, 'getState' | 'getListState' | 'getMapState' | 'getReducingState' | 'getAggregatingState'>;

/** What a user function's open() is given: the operator's facts and its state (keyed or not). */
export function operatorRuntimeContext(ctx: OperatorContext, state: StateAccess): RuntimeContext {
  return {
    jobId: ctx.jobId,
    jobName: ctx.jobName,
    operatorName: ctx.operatorName,
    operatorUid: ctx.operatorUid,
    subtaskIndex: ctx.subtaskIndex,
    parallelism: ctx.parallelism,
    maxParallelism: ctx.maxParallelism,
    attemptNumber: ctx.attemptNumber,
    log: ctx.log,
    ...state,
  };
}

/** The state of the current key, from the operator's keyed backend. */
export function keyedStateAccess(backend: KeyedStateBackend): StateAccess {
  return {
    getState: (d) => backend.getValueState(d),
    getListState: (d) => backend.getListState(d),
    getMapState: (d) => backend.getMapState(d),
    getReducingState: (d) => backend.getReducingState(d),
    getAggregatingState: (d) => backend.getAggregatingState(d),
  };
}

/** A stream that is not keyed has no keyed state: any access says how to get it. */
export function unkeyedStateAccess(what: string): StateAccess {
  const unkeyed = (): never => {
    throw new TypeError(`keyed state needs a keyed stream: call keyBy(...) before ${what}`);
  };
  return { getState: unkeyed, getListState: unkeyed, getMapState: unkeyed, getReducingState: unkeyed, getAggregatingState: unkeyed };
}
