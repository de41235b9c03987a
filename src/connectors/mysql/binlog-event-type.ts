/** Binlog event type codes (Log_event_type), MySQL's and MariaDB's. */
export const BinlogEventType = {
  QUERY: 2,
  STOP: 3,
  ROTATE: 4,
  INTVAR: 5,
  RAND: 13,
  USER_VAR: 14,
  FORMAT_DESCRIPTION: 15,
  XID: 16,
  TABLE_MAP: 19,
  WRITE_ROWS_V1: 23,
  UPDATE_ROWS_V1: 24,
  DELETE_ROWS_V1: 25,
  INCIDENT: 26,
  HEARTBEAT: 27,
  ROWS_QUERY: 29,
  WRITE_ROWS_V2: 30,
  UPDATE_ROWS_V2: 31,
  DELETE_ROWS_V2: 32,
  MYSQL_GTID: 33,
  MYSQL_ANONYMOUS_GTID: 34,
  MYSQL_PREVIOUS_GTIDS: 35,
  MYSQL_PARTIAL_UPDATE_ROWS: 39,
  MYSQL_TRANSACTION_PAYLOAD: 40,
  HEARTBEAT_V2: 41,
  MARIADB_ANNOTATE_ROWS: 160,
  MARIADB_BINLOG_CHECKPOINT: 161,
  MARIADB_GTID: 162,
  MARIADB_GTID_LIST: 163,
  MARIADB_START_ENCRYPTION: 164,
  MARIADB_QUERY_COMPRESSED: 165,
  MARIADB_WRITE_ROWS_COMPRESSED_V1: 169,
  MARIADB_DELETE_ROWS_COMPRESSED_V1: 171,
} as const;

/** 0x20: the server made this event up for the dump (first ROTATE, fake GTID_LIST); it is not in the file. */
export const LOG_EVENT_ARTIFICIAL_F = 0x20;

/** Rows event flag: the statement's last rows event, after which its table maps are done with. */
export const STMT_END_F = 0x1;

/** MariaDB GTID event flag: the group is one statement without BEGIN/COMMIT (DDL). */
export const FL_STANDALONE = 0x1;
