/**
 * A change of one row in Debezium's shape, as the CDC sources emit it: 'r' read by a snapshot,
 * 'c' inserted, 'u' updated, 'd' deleted. Structural, so that any source's records fit;
 * `unchangedColumns` names columns whose value the change did not carry (a TOASTed column
 * PostgreSQL left out): a sink leaves them as they are.
 */
export interface ChangeRecordLike<Row = Record<string, unknown>> {
  readonly op: 'r' | 'c' | 'u' | 'd';
  readonly before: Row | null;
  readonly after: Row | null;
  readonly unchangedColumns?: readonly string[];
}
