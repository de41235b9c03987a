/** An upload that is not a job bundle: a multipart body without the file, or an empty one. */
export class UploadError extends Error {
  readonly statusCode = 400;

  constructor(message: string) {
    super(message);
    this.name = 'UploadError';
  }
}

/**
 * The bundle of POST /jars/upload: Flink's web UI sends multipart/form-data with the file in the
 * field `jarfile`; weir's CLI sends the bytes themselves, named by a header.
 */
export function parseUpload(contentType: string, body: Buffer | undefined, name: string): { code: Buffer; name: string } {
  if (!body || body.length === 0) throw new UploadError('the upload is empty: send the bundle as multipart/form-data (field jarfile) or as the body itself');
  if (!contentType.startsWith('multipart/form-data')) return { code: body, name: cleanName(name) };
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new UploadError('a multipart upload without a boundary');
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  for (let at = body.indexOf(delimiter); at !== -1; ) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(at + delimiter.length, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const field = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      if (field === 'jarfile' || filename !== undefined) {
        // The part ends with the CRLF that precedes the next delimiter.
        const content = part.subarray(headerEnd + 4, part.length - 2);
        return { code: Buffer.from(content), name: cleanName(filename ?? name) };
      }
    }
    at = next;
  }
  throw new UploadError('the multipart upload has no file part (field jarfile)');
}

function cleanName(name: string): string {
  return (name.split(/[\\/]/).pop() ?? 'job.mjs').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'job.mjs';
}
