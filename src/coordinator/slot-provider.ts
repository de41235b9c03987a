import type { SlotExecutorConnection } from './slot-executor-connection.ts';

/**
 * Where a job's TaskManagers come from in a cluster (Flink's SlotPool, seen from the JobMaster):
 * slots of TaskManager processes, each a worker thread with the job loaded. The JobMaster asks
 * for the indexes it needs; the provider waits up to slot.request.timeout for enough free slots.
 */
export interface SlotProvider {
  /**
   * Connections to fresh slots for the job's executors `indexes`, in that order, each ready (its
   * thread has built the job graph). Rejects with the reason, naming how many slots were needed
   * and how many were offered, when not enough came in time.
   */
  allocate(indexes: readonly number[]): Promise<SlotExecutorConnection[]>;
  /** The job has ended: its slots go back to the cluster, and nothing more is asked. */
  close(): Promise<void>;
}
