import { parseChannelStateKey } from '../checkpoint/channel-state-key.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { CheckpointableTask } from './checkpointing/checkpointable-task.ts';
import { BarrierHandler } from './checkpointing/barrier-handler.ts';
import type { BarrierMode } from './checkpointing/barrier-mode.ts';
import type { InputGate } from './input-gate.ts';
import type { Mailbox } from './mailbox.ts';
import { NetworkInput, type NetworkInputTargets } from './network-input.ts';
import type { OperatorChain } from './operator-chain.ts';
import type { RecoveredChannelState } from './recovered-channel-state.ts';

/**
 * The input of a task fed by the network: its gate wakes the task, barriers go to one barrier
 * handler over all channels of all inputs (whose aligned-checkpoint timeout is checked as mail),
 * records to the head's input their channel's edge feeds, watermarks to the chain's head.
 */
export function createNetworkInput(
  gate: InputGate,
  setup: { readonly barrierMode: BarrierMode; readonly wake: () => void; readonly vertex: JobVertex },
  chain: OperatorChain,
  recovered: RecoveredChannelState,
  mailbox: Mailbox,
  task: CheckpointableTask,
): NetworkInput {
  gate.onData = setup.wake;
  const barriers: BarrierHandler = new BarrierHandler(gate, setup.barrierMode, task, () => mailbox.put({ description: 'aligned checkpoint timeout', run: () => barriers.checkTimeout() }));
  return new NetworkInput(gate, barriers, networkInputTargets(gate, setup.vertex, chain), recovered, chain.timestamps, {
    emitWatermark: (watermark) => chain.processWatermark(watermark),
    emitWatermarkStatus: (idle) => chain.processWatermarkStatus(idle),
  });
}

/** Which head input each channel feeds: the input index of the job edge the channel belongs to. */
export function networkInputTargets(gate: InputGate, vertex: JobVertex, chain: OperatorChain): NetworkInputTargets {
  const inputOfEdge = new Map(vertex.inputs.map((e) => [e.id, e.inputIndex]));
  const inputOfChannel = Uint8Array.from(gate.channels, (c) => inputOfEdge.get(parseChannelStateKey(c.key).edgeId) ?? 0);
  return { heads: chain.inputs, inputOfChannel, inputOfEdge, inputEnded: (input) => chain.endInputOf(input) };
}
