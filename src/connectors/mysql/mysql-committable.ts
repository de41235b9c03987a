/** An XA transaction prepared by one subtask: where it is (server, database) and its xid (gtrid, bqual). */
export interface MySqlCommittable {
  /** host:port */
  readonly server: string;
  readonly database: string;
  readonly gtrid: string;
  readonly bqual: string;
}
