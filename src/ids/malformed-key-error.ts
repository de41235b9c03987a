/**
 * A text read as a task, channel or channel state key that does not have its form: the key came
 * from somewhere it was not built by its own function (a corrupt file, a message of another version).
 */
export class MalformedKeyError extends Error {
  /** Which key it was read as, e.g. 'task key'. */
  readonly kind: string;
  readonly key: string;
  /** The form that kind of key has, e.g. '<vertex id>:<subtask>'. */
  readonly expected: string;
  constructor(kind: string, key: string, expected: string) {
    super(`not a ${kind}: '${key}' (expected '${expected}')`);
    this.name = 'MalformedKeyError';
    this.kind = kind;
    this.key = key;
    this.expected = expected;
  }
}
