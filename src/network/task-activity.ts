/**
 * What a subtask is doing, as its TaskManager reports it: a discriminated union, so that the
 * checkpoint doctor can tell a source stuck in one read from a task held back by backpressure
 * without reading sentences back, and one renderer for the text people see.
 */
export type TaskActivity =
  | { readonly kind: 'starting' }
  | { readonly kind: 'initializing'; readonly restoringCheckpoint?: number }
  /** A source task inside its reader: `reader` is the reader's own description, `subject` what it reads (e.g. a table). */
  | { readonly kind: 'reading'; readonly reader?: string; readonly subject?: string; readonly readerSince?: number }
  | { readonly kind: 'processing' }
  | {
      readonly kind: 'aligning';
      readonly checkpointId: number;
      readonly style: 'aligned' | 'unaligned' | 'at-least-once';
      /** Descriptions of the channels whose barrier has not arrived. */
      readonly waitingFor: readonly string[];
      readonly forMs: number;
    }
  | { readonly kind: 'backpressured' }
  | { readonly kind: 'waiting-for-sink' }
  | { readonly kind: 'snapshotting'; readonly checkpointId: number }
  | { readonly kind: 'finishing-input' }
  | { readonly kind: 'input-finished' }
  | { readonly kind: 'stopped-for-savepoint' }
  /** Awaiting work from the mailbox that has no kind of its own (a commit, closing). */
  | { readonly kind: 'mail'; readonly description: string };

/** An activity with its timing, as carried in TaskMetrics. */
export interface ActivityReport {
  readonly activity: TaskActivity;
  /** Since when (ms since the epoch) the activity has lasted. */
  readonly activitySince: number;
  /** Checkpoints whose state the subtask is still writing, with their start times. */
  readonly writing: ReadonlyArray<{ readonly checkpointId: number; readonly since: number }>;
}

const seconds = (ms: number) => Math.round(ms / 1000);

/**
 * The sentence for an activity. `lastReported`: the TaskManager no longer answers, so this is
 * its last report (the durations still count up to `now`).
 */
export function describeActivity(report: ActivityReport, now: number, lastReported = false): string {
  const a = report.activity;
  const since = a.kind === 'reading' && a.readerSince !== undefined ? a.readerSince : report.activitySince;
  const forS = seconds(now - since);
  const timed = (text: string) => (lastReported ? `${text} (for ${forS} s, as last reported: its TaskManager no longer answers, its thread is blocked)` : forS >= 1 ? `${text} (for ${forS} s)` : text);
  // An alignment says all there is: the barrier it waits for is what holds the checkpoint.
  const writing = a.kind === 'aligning' ? '' : report.writing.map((w) => `; writing the state of checkpoint ${w.checkpointId} (for ${seconds(now - w.since)} s)`).join('');
  return sentence(a, timed, forS) + writing;
}

function sentence(a: TaskActivity, timed: (text: string) => string, forS: number): string {
  switch (a.kind) {
    case 'starting':
      return 'starting';
    case 'initializing':
      return timed(a.restoringCheckpoint !== undefined ? `initializing: restoring the state of checkpoint ${a.restoringCheckpoint}` : 'initializing: opening operators');
    case 'reading':
      return timed(a.reader ?? 'reading');
    case 'processing':
      return timed('processing');
    case 'aligning': {
      const verb = a.style === 'unaligned' ? 'collecting in-flight data of unaligned' : a.style === 'aligned' ? 'aligning' : 'collecting barriers of';
      return `${verb} checkpoint ${a.checkpointId} for ${Math.round(a.forMs)} ms, waiting for the barrier on ${a.waitingFor.join(', ')}`;
    }
    case 'backpressured':
      return `blocked on a full output channel (backpressure from downstream) for ${forS} s`;
    case 'waiting-for-sink':
      return timed('waiting for the sink');
    case 'snapshotting':
      return `taking the synchronous snapshot of checkpoint ${a.checkpointId}`;
    case 'finishing-input':
      return timed('finishing input');
    case 'input-finished':
      return 'input finished, waiting for the job to end';
    case 'stopped-for-savepoint':
      return 'stopped for a savepoint';
    case 'mail':
      return timed(a.description);
  }
}
