import type { ExecutionState, TaskCountsView, TaskStatus } from './rest-views.ts';

/** Flink's states in its own order (ExecutionState's), which its clients expect every one of. */
export const EXECUTION_STATES: readonly ExecutionState[] = ['CREATED', 'SCHEDULED', 'DEPLOYING', 'RUNNING', 'FINISHED', 'CANCELING', 'CANCELED', 'FAILED', 'RECONCILING', 'INITIALIZING'];

/**
 * A subtask's TaskStatus as Flink's ExecutionState. `end-of-data` is RUNNING: Flink's task whose
 * input ended is running until its final checkpoint lets it finish, as weir's is.
 */
export function executionState(status: TaskStatus | undefined): ExecutionState {
  switch (status) {
    case undefined:
      return 'CREATED';
    case 'initializing':
      return 'INITIALIZING';
    case 'running':
    case 'end-of-data':
      return 'RUNNING';
    case 'finished':
      return 'FINISHED';
    case 'failed':
      return 'FAILED';
    case 'canceled':
      return 'CANCELED';
  }
}

export function countStates(states: readonly ExecutionState[]): Record<ExecutionState, number> {
  const counts = Object.fromEntries(EXECUTION_STATES.map((s) => [s, 0])) as Record<ExecutionState, number>;
  for (const s of states) counts[s]++;
  return counts;
}

/** JobDetails' `tasks`: the same counts under lower-case names, with the total. */
export function taskCounts(states: readonly ExecutionState[]): TaskCountsView {
  const counts = countStates(states);
  return { total: states.length, ...(Object.fromEntries(EXECUTION_STATES.map((s) => [s.toLowerCase(), counts[s]])) as Record<Lowercase<ExecutionState>, number>) };
}

/** A vertex's state from its subtasks', in the precedence of Flink's ExecutionJobVertex.getAggregateJobVertexState. */
export function aggregateState(states: readonly ExecutionState[]): ExecutionState {
  const counts = countStates(states);
  if (states.length > 0 && counts.FINISHED === states.length) return 'FINISHED';
  for (const s of ['CANCELING', 'CANCELED', 'FAILED', 'RUNNING', 'INITIALIZING', 'DEPLOYING', 'SCHEDULED', 'RECONCILING', 'FINISHED'] as const) if (counts[s] > 0) return s;
  return 'CREATED';
}
