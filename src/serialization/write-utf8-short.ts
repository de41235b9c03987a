/**
 * Writes s as UTF-8 at buf[pos] and returns the end. For short strings, where a JS loop beats a
 * call into TextEncoder. The caller has made room for the worst case. Lone surrogates become
 * U+FFFD (EF BF BD), as TextEncoder writes them, so short and long strings read back alike.
 */
export function writeUtf8Short(s: string, buf: Uint8Array, pos: number): number {
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      buf[pos++] = c;
    } else if (c < 0x800) {
      buf[pos++] = 0xc0 | (c >> 6);
      buf[pos++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      pos = write3(buf, pos, c);
    } else {
      const next = i + 1 < len ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        buf[pos++] = 0xf0 | (cp >> 18);
        buf[pos++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[pos++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[pos++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        pos = write3(buf, pos, 0xfffd);
      }
    }
  }
  return pos;
}

function write3(buf: Uint8Array, pos: number, c: number): number {
  buf[pos++] = 0xe0 | (c >> 12);
  buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
  buf[pos++] = 0x80 | (c & 0x3f);
  return pos;
}
