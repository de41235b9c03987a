import { memberPath } from './member-path.ts';

type Part = { readonly text: string } | { readonly code: string };

/**
 * The path of a value inside a record (`$.items[3].count`) as a JS expression of generated code.
 * Indices and map keys are only known at run time, so the path is built from literal text and
 * variable names, and only evaluated where an error is thrown.
 */
export class PathExpression {
  private constructor(private readonly parts: readonly Part[]) {}

  static readonly root = new PathExpression([{ text: '$' }]);

  member(name: string): PathExpression {
    return this.withText(memberPath('', name));
  }

  index(indexVar: string): PathExpression {
    return new PathExpression([...this.parts, { text: '[' }, { code: indexVar }, { text: ']' }]);
  }

  mapKey(indexVar: string): PathExpression {
    return new PathExpression([...this.parts, { text: '.keys()[' }, { code: indexVar }, { text: ']' }]);
  }

  /** `.get("a")`: keyTextVar names a function of (key, index) giving the key as code. */
  mapValue(keyTextFn: string, keyVar: string, indexVar: string): PathExpression {
    return new PathExpression([...this.parts, { text: '.get(' }, { code: `${keyTextFn}(${keyVar}, ${indexVar})` }, { text: ')' }]);
  }

  /** The JS expression that evaluates to the path string. */
  render(): string {
    const merged: string[] = [];
    let text = '';
    for (const part of this.parts) {
      if ('text' in part) {
        text += part.text;
      } else {
        if (text) merged.push(JSON.stringify(text));
        text = '';
        merged.push(`(${part.code})`);
      }
    }
    if (text) merged.push(JSON.stringify(text));
    return merged.join(' + ');
  }

  private withText(text: string): PathExpression {
    return new PathExpression([...this.parts, { text }]);
  }
}
