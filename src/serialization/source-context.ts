import type { CodecRuntimeName } from './codec-runtime.ts';

/**
 * What generated codec source shares while it is built: fresh variable names, and which
 * run-time helpers it calls, each bound once to a variable of the enclosing function so that the
 * hot code reads a closure slot rather than a property.
 */
export class SourceContext {
  #counter = 0;
  readonly #used = new Set<CodecRuntimeName>();

  fresh(prefix: string): string {
    return `${prefix}${this.#counter++}`;
  }

  /** The name generated code calls a helper of codecRuntime by. */
  use(name: CodecRuntimeName): string {
    this.#used.add(name);
    return name;
  }

  /** `var fail = R.fail, isSafe = R.isSafe;` for the enclosing function, which receives codecRuntime as R. */
  prelude(): string {
    return this.#used.size === 0 ? '' : `var ${[...this.#used].map((n) => `${n} = R.${n}`).join(', ')};`;
  }
}
