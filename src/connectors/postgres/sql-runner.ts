/** Runs one SQL statement with parameters and returns its rows (a seam over pg's client). */
export type SqlRunner = <R = Record<string, unknown>>(text: string, values?: readonly unknown[]) => Promise<R[]>;
