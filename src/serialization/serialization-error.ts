/** The facts a SerializationError carries; every one is optional because encode and decode know different things. */
export interface SerializationFacts {
  /** Where in the value: `$`, `$.items[3].count`, `$.totals.get("a")`. */
  readonly path?: string;
  /** The declared type there, as describeType writes it. */
  readonly expected?: string;
  /** What the value there actually is, as describeValue writes it (`string "abc"`, `cyclic object`). */
  readonly actual?: string;
  /** Decoding: the byte offset in the input where reading failed. */
  readonly offset?: number;
  /** Added by the caller that knows it: the operator whose records or state these are. */
  readonly operatorUid?: string;
  /** Added by the caller that knows it: the edge the records travel, e.g. `map -> sink`. */
  readonly edge?: string;
  /** Added by a state writer: the name of the state the value belongs to. */
  readonly state?: string;
  /** Added by a keyed state writer: the key whose value it is, as describeValue writes it. */
  readonly key?: string;
}

/**
 * A value that does not fit its declared type, or bytes that are not a value of it. The message
 * says it all; the facts are fields so that callers and tests need not parse it.
 */
export class SerializationError extends Error {
  readonly path: string | undefined;
  readonly expected: string | undefined;
  readonly actual: string | undefined;
  readonly offset: number | undefined;
  readonly operatorUid: string | undefined;
  readonly edge: string | undefined;
  readonly state: string | undefined;
  readonly key: string | undefined;
  /** The reason without the context prefix, so withContext can rebuild the message. */
  readonly problem: string;

  constructor(problem: string, facts: SerializationFacts = {}, options?: { cause?: unknown }) {
    super(contextPrefix(facts) + problem, options);
    this.name = 'SerializationError';
    this.problem = problem;
    this.path = facts.path;
    this.expected = facts.expected;
    this.actual = facts.actual;
    this.offset = facts.offset;
    this.operatorUid = facts.operatorUid;
    this.edge = facts.edge;
    this.state = facts.state;
    this.key = facts.key;
  }

  /** A value at `path` that is not of the declared type. */
  static mismatch(path: string, expected: string, actual: string, cause?: unknown): SerializationError {
    return new SerializationError(`cannot serialize ${path}: expected ${expected}, got ${actual}`, { path, expected, actual }, cause === undefined ? undefined : { cause });
  }

  /** Bytes that cannot be read at `offset`. */
  static corrupt(problem: string, offset: number, cause?: unknown): SerializationError {
    return new SerializationError(`cannot deserialize: ${problem} at offset ${offset}`, { offset }, cause === undefined ? undefined : { cause });
  }

  /** The same error with the operator or edge it happened on; this one is kept as the cause. */
  withContext(context: Pick<SerializationFacts, 'operatorUid' | 'edge' | 'state' | 'key'>): SerializationError {
    return new SerializationError(this.problem, { ...this.facts(), ...context }, { cause: this });
  }

  facts(): SerializationFacts {
    return { path: this.path, expected: this.expected, actual: this.actual, offset: this.offset, operatorUid: this.operatorUid, edge: this.edge, state: this.state, key: this.key };
  }
}

function contextPrefix(facts: SerializationFacts): string {
  const parts: string[] = [];
  if (facts.operatorUid !== undefined) parts.push(`operator uid '${facts.operatorUid}'`);
  if (facts.edge !== undefined) parts.push(`edge ${facts.edge}`);
  if (facts.state !== undefined) parts.push(`state '${facts.state}'`);
  if (facts.key !== undefined) parts.push(`key ${facts.key}`);
  return parts.length > 0 ? `${parts.join(', ')}: ` : '';
}
