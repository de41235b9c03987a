/**
 * A bucket weir will not use: OTHER_CLUSTER (another high-availability.cluster-id writes it),
 * INCOMPATIBLE_LAYOUT (a weir with another record layout wrote it), NOT_WEIR (its marker is not
 * weir's). Two clusters sharing one bucket would take each other's leadership and pointers.
 */
export type BucketLayoutFailure = 'OTHER_CLUSTER' | 'INCOMPATIBLE_LAYOUT' | 'NOT_WEIR';

export class BucketLayoutError extends Error {
  readonly reason: BucketLayoutFailure;
  readonly bucket: string;
  readonly expected: { readonly clusterId: string; readonly layout: number };
  readonly found: { readonly clusterId?: string; readonly layout?: number };
  constructor(reason: BucketLayoutFailure, bucket: string, expected: BucketLayoutError['expected'], found: BucketLayoutError['found']) {
    const why =
      reason === 'OTHER_CLUSTER'
        ? `it belongs to cluster '${found.clusterId}', this is cluster '${expected.clusterId}' (high-availability.cluster-id); give each cluster its own bucket`
        : reason === 'INCOMPATIBLE_LAYOUT'
          ? `it was written with weir's layout version ${found.layout}, this weir uses version ${expected.layout}`
          : 'its layout marker is not a weir one';
    super(`NATS bucket '${bucket}' refused: ${why}`);
    this.name = 'BucketLayoutError';
    this.reason = reason;
    this.bucket = bucket;
    this.expected = expected;
    this.found = found;
  }
}
