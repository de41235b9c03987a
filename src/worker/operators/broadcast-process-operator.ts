import type { BroadcastContext, BroadcastProcessFunction, ReadOnlyBroadcastContext } from '../../api/broadcast-process-function.ts';
import type { ProcessContext, ProcessFunction } from '../../api/process-function.ts';
import type { BroadcastSpec } from '../../api/transformation.ts';
import { BroadcastStateStore } from './broadcast-state-store.ts';
import { ProcessOperator } from './process-operator.ts';
import type { OperatorContext, TwoInputStreamOperator } from './stream-operator.ts';
import { perInstance, taggedRecord, type TaggedRecord } from './tagged-record.ts';

/**
 * Runs a BroadcastProcessFunction (Flink's CoBroadcastWithNonKeyedOperator): input 1 is the
 * stream, input 2 the broadcast stream, whose records every subtask gets and may write to the
 * broadcast state with; the stream's records only read it.
 */
export class BroadcastProcessOperator extends ProcessOperator implements TwoInputStreamOperator {
  readonly inputCount = 2;
  readonly #tag = taggedRecord();
  readonly #holder: { store?: BroadcastStateStore };
  readonly #spec: BroadcastSpec;

  constructor(fn: BroadcastProcessFunction<unknown, unknown, unknown> | (() => BroadcastProcessFunction<unknown, unknown, unknown>), spec: BroadcastSpec, holder: { store?: BroadcastStateStore } = {}) {
    super(() => broadcastAdapter(perInstance(fn), holder));
    this.#holder = holder;
    this.#spec = spec;
  }

  override open(ctx: OperatorContext): Promise<void> {
    this.#holder.store = new BroadcastStateStore(this.#spec, ctx.operatorState, { name: ctx.operatorName, uid: ctx.operatorUid });
    return super.open(ctx);
  }

  override processElement(value: unknown): void {
    this.processElement1(value);
  }

  processElement1(value: unknown): void {
    this.#tag.input = 0;
    this.#tag.value = value;
    super.processElement(this.#tag);
  }

  processElement2(value: unknown): void {
    this.#tag.input = 1;
    this.#tag.value = value;
    super.processElement(this.#tag);
  }
}

function broadcastAdapter(fn: BroadcastProcessFunction<unknown, unknown, unknown>, holder: { store?: BroadcastStateStore }): ProcessFunction<TaggedRecord, unknown> {
  let readOnly: ReadOnlyBroadcastContext | undefined;
  let writable: BroadcastContext | undefined;
  // ProcessOperator hands the same context object to every call: the derived ones are made once.
  const contexts = (ctx: ProcessContext) => {
    readOnly ??= Object.assign(Object.create(ctx) as ProcessContext, { getBroadcastState: (d: never) => holder.store!.readOnly(d) }) as ReadOnlyBroadcastContext;
    writable ??= Object.assign(Object.create(ctx) as ProcessContext, { getBroadcastState: (d: never) => holder.store!.writable(d) }) as BroadcastContext;
    return { readOnly, writable };
  };
  return {
    open: (ctx) => fn.open?.(ctx),
    processElement: (r, ctx, out) => {
      const c = contexts(ctx);
      if (r.input === 0) fn.processElement(r.value, c.readOnly, out);
      else fn.processBroadcastElement(r.value, c.writable, out);
    },
    endInput: (out) => fn.endInput?.(out),
    close: () => fn.close?.(),
  };
}
