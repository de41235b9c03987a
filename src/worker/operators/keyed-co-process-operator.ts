import type { KeyedProcessFunction, KeySelector } from '../../api/functions.ts';
import type { KeyedCoProcessFunction } from '../../api/co-process-function.ts';
import type { Key } from '../../state/key-group.ts';
import { KeyedProcessOperator } from './keyed-process-operator.ts';
import type { OperatorContext, TwoInputStreamOperator } from './stream-operator.ts';
import { KeyTypeMismatchError, keyTypeOf } from './key-type-mismatch-error.ts';
import { perInstance, taggedRecord, type TaggedRecord } from './tagged-record.ts';

/**
 * Runs a KeyedCoProcessFunction (Flink's KeyedCoProcessOperator): a KeyedProcessOperator whose
 * key selector is the selector of the record's input, so records of both inputs with one key
 * share its state and timers. The first record of each input shows its key type; types that
 * differ fail the job at once (KeyTypeMismatchError).
 */
export class KeyedCoProcessOperator extends KeyedProcessOperator implements TwoInputStreamOperator {
  readonly inputCount = 2;
  readonly #tag = taggedRecord();
  readonly #check: KeyTypeCheck;

  constructor(
    fn: KeyedCoProcessFunction<Key, unknown, unknown, unknown> | (() => KeyedCoProcessFunction<Key, unknown, unknown, unknown>),
    keySelectors: readonly [KeySelector<unknown>, KeySelector<unknown>],
    definedAt: string | undefined,
    check = new KeyTypeCheck(definedAt),
  ) {
    super(() => keyedCoProcessAdapter(perInstance(fn)), (r) => check.key((r as TaggedRecord).input, keySelectors[(r as TaggedRecord).input]!((r as TaggedRecord).value)));
    this.#check = check;
  }

  override open(ctx: OperatorContext): Promise<void> {
    this.#check.operator = { name: ctx.operatorName, uid: ctx.operatorUid };
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

/** Compares the key type of each input's first record. */
class KeyTypeCheck {
  readonly #types: [string | undefined, string | undefined] = [undefined, undefined];
  readonly #definedAt: string | undefined;
  operator = { name: '(unknown)', uid: '(unknown)' };

  constructor(definedAt: string | undefined) {
    this.#definedAt = definedAt;
  }

  key(input: 0 | 1, key: Key): Key {
    if (this.#types[input] !== undefined) return key;
    this.#types[input] = keyTypeOf(key);
    const [a, b] = this.#types;
    if (a !== undefined && b !== undefined && a !== b) throw new KeyTypeMismatchError(this.operator.name, this.operator.uid, [a, b], this.#definedAt);
    return key;
  }
}

function keyedCoProcessAdapter(fn: KeyedCoProcessFunction<Key, unknown, unknown, unknown>): KeyedProcessFunction<Key, TaggedRecord, unknown> {
  return {
    open: (ctx) => fn.open?.(ctx),
    processElement: (r, ctx, out) => (r.input === 0 ? fn.processElement1(r.value, ctx, out) : fn.processElement2(r.value, ctx, out)),
    onTimer: (t, ctx, out) => fn.onTimer?.(t, ctx, out),
    endInput: (out) => fn.endInput?.(out),
    notifyCheckpointComplete: (id) => fn.notifyCheckpointComplete?.(id),
    notifyCheckpointAborted: (id) => fn.notifyCheckpointAborted?.(id),
    close: () => fn.close?.(),
  };
}
