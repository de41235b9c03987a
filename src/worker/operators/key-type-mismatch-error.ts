/**
 * The two inputs of a keyed two-input operator give keys of different types (Flink refuses such a
 * connect when the job is built; here the key types are seen with the first record of each
 * input). Records of one key would never meet: the job fails at once.
 */
export class KeyTypeMismatchError extends Error {
  readonly operator: string;
  readonly uid: string;
  /** The key type of input 1 and of input 2 (typeof, or 'array' / 'null'). */
  readonly keyTypes: readonly [string, string];
  /** Where the user connected the streams. */
  readonly definedAt: string | undefined;
  readonly unrecoverable = true;

  constructor(operator: string, uid: string, keyTypes: readonly [string, string], definedAt: string | undefined) {
    super(
      `operator '${operator}' (uid ${uid}) connects two keyed streams whose keys differ in type: input 1 gives ${keyTypes[0]} keys, input 2 gives ${keyTypes[1]} keys, so no record of one ever meets the other's; make both keyBy selectors return the same type${definedAt ? ` (connected at ${definedAt})` : ''}`,
    );
    this.name = 'KeyTypeMismatchError';
    this.operator = operator;
    this.uid = uid;
    this.keyTypes = keyTypes;
    this.definedAt = definedAt;
  }
}

/** The type of a key as the mismatch check compares it. */
export function keyTypeOf(key: unknown): string {
  if (key === null) return 'null';
  return Array.isArray(key) ? 'array' : typeof key;
}
