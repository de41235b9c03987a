/**
 * Flink CDC's table selection (its Selectors): the source's `tables` and a transform's
 * `source-table` are comma-separated patterns; in each, an unescaped '.' separates database (or
 * schema) and table, and '\.' is the regular expression's "any character". Each part is matched
 * whole and without regard to case, and a pattern matches only ids of as many parts as it has
 * (`app_db.orders` never matches a three-part id).
 */
export class TableSelector {
  readonly text: string;
  readonly #patterns: readonly (readonly RegExp[])[];

  private constructor(text: string, patterns: readonly (readonly RegExp[])[]) {
    this.text = text;
    this.#patterns = patterns;
  }

  /** Throws TablePatternError naming the pattern that is not a regular expression. */
  static parse(text: string): TableSelector {
    const patterns = splitUnescaped(text, ',')
      .map((p) => p.trim().replace(/\\,/g, ','))
      .filter((p) => p.length > 0)
      .map((pattern) => {
        const parts = splitUnescaped(pattern, '.').map((p) => p.trim()).filter((p) => p.length > 0);
        if (parts.length < 1 || parts.length > 3) throw new TablePatternError(pattern, new Error(`a table id has 1 to 3 parts, this pattern has ${parts.length}`));
        return parts.map((part) => compile(`^(?:${part.replace(/\\\./g, '.')})$`, 'i', pattern));
      });
    if (patterns.length === 0) throw new TablePatternError(text, new Error('no table pattern'));
    return new TableSelector(text, patterns);
  }

  /** Whether the table id ('db.table', 'schema.table') is selected. */
  matches(tableId: string): boolean {
    const parts = tableId.split('.');
    return this.#patterns.some((p) => p.length === parts.length && p.every((re, i) => re.test(parts[i]!)));
  }

  /** The patterns, each as its parts' texts (for the summary and for checks on literal names). */
  get parts(): readonly (readonly string[])[] {
    return this.#patterns.map((p) => p.map((re) => re.source.slice(4, -2)));
  }

  /** Literal table ids among the patterns (no regular-expression character in any part). */
  literalTables(): string[] {
    return this.parts.filter((p) => p.every(isLiteral)).map((p) => p.join('.'));
  }
}

/** A pattern that is not a regular expression, or not a table id pattern. */
export class TablePatternError extends Error {
  readonly pattern: string;
  constructor(pattern: string, cause: unknown) {
    super(`'${pattern}': ${(cause as Error).message}`, { cause });
    this.name = 'TablePatternError';
    this.pattern = pattern;
  }
}

export function isLiteral(part: string): boolean {
  return !/[\\^$.|?*+()[\]{}]/.test(part);
}

export function compile(source: string, flags: string, pattern: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw new TablePatternError(pattern, e);
  }
}

/** Splits at each separator not escaped by a backslash (an escape is kept as written). */
export function splitUnescaped(text: string, separator: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === separator) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/**
 * One regular expression over whole table ids for weir's CDC sources (which take RegExps over
 * 'db.table' / 'schema.table'): the selected patterns, minus the excluded ones. Parts are matched
 * without regard to case, as the selectors.
 */
export function selectionRegExp(selected: TableSelector, excluded?: TableSelector): RegExp {
  const alternatives = (s: TableSelector) => s.parts.map((p) => p.map((part) => `(?:${part})`).join('\\.')).join('|');
  const exclusion = excluded ? `(?!(?:${alternatives(excluded)})$)` : '';
  return new RegExp(`^${exclusion}(?:${alternatives(selected)})$`, 'i');
}
