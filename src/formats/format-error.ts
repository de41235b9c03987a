/** Why a value could not be written or read in a format: the codes of FormatError. */
export const FORMAT_FAILURES = {
  NOT_JSON: 'the bytes are not JSON text',
  NOT_AN_ENVELOPE: 'the JSON is not an envelope of the format',
  UNKNOWN_OP: 'the change kind is not one the format knows',
  NOT_REPRESENTABLE: 'the value has no representation in the format',
} as const;

export type FormatFailure = keyof typeof FORMAT_FAILURES;

/** A value a format cannot write, or bytes it cannot read: the format, the reason and where (a path in the value) name it. */
export class FormatError extends Error {
  readonly format: string;
  readonly reason: FormatFailure;
  readonly path: string;

  constructor(format: string, reason: FormatFailure, path: string, detail: string, cause?: unknown) {
    super(`${format}: ${FORMAT_FAILURES[reason]} at ${path || 'the top'}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'FormatError';
    this.format = format;
    this.reason = reason;
    this.path = path;
  }
}
