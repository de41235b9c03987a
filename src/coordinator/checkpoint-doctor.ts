import type { CheckpointFailureReport, PendingSubtask } from '../checkpoint/checkpoint-failure-reason.ts';

/**
 * Turns why a checkpoint failed into advice a person can act on: from the failure's code and
 * what each subtask that had not acknowledged was doing.
 */
export function checkpointHint(failure: CheckpointFailureReport | undefined): string | undefined {
  if (!failure) return undefined;
  const now = failure.at ?? Date.now();
  const hints = new Set<string>();
  for (const p of failure.pending ?? []) for (const h of subtaskHints(p, now)) hints.add(h);
  if (failure.code === 'TASK_CHECKPOINT_FAILURE' || failure.code === 'FINALIZE_CHECKPOINT_FAILURE') hints.add(STORAGE);
  if (failure.code === 'IO_EXCEPTION') hints.add('the checkpoint id counter of the high-availability store did not answer: check that the NATS servers of high-availability.nats.servers are reachable');
  if (failure.code === 'CHECKPOINT_DECLINED_TASK_NOT_READY') hints.add('a subtask was not running yet (starting or restoring)');
  return hints.size > 0 ? [...hints].join('; ') : undefined;
}

const STORAGE = 'writing state to the checkpoint storage was slow or failed: check execution.checkpointing.dir (space, permissions, speed)';
const UNALIGNED =
  'barriers were stuck behind buffered records (backpressure): enable unaligned checkpoints (--unaligned, or execution.checkpointing.aligned-checkpoint-timeout to switch after a while), or remove the backpressure';

function subtaskHints(p: PendingSubtask, now: number): string[] {
  const hints: string[] = [];
  if (p.silent || !p.report) {
    hints.push('a TaskManager thread did not answer: user code is blocking the thread in a synchronous call (a busy loop or synchronous I/O); make it asynchronous or shorter');
  }
  if (p.report && p.report.writing.length > 0) hints.push(STORAGE);
  const a = p.report?.activity;
  switch (a?.kind) {
    case 'reading': {
      const secs = Math.round((now - (a.readerSince ?? p.report!.activitySince)) / 1000);
      if (p.isSource && secs >= 1) {
        hints.push(
          `source subtask ${p.subtask} of '${p.vertex}' spent ${secs} s inside one read${a.subject ? ` of ${a.subject}` : ''}; a source must return between records for a barrier to pass: use a smaller chunk size (or a checkpointable source) or raise execution.checkpointing.timeout`,
        );
      }
      break;
    }
    case 'waiting-for-sink':
      hints.push('a sink did not take more input for longer than the checkpoint timeout: the barrier waits behind it; make the sink faster, or raise execution.checkpointing.timeout');
      break;
    case 'aligning':
      if (a.style === 'aligned') hints.push(UNALIGNED);
      break;
    case 'backpressured':
      hints.push(UNALIGNED);
      break;
  }
  return hints;
}
