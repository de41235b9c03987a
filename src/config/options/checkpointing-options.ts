import { option, TIMER_MAX_MS } from '../config-option.ts';
import { CONSISTENCY_MODES } from '../consistency-mode.ts';

/** When and how checkpoints are taken, kept and stored. */
export const CHECKPOINTING_OPTIONS = [
  option('execution.checkpointing.interval').durationType().between(10, TIMER_MAX_MS).noDefaultValue()
    .withDescription('Time between checkpoint triggers. Unset: checkpointing is off.'),
  option('execution.checkpointing.interval-during-backlog').durationType().atMost(TIMER_MAX_MS).noDefaultValue()
    .withDescription('Interval while a source reports a backlog (e.g. a CDC table snapshot); 0 means no checkpoints during backlog.'),
  option('execution.checkpointing.mode').enumType(CONSISTENCY_MODES).defaultValue('exactly-once')
    .withDescription('Consistency level: exactly-once aligns barriers, at-least-once does not, at-most-once takes no checkpoints.'),
  option('execution.checkpointing.timeout').durationType().between(1, TIMER_MAX_MS).defaultValue(10 * 60_000)
    .withDescription('A checkpoint not complete after this long expires.'),
  option('execution.checkpointing.min-pause').durationType().atMost(TIMER_MAX_MS).defaultValue(0)
    .withDescription('Least time between the end of one checkpoint and the trigger of the next.'),
  option('execution.checkpointing.max-concurrent-checkpoints').intType().atLeast(1).defaultValue(1).withDescription('Checkpoints in flight at once.'),
  option('execution.checkpointing.tolerable-failed-checkpoints').intType().atLeast(0).defaultValue(0)
    .withDescription('Consecutive failed (expired or declined) checkpoints tolerated before the job fails over.'),
  option('execution.checkpointing.incremental').booleanType().defaultValue(false)
    .withDescription(
      'Incremental checkpoints: each keyed operator subtask writes only the entries changed since the checkpoint it builds on, into files under the job\'s shared/ ' +
        'that later checkpoints reference too (reference-counted, deleted once no retained checkpoint needs them). Savepoints stay full and self-contained. ' +
        'Both backends write deltas: lmdb of the keys written to its store, heap of the keys its tables changed (a changelog of keys, the values copied at the checkpoint).',
    )
    .withDeprecatedKeys('state.backend.incremental'),
  option('execution.checkpointing.incremental.max-deltas').intType().between(1, 10_000).defaultValue(10)
    .withDescription(
      'Incremental checkpoints: how many deltas follow a full base before a checkpoint writes a full base again (also when the deltas grow larger than their base), ' +
        'which bounds what a restore reads.',
    ),
  option('execution.state-recovery.claim-mode').enumType(['NO_CLAIM', 'CLAIM']).defaultValue('NO_CLAIM')
    .withDescription(
      'Who owns a retained checkpoint a job is started from (-s): NO_CLAIM, the job never deletes it or the shared files it names, and its first checkpoint ' +
        'writes its own files (a full one); CLAIM, the job retains it as its own and deletes it, with the shared files only it names, once subsumed ' +
        '(then other checkpoints of the job that took it may no longer restore); with incremental checkpoints its next checkpoints build on the claimed chain where it lies, and its shared files go once no retained checkpoint names them. ' +
        'Savepoints are never claimed. A job\'s own checkpoints (after a failover or a JobManager restart) are always its own. weir run --claim-mode sets it.',
    )
    .withDeprecatedKeys('execution.savepoint-restore-mode'),
  option('execution.checkpointing.num-retained').intType().atLeast(1).defaultValue(1).withDescription('Completed checkpoints kept on storage.')
    .withDeprecatedKeys('state.checkpoints.num-retained'),
  option('execution.checkpointing.fallback-past-committed').enumType(['fail', 'allow']).defaultValue('fail')
    .withDescription(
      'A restart whose latest checkpoint cannot be restored (a damaged file) falls back to an older retained one; when a two-phase-commit sink already committed ' +
        'the newer output, that output would be committed twice: fail (the job fails, naming the file) or allow (falls back, logged as an error). ' +
        'Sinks that declare idempotentCommits never stop a fallback. weir run --allow-duplicating-fallback sets allow.',
    ),
  option('execution.checkpointing.externalized-checkpoint-retention').enumType(['DELETE_ON_CANCELLATION', 'RETAIN_ON_CANCELLATION']).defaultValue('DELETE_ON_CANCELLATION')
    .withDescription(
      'Whether retained checkpoints are deleted when the job is cancelled (a failed job always keeps them; a finished one deletes them).',
    ),
  option('execution.checkpointing.dir').stringType().noDefaultValue()
    .withDescription('Checkpoint storage directory. Unset: checkpoints are written under a temporary directory and deleted at the end.')
    .withDeprecatedKeys('state.checkpoints.dir'),
  option('execution.checkpointing.savepoint-dir').stringType().noDefaultValue().withDescription('Default savepoint directory.')
    .withDeprecatedKeys('state.savepoints.dir'),
  option('execution.checkpointing.unaligned.enabled').booleanType().defaultValue(false)
    .withDescription(
      'Unaligned checkpoints: barriers overtake in-flight data, which is stored with the checkpoint (exactly-once, max-concurrent-checkpoints 1).',
    )
    .withDeprecatedKeys('execution.checkpointing.unaligned'),
  option('execution.checkpointing.aligned-checkpoint-timeout').durationType().atMost(TIMER_MAX_MS).defaultValue(0)
    .withDescription('With unaligned checkpoints on: start aligned and switch to unaligned after this long; 0 means always unaligned.')
    .withDeprecatedKeys('execution.checkpointing.alignment-timeout'),
] as const;
