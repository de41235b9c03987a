/** A prepared transaction of one subtask and checkpoint: where it is (server, database) and its gid. */
export interface PostgresCommittable {
  /** host:port */
  readonly server: string;
  readonly database: string;
  readonly gid: string;
}
