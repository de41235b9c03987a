/**
 * A watermark in a control message: messages may cross processes as JSON, which has no
 * infinities, so -Infinity ("none yet") is null and Infinity (the end of event time) is
 * Number.MAX_VALUE. Watermarks in channels are MessagePack and stay as they are.
 */
export type WireWatermark = number | null;

export function encodeWatermark(watermark: number): WireWatermark {
  if (watermark === -Infinity) return null;
  return watermark === Infinity ? Number.MAX_VALUE : watermark;
}

export function decodeWatermark(wire: WireWatermark | undefined): number {
  if (wire === null || wire === undefined) return -Infinity;
  return wire === Number.MAX_VALUE ? Infinity : wire;
}
