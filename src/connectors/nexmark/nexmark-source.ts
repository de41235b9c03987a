import { WatermarkStrategy } from '../../api/watermark-strategy.ts';
import { DataGenSource } from '../datagen/datagen-source.ts';
import { NexmarkGenerator } from './nexmark-generator.ts';
import type { NexmarkEvent } from './nexmark-model.ts';
import { maxDelayEvents, maxOutOfOrdernessMs, resolveNexmarkOptions, type NexmarkOptions } from './nexmark-options.ts';

/**
 * Nexmark's events as a weir source: event numbers 0, 1, 2, ... dealt to lanes (one split per
 * source subtask: lane l reads l, l + lanes, ...), each lane a split with its own watermarks, its
 * position in the checkpoint, so a restore resumes at the exact event (the same events, since
 * each is made from its event id alone). Bounded when `events` is given; `ratePerSecond` paces it.
 * With `probDelayedEvent`, some events are held back and sent late (still exactly replayed).
 */
export type NexmarkSource = DataGenSource<NexmarkEvent>;

export const Nexmark = {
  source(options: NexmarkOptions = {}): NexmarkSource {
    const config = resolveNexmarkOptions(options);
    // Built on first use: the job module also runs where the graph is only planned (the
    // coordinator), which never reads events and need not build the generator's tables.
    let gen: NexmarkGenerator | undefined;
    const g = () => (gen ??= new NexmarkGenerator(config));
    return new DataGenSource<NexmarkEvent>({
      generate: (n) => g().eventAt(n),
      eventTime: (n) => g().timestampOf(n),
      ...(config.probDelayedEvent > 0 ? { holdBack: { delay: (n: number) => g().delayOf(n), maxDelay: maxDelayEvents(config) } } : {}),
      ...(config.events !== undefined ? { count: config.events } : {}),
      ...(config.ratePerSecond !== undefined ? { ratePerSecond: config.ratePerSecond } : {}),
    });
  },

  /**
   * Watermarks for the source's event times: bounded out-of-orderness by exactly the span of an
   * out-of-order group, so no event is ever late (in order by default: a bound of 0), except the
   * delayed events of `probDelayedEvent`, which are meant to be.
   */
  watermarks(options: NexmarkOptions = {}): WatermarkStrategy<NexmarkEvent> {
    return WatermarkStrategy.forBoundedOutOfOrderness<NexmarkEvent>(maxOutOfOrdernessMs(resolveNexmarkOptions(options)));
  },
};
