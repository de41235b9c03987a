/**
 * An error as it crosses a thread or process boundary: plain data with the facts the JobMaster
 * acts on (which subtask, whether to restart, whether a TaskManager was lost). The cause chain
 * travels as text in the stack.
 */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly vertex?: string;
  readonly subtask?: number;
  readonly operator?: string;
  readonly uid?: string;
  /** The error says the job cannot run as defined (Flink's SuppressRestartsException): no restart. */
  readonly unrecoverable?: boolean;
  /** A failure made on purpose (fault injection): counted as such, not as a fault of the job. */
  readonly injected?: boolean;
  /** A TaskManager was lost (TaskManagerLostError): which one, so a restart under way stops waiting for it. */
  readonly taskManager?: number;
}

export function serializeError(error: unknown, extra: Partial<SerializedError> = {}): SerializedError {
  if (error instanceof Error) {
    const facts = error as Error & Partial<SerializedError>;
    const stack = stackWithCauses(error);
    return {
      name: error.name,
      message: error.message,
      ...(stack !== undefined ? { stack } : {}),
      ...pick(facts),
      ...extra,
    };
  }
  return { name: 'Error', message: String(error), ...extra };
}

/** The stack and its causes' stacks after it (Java's "Caused by:"): the cause objects do not cross threads. */
function stackWithCauses(error: Error): string | undefined {
  let stack = error.stack;
  let cause = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 8; depth++, cause = cause.cause) {
    const caused = `Caused by: ${cause.stack ?? `${cause.name}: ${cause.message}`}`;
    // An error that writes its cause into its own stack (OperatorFailure) has it once, not twice.
    if (stack?.includes(caused)) continue;
    stack = `${stack ?? `${error.name}: ${error.message}`}\n${caused}`;
  }
  return stack;
}

function pick(e: Partial<SerializedError>): Partial<SerializedError> {
  const out: { -readonly [K in keyof SerializedError]?: SerializedError[K] } = {};
  if (typeof e.vertex === 'string') out.vertex = e.vertex;
  if (typeof e.subtask === 'number') out.subtask = e.subtask;
  if (typeof e.operator === 'string') out.operator = e.operator;
  if (typeof e.uid === 'string') out.uid = e.uid;
  if (e.unrecoverable === true) out.unrecoverable = true;
  if (e.injected === true) out.injected = true;
  if (typeof e.taskManager === 'number') out.taskManager = e.taskManager;
  return out;
}
