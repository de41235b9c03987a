/*
 * The shapes of a COPY's rows as text, apart from the code that reads them: the SQL client's
 * public declarations name these, and the reader's declarations name the socket tap, whose types
 * are Node's Buffer (a user's project without @types/node must compile against weir's).
 */

/** The rows of a statement after the COPY, each row its fields' text (null for NULL). */
export type TextRows = Array<ReadonlyArray<string | null>>;

/**
 * Takes a COPY's rows as text: `text` holds whole rows, each ended by a newline and preceded by
 * `gap` NUL characters.
 */
export type CopyTextRows = (text: string, gap: number) => void;
