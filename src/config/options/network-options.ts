import { option, TIMER_MAX_MS } from '../config-option.ts';

/** Buffers and credits of the channels between subtasks. */
export const NETWORK_OPTIONS = [
  option('taskmanager.network.buffer-records').intType().atLeast(1).defaultValue(512)
    .withDescription('Records per buffer of a channel within one TaskManager (records handed over as objects, in batches of this many).'),
  option('taskmanager.network.credits-per-channel').intType().atLeast(1).defaultValue(16)
    .withDescription('Buffers a receiver grants each input channel within one TaskManager: what may be in flight before the sender blocks.'),
  option('taskmanager.memory.segment-size').memoryType().between(1024, 16 * 1024 * 1024)
    .satisfies((bytes) => (bytes % 8 === 0 ? undefined : 'must be a multiple of 8 bytes'))
    .defaultValue(32 * 1024)
    .withDescription(
      "Size of a network buffer between TaskManagers (a segment of a channel's shared-memory ring): records are serialized into it and it leaves when full, at a barrier, at end of input or after the buffer timeout.",
    ),
  option('taskmanager.network.memory.buffers-per-channel').intType().between(1, 1024)
    .satisfies((n) => ((n & (n - 1)) === 0 ? undefined : `must be a power of two (1, 2, 4, 8, ...), got ${n}`))
    .defaultValue(8)
    .withDescription(
      'Segments of each channel between TaskManagers (a power of two): its credits, what may be in flight before the sender blocks. A blocked sender is woken when half are free again (a cross-thread wake-up costs microseconds). Flink has 2 per channel plus 8 floating per gate; weir has no floating buffers.',
    ),
  option('execution.buffer-timeout.interval').durationType().between(0, TIMER_MAX_MS).defaultValue(100)
    .withDescription('A partly filled network buffer leaves after this long (and whenever its task runs out of input); 0 sends every record at once.')
    .withDeprecatedKeys('execution.buffer-timeout'),
] as const;
