import { option, TIMER_MAX_MS } from '../config-option.ts';

/** Detecting lost TaskManagers and subtasks that do not stop. */
export const HEARTBEAT_OPTIONS = [
  option('heartbeat.interval').durationType().between(1, TIMER_MAX_MS).defaultValue(10_000)
    .withDescription('Time between heartbeats the JobMaster sends each TaskManager thread or slot, and a JobManager process each TaskManager process.'),
  option('heartbeat.timeout').durationType().between(1, TIMER_MAX_MS).defaultValue(50_000)
    .withDescription(
      'A TaskManager that has not answered a heartbeat for this long is lost (its thread is blocked, its process died or hangs, its host is cut off): its subtasks fail and it is replaced. A TaskManager process that has heard no heartbeat from its JobManager for this long cancels its subtasks and registers again.',
    ),
  option('task.cancellation.timeout').durationType().atMost(TIMER_MAX_MS).defaultValue(180_000)
    .withDescription('Subtasks that have not stopped this long after a cancel take their TaskManager with them (it is ended and replaced); 0 waits forever.'),
] as const;
