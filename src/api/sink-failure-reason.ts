/**
 * Why a sink failed the job: a code, whether a restart can help, and what it means. A failure no
 * restart can fix (a record the target refuses, a table that does not fit) would fail the same way
 * on every replay, so it fails the job at once.
 */
export const SINK_FAILURE_REASONS = {
  COMMIT_RETRIES_EXHAUSTED: { restartable: true, message: 'committing kept failing through every retry (the target was unavailable too long)' },
  COMMIT_REFUSED: { restartable: false, message: 'the target refused the commit for a reason no retry can fix' },
  PRE_COMMIT_FAILED: { restartable: true, message: "the pre-commit (flush, prepare) failed: what was staged for the checkpoint is lost and is replayed from the last one" },
  RECORD_REFUSED: { restartable: false, message: 'the target refused a record (a constraint, a type, a length): it would be refused again on every replay' },
  TARGET_MISMATCH: { restartable: false, message: "the target does not fit the sink's records (a missing column, a type that cannot hold the field)" },
  SCHEMA_CHANGE_REFUSED: { restartable: false, message: "a schema change the sink's schema.change.behavior does not allow (exception), or one no sink table can take: every replay brings it again" },
  SCHEMA_CHANGE_INVALID: { restartable: false, message: 'the target refuses the statements made for a schema change whatever its data (a key too long, a type or size it does not have): every replay would run them again' },
  SCHEMA_CHANGE_FAILED: { restartable: true, message: 'applying a schema change to the target failed (evolve): the job restarts from its checkpoint and applies it again, once' },
  TARGET_UNSUPPORTED: { restartable: false, message: 'the target lacks what the sink needs (prepared transactions disabled, a missing key)' },
} as const satisfies Record<string, { readonly restartable: boolean; readonly message: string }>;

export type SinkFailureCode = keyof typeof SINK_FAILURE_REASONS;
