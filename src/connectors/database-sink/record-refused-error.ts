import { SinkError } from '../../api/sink-error.ts';

/**
 * A record the database refused (a constraint, a type, a length): a replay would be refused
 * again, so the job fails at once, and nothing of the checkpoint it belonged to becomes visible.
 */
export class RecordRefusedError extends SinkError {
  readonly table: string;
  /** The constraint that refused it (undefined when the database named none: a type or a length). */
  readonly constraint: string | undefined;
  readonly record: unknown;

  constructor(target: string, table: string, constraint: string | undefined, record: unknown, reason: string, options?: { cause?: unknown }) {
    const named = constraint ? `constraint ${constraint}` : 'its column types';
    super('RECORD_REFUSED', target, `table ${table} refused record ${describe(record)} (${named}): ${reason}`, options);
    this.name = 'RecordRefusedError';
    this.table = table;
    this.constraint = constraint;
    this.record = record;
  }
}

function describe(record: unknown): string {
  const text = JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(record);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
