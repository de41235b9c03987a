/**
 * Java's SimpleDateFormat / DateTimeFormatter patterns ('yyyy-MM-dd HH:mm:ss.SSS'), which Flink
 * CDC's DATE_FORMAT, TO_DATE, TO_TIMESTAMP, FROM_UNIXTIME and UNIX_TIMESTAMP take. A pattern is
 * compiled once per expression (they are constants in practice) into a formatter and a parser.
 * Letters: y M d H h m s S a E D u k K z Z X and 'quoted text'.
 */
interface PatternToken {
  readonly letter: string | null;
  readonly width: number;
  readonly text: string;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LETTERS = 'GyYMLdHhmsSaEDukKzZXw';

export class JavaDatePatternError extends Error {
  readonly pattern: string;
  constructor(pattern: string, detail: string) {
    super(`date pattern '${pattern}': ${detail}`);
    this.name = 'JavaDatePatternError';
    this.pattern = pattern;
  }
}

function tokenize(pattern: string): PatternToken[] {
  const tokens: PatternToken[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        tokens.push({ letter: null, width: 1, text: "'" });
        i += 2;
        continue;
      }
      let j = i + 1;
      let text = '';
      while (j < pattern.length) {
        if (pattern[j] === "'" && pattern[j + 1] === "'") {
          text += "'";
          j += 2;
        } else if (pattern[j] === "'") break;
        else text += pattern[j++];
      }
      if (j >= pattern.length) throw new JavaDatePatternError(pattern, 'unterminated quote');
      tokens.push({ letter: null, width: text.length, text });
      i = j + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (!LETTERS.includes(c)) throw new JavaDatePatternError(pattern, `unknown pattern letter '${c}'`);
      let j = i;
      while (pattern[j] === c) j++;
      tokens.push({ letter: c, width: j - i, text: '' });
      i = j;
    } else {
      tokens.push({ letter: null, width: 1, text: c });
      i++;
    }
  }
  return tokens;
}

const pad = (n: number, w: number): string => (n < 0 ? '-' + String(-n).padStart(w, '0') : String(n).padStart(w, '0'));

function offsetText(offsetMs: number, letter: string, width: number): string {
  if (letter === 'X' && offsetMs === 0) return 'Z';
  const sign = offsetMs < 0 ? '-' : '+';
  const m = Math.abs(offsetMs) / 60_000;
  const hh = pad(Math.floor(m / 60), 2);
  const mm = pad(m % 60, 2);
  if (letter === 'z') return offsetMs === 0 ? 'UTC' : `GMT${sign}${hh}:${mm}`;
  if (letter === 'X' && width === 1) return `${sign}${hh}${m % 60 ? mm : ''}`;
  if (letter === 'X' && width >= 3) return `${sign}${hh}:${mm}`;
  return `${sign}${hh}${mm}`;
}

export type DateFormatter = (localMs: number, offsetMs: number) => string;

/** A formatter of local wall time (milliseconds on a UTC clock); offsetMs serves the zone letters. */
export function compileDateFormatter(pattern: string): DateFormatter {
  const parts = tokenize(pattern).map((t): DateFormatter => {
    if (t.letter === null) return () => t.text;
    const w = t.width;
    switch (t.letter) {
      case 'y':
      case 'u':
      case 'Y':
        return (ms) => {
          const y = new Date(ms).getUTCFullYear();
          return w === 2 ? pad(y % 100, 2) : pad(y, w);
        };
      case 'M':
      case 'L':
        return (ms) => {
          const mo = new Date(ms).getUTCMonth();
          return w >= 4 ? MONTHS[mo]! : w === 3 ? MONTHS[mo]!.slice(0, 3) : pad(mo + 1, w);
        };
      case 'd':
        return (ms) => pad(new Date(ms).getUTCDate(), w);
      case 'D':
        return (ms) => {
          const d = new Date(ms);
          return pad(Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, w);
        };
      case 'H':
        return (ms) => pad(new Date(ms).getUTCHours(), w);
      case 'k':
        return (ms) => pad(new Date(ms).getUTCHours() || 24, w);
      case 'h':
        return (ms) => pad(new Date(ms).getUTCHours() % 12 || 12, w);
      case 'K':
        return (ms) => pad(new Date(ms).getUTCHours() % 12, w);
      case 'm':
        return (ms) => pad(new Date(ms).getUTCMinutes(), w);
      case 's':
        return (ms) => pad(new Date(ms).getUTCSeconds(), w);
      case 'S':
        return (ms) => pad(new Date(ms).getUTCMilliseconds(), 3).padEnd(w, '0').slice(0, Math.max(w, 1));
      case 'a':
        return (ms) => (new Date(ms).getUTCHours() < 12 ? 'AM' : 'PM');
      case 'E':
        return (ms) => {
          const day = DAYS[new Date(ms).getUTCDay()]!;
          return w >= 4 ? day : day.slice(0, 3);
        };
      case 'z':
      case 'Z':
      case 'X':
        return (_ms, off) => offsetText(off, t.letter!, w);
      default:
        throw new JavaDatePatternError(pattern, `pattern letter '${t.letter}' is not supported`);
    }
  });
  return (ms, off) => {
    let s = '';
    for (const p of parts) s += p(ms, off);
    return s;
  };
}

