import type { CheckpointableTask } from './checkpointing/checkpointable-task.ts';
import type { MailboxProcessor } from './mailbox-processor.ts';
import type { OperatorChain } from './operator-chain.ts';
import { SourceOperator } from './operators/source-operator.ts';
import type { RecoveredChannelState } from './recovered-channel-state.ts';
import { SourceInput } from './source-input.ts';
import type { TaskInput } from './task-input.ts';
import { createNetworkInput } from './task-network-input.ts';
import type { TaskSetup } from './task-setup.ts';

export interface TaskInputParts {
  readonly setup: TaskSetup;
  readonly chain: OperatorChain;
  readonly recovered: RecoveredChannelState;
  readonly mailbox: MailboxProcessor;
  /** Where barriers lead: the task's snapshot, or the abort of a checkpoint. */
  readonly checkpoints: CheckpointableTask;
  readonly toEnumerator: ConstructorParameters<typeof SourceInput>[2];
  readonly fail: (error: unknown) => void;
}

/** What a task reads, by what heads its chain: a source operator reads its splits, any other operator its input channels. */
export function createTaskInput(p: TaskInputParts): TaskInput {
  const head = p.chain.head;
  if (head instanceof SourceOperator) return new SourceInput(head, p.setup.splits, p.toEnumerator, p.mailbox, p.fail);
  if (!p.setup.gate) throw new Error(`'${p.setup.vertex.name}' has no source operator at its head and no input channels`);
  return createNetworkInput(p.setup.gate, p.setup, p.chain, p.recovered, p.mailbox.mailbox, p.checkpoints);
}
