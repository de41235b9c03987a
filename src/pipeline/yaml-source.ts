import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { YamlSyntaxProblem, type ProblemPlace } from './pipeline-problem.ts';

/** A text of the file with where it stands: projections and filters keep theirs for the expression compiler's errors. */
export interface PlacedText {
  /** The value: for a projection, Flink CDC's '\\*' (a '*' YAML would read as an alias) is already '*'. */
  readonly text: string;
  /** The value as the scalar holds it, before that. */
  readonly raw: string;
  readonly line: number;
  readonly column: number;
  /** Offset of the node in the file (of its quote, for a quoted scalar). */
  readonly offset: number;
  /** How the scalar is written (PLAIN, QUOTE_SINGLE, QUOTE_DOUBLE, BLOCK_LITERAL, BLOCK_FOLDED): a position inside maps to the file exactly only for a PLAIN or quoted one on one line. */
  readonly style: string;
}

/**
 * A YAML file parsed with the place of every node: errors about a key or value point at the line
 * and column where it is written. Syntax errors (and keys written twice) are collected, not thrown.
 */
export class YamlSource {
  readonly file: string;
  readonly document: Document.Parsed;
  readonly syntaxProblems: readonly YamlSyntaxProblem[];
  readonly #lines: LineCounter;

  constructor(file: string, text: string) {
    this.file = file;
    this.#lines = new LineCounter();
    this.document = parseDocument(text, { lineCounter: this.#lines, prettyErrors: false, keepSourceTokens: false });
    this.syntaxProblems = this.document.errors.map((e) => new YamlSyntaxProblem(this.placeOfOffset(e.pos[0], ''), e.message, e.code));
  }

  /** The root node, or undefined for an empty file. */
  get root(): Node | undefined {
    return (this.document.contents ?? undefined) as Node | undefined;
  }

  placeOfOffset(offset: number, path: string): ProblemPlace {
    const { line, col } = this.#lines.linePos(offset);
    return { file: this.file, line, column: col, path };
  }

  /** The place of a node (or of the file's start when the node is missing). */
  placeOf(node: Node | null | undefined, path: string): ProblemPlace {
    return this.placeOfOffset(node?.range?.[0] ?? 0, path);
  }

  placedText(node: Node, raw: string, unescapeStar = false): PlacedText {
    const place = this.placeOf(node, '');
    const text = unescapeStar ? raw.replaceAll('\\*', '*') : raw;
    return { text, raw, line: place.line, column: place.column, offset: node.range?.[0] ?? 0, style: isScalar(node) ? String(node.type ?? 'PLAIN') : 'PLAIN' };
  }
}

/** How a node reads in an error: "a list", "a map", "the number 3", "the text 'abc'". */
export function describeNode(node: Node | null | undefined): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a map';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'nothing (null)';
    if (typeof v === 'number') return `the number ${v}`;
    if (typeof v === 'boolean') return `${v}`;
    return `the text '${String(v)}'`;
  }
  return 'an alias';
}

/**
 * The line and column in the file of a character of a placed text (an index into `text`), for
 * errors inside a projection or filter. Exact for a value on one line written plain or quoted
 * without escapes (the usual way); otherwise the place of the value's start.
 */
export function placeWithin(placed: PlacedText, index: number): { line: number; column: number } {
  const oneLine = !placed.raw.includes('\n') && ['PLAIN', 'QUOTE_SINGLE', 'QUOTE_DOUBLE'].includes(placed.style);
  if (!oneLine || index < 0 || index > placed.text.length) return { line: placed.line, column: placed.column };
  let rawIndex = 0;
  for (let i = 0; i < index; i++) rawIndex += placed.raw.startsWith('\\*', rawIndex) && placed.text[i] === '*' && placed.raw !== placed.text ? 2 : 1;
  return { line: placed.line, column: placed.column + (placed.style === 'PLAIN' ? 0 : 1) + rawIndex };
}
