/**
 * How records lie in fixed-size segments (32 KiB network buffers), as SegmentWriter writes them
 * and SegmentReader reads them. The first byte of a segment says what follows; the segment's
 * used length travels beside it (the transport knows how much it filled).
 *
 *   RECORDS     records back to back up to the used length. Records are self-delimiting (the
 *               codec reads exactly what it wrote), so there is no per-record length.
 *   SPAN_FIRST  u32 LE total length L of one record too large for a segment, then its first
 *               bytes up to the used length.
 *   SPAN_NEXT   the record's next bytes; once L have arrived, records follow as in RECORDS.
 *
 * A record that does not fit the rest of a segment moves whole to the next one; only a record
 * larger than an empty segment spans. So one header byte per segment is the whole overhead.
 */
export const RECORDS = 0x01;
export const SPAN_FIRST = 0x02;
export const SPAN_NEXT = 0x03;

export const SEGMENT_HEADER = 1;
export const SPAN_HEADER = 5;

/** Flink's network buffer size, and weir's. */
export const SEGMENT_SIZE = 32 * 1024;
