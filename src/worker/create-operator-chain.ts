import { heapStateBackend } from '../state/heap-state-backend.ts';
import { noteRestoredChain } from '../state/incremental/restored-chain.ts';
import { keyGroupRangeForSubtask } from '../state/key-group.ts';
import { OperatorChain } from './operator-chain.ts';
import type { OperatorMails } from './operator-mails.ts';
import type { ProcessingTimeService } from './processing-time-service.ts';
import type { TaskSetup } from './task-setup.ts';

/**
 * A task's operator chain: its key-group range, its restored state (read from `restoreLocation()`,
 * which a staged restore moves, and the restored incremental chain noted for the next checkpoint
 * to build on) and the task's services.
 */
export function createOperatorChain(setup: TaskSetup, services: { readonly processingTime: ProcessingTimeService; readonly mails: OperatorMails; readonly restoreLocation: () => string }): OperatorChain {
  return new OperatorChain({
    jobId: setup.jobId,
    attempt: setup.attempt,
    vertex: setup.vertex,
    subtask: setup.subtask,
    keyGroupRange: keyGroupRangeForSubtask(setup.subtask, setup.vertex.parallelism, setup.vertex.maxParallelism),
    writers: setup.writers,
    restore: setup.restore?.operators,
    restoreKeyed: (backend, state) => setup.storage.restoreKeyed(backend, state, services.restoreLocation()).then(() => noteRestoredChain(backend, state, setup.restore)),
    processingTime: services.processingTime,
    autoWatermarkInterval: setup.autoWatermarkInterval ?? 200,
    ...(setup.checkpointing ? { checkpointing: setup.checkpointing } : {}),
    mails: services.mails,
    stateBackend: setup.stateBackend ?? heapStateBackend,
  });
}
