import type { CheckpointableTask } from './checkpointing/checkpointable-task.ts';
import { BarrierHandler } from './checkpointing/barrier-handler.ts';
import type { BarrierMode } from './checkpointing/barrier-mode.ts';
import type { InputGate } from './input-gate.ts';
import type { Mailbox } from './mailbox.ts';
import { NetworkInput } from './network-input.ts';
import type { OperatorChain } from './operator-chain.ts';
import type { RecoveredChannelState } from './recovered-channel-state.ts';

/**
 * The input of a task fed by the network: its gate wakes the task, barriers go to a barrier
 * handler (whose aligned-checkpoint timeout is checked as mail), records and watermarks to the
 * chain's head.
 */
export function createNetworkInput(
  gate: InputGate,
  setup: { readonly barrierMode: BarrierMode; readonly wake: () => void },
  chain: OperatorChain,
  recovered: RecoveredChannelState,
  mailbox: Mailbox,
  task: CheckpointableTask,
): { input: NetworkInput; barriers: BarrierHandler } {
  gate.onData = setup.wake;
  const barriers: BarrierHandler = new BarrierHandler(gate, setup.barrierMode, task, () => mailbox.put({ description: 'aligned checkpoint timeout', run: () => barriers.checkTimeout() }));
  const input = new NetworkInput(gate, barriers, chain.input, recovered, chain.timestamps, {
    emitWatermark: (watermark) => chain.processWatermark(watermark),
    emitWatermarkStatus: (idle) => chain.processWatermarkStatus(idle),
  });
  return { input, barriers };
}
