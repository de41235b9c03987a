/**
 * Turns the reason a checkpoint failed into advice a person can act on. The reasons name the
 * subtasks that had not acknowledged and what each was doing; the hint says what that means.
 */
export function checkpointHint(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  const hints: string[] = [];
  const read = /'([^']+)' subtask (\d+)\/\d+: (?:reading|inside)(?:[^(;]*?table (\S+))?[^(;]*\(for (\d+) s[),]/.exec(reason);
  if (read) {
    const [, vertex, subtask, table, secs] = read;
    hints.push(
      `source subtask ${Number(subtask) - 1} of '${vertex}' spent ${secs} s inside one read${table ? ` of table ${table}` : ''}; a source must return between records for a barrier to pass: use a smaller chunk size (or a checkpointable source) or raise execution.checkpointing.timeout`,
    );
  }
  if (/waiting for the sink/.test(reason)) {
    hints.push('a sink did not take more input for longer than the checkpoint timeout: the barrier waits behind it; make the sink faster, or raise execution.checkpointing.timeout');
  }
  if (/aligning checkpoint \d+|backpressure from downstream/.test(reason)) {
    hints.push(
      'barriers were stuck behind buffered records (backpressure): enable unaligned checkpoints (--unaligned, or execution.checkpointing.aligned-checkpoint-timeout to switch after a while), or remove the backpressure',
    );
  }
  if (/writing the state of checkpoint|writing the snapshot failed/.test(reason)) {
    hints.push('writing state to the checkpoint storage was slow or failed: check execution.checkpointing.dir (space, permissions, speed)');
  }
  if (/no answer from its TaskManager|did not answer/.test(reason)) {
    hints.push('a TaskManager thread did not answer: user code is blocking the thread in a synchronous call (a busy loop or synchronous I/O); make it asynchronous or shorter');
  }
  if (/declined by .*not running|was initializing/.test(reason)) hints.push('a subtask was not running yet (starting or restoring)');
  return hints.length > 0 ? hints.join('; ') : undefined;
}
