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
  option('taskmanager.network.memory.buffer-debloat.enabled').booleanType().defaultValue(false)
    .withDescription(
      "Buffer debloating (FLIP-183) on the channels between TaskManagers: each receiving subtask measures how fast it consumes its input and lets each channel hold only what it consumes in buffer-debloat.target (fewer segments in flight, then smaller ones), so an aligned barrier waits about that long behind backpressured data and an unaligned checkpoint persists little.",
    ),
  option('taskmanager.network.memory.buffer-debloat.target').durationType().between(1, TIMER_MAX_MS).defaultValue(1000)
    .withDescription('How long the data in flight on a debloated input should take to consume.'),
  option('taskmanager.network.memory.buffer-debloat.period').durationType().between(10, TIMER_MAX_MS).defaultValue(200)
    .withDescription('How often the throughput is measured and the channels are resized.'),
  option('taskmanager.network.memory.buffer-debloat.samples').intType().between(1, 1000).defaultValue(20)
    .withDescription('Throughput measurements averaged (exponentially) into the size: more samples react more slowly.'),
  option('taskmanager.network.record-blocks').booleanType().defaultValue(true)
    .withDescription(
      'Records of a declared struct type of three fields or more cross TaskManager threads and processes by column, a block per segment (numbers at a fixed width, strings apart from their lengths), instead of one after another: a Nexmark bid costs about a fifth less CPU to send and receive (npm run bench -- exchange). weir only.',
    ),
] as const;