/** What a parse gives: local milliseconds and, when the text had an offset (X, Z), that offset. */
export interface ParsedDateTime {
  readonly localMs: number;
  readonly offsetMs: number | null;
}

export type DateParser = (text: string) => ParsedDateTime | null;

/** A parser of text in the pattern (lenient on digit counts where the next token is no digit); null when it does not match. */
export function compileDateParser(pattern: string): DateParser {
  const tokens = tokenize(pattern);
  let source = '^';
  const fields: string[] = [];
  tokens.forEach((t, i) => {
    if (t.letter === null) {
      source += t.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return;
    }
    const nextIsNumber = tokens[i + 1]?.letter !== undefined && tokens[i + 1]!.letter !== null && 'yuYMdHhkKmsSD'.includes(tokens[i + 1]!.letter!);
    fields.push(t.letter + (t.width >= 3 && 'ML'.includes(t.letter) ? 'name' : ''));
    switch (t.letter) {
      case 'M':
      case 'L':
        source += t.width >= 3 ? '([A-Za-z]+)' : nextIsNumber ? `(\\d{${t.width}})` : '(\\d{1,2})';
        break;
      case 'a':
        source += '([AaPp][Mm])';
        break;
      case 'E':
        source += '([A-Za-z]+)';
        break;
      case 'z':
      case 'Z':
      case 'X':
        source += '(Z|[+-]\\d\\d(?::?\\d\\d)?|UTC|GMT[+-]\\d\\d:\\d\\d)';
        break;
      default:
        source += nextIsNumber ? `(\\d{${t.width}})` : t.letter === 'y' || t.letter === 'u' ? '(-?\\d{1,9})' : t.letter === 'S' ? '(\\d{1,9})' : '(\\d{1,3})';
    }
  });
  const re = new RegExp(source + '$');
  return (text) => {
    const m = re.exec(text);
    if (!m) return null;
    let y = 1970, mo = 1, d = 1, h = 0, mi = 0, s = 0, ms = 0, pm: boolean | null = null, h12 = false;
    let offsetMs: number | null = null;
    fields.forEach((f, i) => {
      const v = m[i + 1]!;
      switch (f) {
        case 'y': case 'u': case 'Y': y = Number(v); if (v.length === 2) y += 2000; break;
        case 'M': case 'L': mo = Number(v); break;
        case 'Mname': case 'Lname': mo = MONTHS.findIndex((n) => n.toLowerCase().startsWith(v.toLowerCase().slice(0, 3))) + 1; break;
        case 'd': d = Number(v); break;
        case 'H': case 'k': h = Number(v) % 24; break;
        case 'h': case 'K': h = Number(v) % 12; h12 = true; break;
        case 'm': mi = Number(v); break;
        case 's': s = Number(v); break;
        case 'S': ms = Number(v.padEnd(3, '0').slice(0, 3)); break;
        case 'a': pm = v.toUpperCase() === 'PM'; break;
        case 'z': case 'Z': case 'X': {
          const z = /^(?:GMT)?([+-])(\d\d):?(\d\d)?$/.exec(v);
          offsetMs = z ? (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0)) * 60_000 : 0;
          break;
        }
      }
    });
    if (h12 && pm) h += 12;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
    const localMs = Date.UTC(y, mo - 1, d, h, mi, s, ms);
    if (new Date(localMs).getUTCDate() !== d) return null;
    return { localMs, offsetMs };
  };
}
