/** Where and as whom to connect; `database` is the one whose tables are captured. */
export interface PostgresConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly connectTimeoutMs?: number;
}
