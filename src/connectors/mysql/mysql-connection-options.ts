/** Where and as whom to connect to a MySQL or MariaDB server. */
export interface MySqlConnectionOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  database?: string;
}
