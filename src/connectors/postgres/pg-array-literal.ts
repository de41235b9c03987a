/** An array's text form is not what PostgreSQL prints. */
export class PgArrayLiteralError extends Error {
  readonly text: string;
  constructor(text: string, at: number) {
    super(`malformed array literal at character ${at + 1}: ${text.length > 80 ? `${text.slice(0, 80)}...` : text}`);
    this.name = 'PgArrayLiteralError';
    this.text = text;
  }
}

export type PgArray = Array<unknown>;

/**
 * Parses an array's text output ('{1,NULL,"a b",{2,3}}', optionally with bounds '[0:1]={...}')
 * into nested JS arrays, each element through `element`. Unquoted NULL is SQL NULL; a quoted
 * "NULL" is the string.
 */
export function parseArrayLiteral(text: string, element: (s: string) => unknown, delimiter = ','): PgArray {
  let i = 0;
  if (text[0] === '[') {
    i = text.indexOf('=');
    if (i < 0) throw new PgArrayLiteralError(text, 0);
    i++;
  }
  const fail = (): never => {
    throw new PgArrayLiteralError(text, i);
  };
  const parseLevel = (): PgArray => {
    if (text[i] !== '{') fail();
    i++;
    const out: PgArray = [];
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      if (text[i] === '{') out.push(parseLevel());
      else if (text[i] === '"') out.push(element(quoted()));
      else {
        const start = i;
        while (i < text.length && text[i] !== delimiter && text[i] !== '}') i++;
        const raw = text.slice(start, i).trim();
        out.push(raw.toUpperCase() === 'NULL' ? null : element(raw));
      }
      if (text[i] === delimiter) i++;
      else if (text[i] === '}') {
        i++;
        return out;
      } else fail();
    }
  };
  const quoted = (): string => {
    i++;
    let s = '';
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      s += text[i];
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
    return s;
  };
  const result = parseLevel();
  if (i !== text.length) fail();
  return result;
}
