/**
 * One copy of each of the strings a sink sees again and again (the subjects a function makes per
 * record, `counts.<word>`): a staged message then holds a shared string instead of its own, 32
 * heap bytes less for a short subject (bench jetstream-memory). Past `limit` distinct strings
 * (subjects made from ids) it stops remembering new ones rather than grow without bound.
 */
export class InternedStrings {
  readonly #seen = new Map<string, string>();
  readonly #limit: number;

  constructor(limit = 4096) {
    this.#limit = limit;
  }

  intern(s: string): string {
    const known = this.#seen.get(s);
    if (known !== undefined) return known;
    if (this.#seen.size < this.#limit) this.#seen.set(s, s);
    return s;
  }
}
