import type { Stoppable, StopReason } from '../lifecycle/service.ts';

/** Who leads, as LeaderRetrieval reports it: the leader's published address with its session and epoch. */
export interface LeaderInformation {
  readonly sessionId: string;
  readonly epoch: number;
  readonly address: string;
}

/**
 * Flink's LeaderRetrievalService: follows the current leader's address (TaskManagers and clients
 * find the JobManager through it). `null`: no leader now (none elected, released, or its lease
 * expired by this process's clock). Started with its listener, stopped once.
 */
export interface LeaderRetrieval extends Stoppable {
  start(listener: (leader: LeaderInformation | null) => void): void;
  stop(reason: StopReason): Promise<void>;
}
