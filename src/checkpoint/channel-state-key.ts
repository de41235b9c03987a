import { isKeyIndex, readKeyIndex } from '../ids/key-index.ts';
import { MalformedKeyError } from '../ids/malformed-key-error.ts';

/**
 * The name under which one channel's in-flight data is filed in an unaligned checkpoint (the keys
 * of `inputChannels` and `outputChannels` in `_metadata`): the job edge, and the channel on it as
 * the subtask sees it (the producer for an input channel, the consumer for an output channel).
 * Built and read only here; the text is the one stored checkpoints hold, so they restore as before.
 */
export type ChannelStateKey = string & { readonly __brand: 'ChannelStateKey' };

const FORM = '<edge id>:<channel>';

export function channelStateKey(edgeId: number, channel: number): ChannelStateKey {
  if (!isKeyIndex(edgeId) || !isKeyIndex(channel)) throw new MalformedKeyError('channel state key', `${edgeId}:${channel}`, FORM);
  return `${edgeId}:${channel}` as ChannelStateKey;
}

/** The parts of a channel state key; a text that is not one is refused with a MalformedKeyError. */
export function parseChannelStateKey(key: ChannelStateKey | string): { readonly edgeId: number; readonly channel: number } {
  const at = key.indexOf(':');
  const edgeId = at > 0 ? readKeyIndex(key.slice(0, at)) : undefined;
  const channel = at > 0 ? readKeyIndex(key.slice(at + 1)) : undefined;
  if (edgeId === undefined || channel === undefined) throw new MalformedKeyError('channel state key', key, FORM);
  return { edgeId, channel };
}

/** A key that came as text (from `_metadata`, or a caller that built it itself), checked and typed. */
export function toChannelStateKey(text: string): ChannelStateKey {
  const { edgeId, channel } = parseChannelStateKey(text);
  return channelStateKey(edgeId, channel);
}
