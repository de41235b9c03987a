#!/usr/bin/env bash
# A private MariaDB with a row-based binlog for trying the CDC examples (examples/cdc-orders.ts,
# examples/pipelines/mariadb-to-postgres.yaml) without touching the machine's own server: it runs
# the installed binaries with --no-defaults (no my.cnf is read), on its own port, socket and data
# directory, bound to 127.0.0.1.
#
#   scripts/mariadb-for-examples.sh start [--port 3307] [--dir DIR] [--orders N]
#       creates the data directory on first use (root without a password; a user `weir`/`weir`
#       with only the privileges CDC needs), starts the server, and creates and fills
#       test.orders (N rows, default 1000, over 20 customers) and the database `shop` of the
#       pipeline example (sharded orders_1, orders_2 and order_items_1, order_items_2, and
#       customers) where they do not exist
#   scripts/mariadb-for-examples.sh shop-changes [--port 3307] [--dir DIR]
#       changes in `shop` for a running pipeline to follow: inserts, updates and deletes in the
#       shards, a new shard orders_3 (created and filled once), a column `note` on orders_1 (once)
#   scripts/mariadb-for-examples.sh sql "STATEMENT; ..." [--port 3307] [--dir DIR]
#       runs statements in database test (no argument: an interactive client)
#   scripts/mariadb-for-examples.sh status | stop | destroy [--port 3307] [--dir DIR]
#       destroy stops the server and removes its data directory
#
# The default directory is ${TMPDIR:-/tmp}/weir-example-mariadb-<port>. Binaries are looked up
# on PATH and in /usr/sbin (mariadbd or mysqld, mariadb-install-db or mysql_install_db, mariadb
# or mysql); on Debian/Ubuntu they come with `apt-get install mariadb-server mariadb-client`.
set -euo pipefail

command_name=${1:-}
[ $# -gt 0 ] && shift
port=3307
dir=''
orders=1000
statements=''
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --port=*) port=${1#*=}; shift ;;
    --dir) dir=$2; shift 2 ;;
    --dir=*) dir=${1#*=}; shift ;;
    --orders) orders=$2; shift 2 ;;
    --orders=*) orders=${1#*=}; shift ;;
    *)
      if [ "$command_name" = sql ] && [ -z "$statements" ]; then statements=$1; shift
      else echo "unknown argument: $1" >&2; exit 2; fi ;;
  esac
done
dir=${dir:-${TMPDIR:-/tmp}/weir-example-mariadb-$port}
socket=$dir/mariadb.sock
pidfile=$dir/mariadb.pid

find_binary() {
  local name
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
    if [ -x "/usr/sbin/$name" ]; then echo "/usr/sbin/$name"; return 0; fi
  done
  echo "none of $* found: install MariaDB (e.g. apt-get install mariadb-server mariadb-client)" >&2
  return 1
}

running() {
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

client() {
  "$(find_binary mariadb mysql)" --no-defaults --socket="$socket" --user=root "$@"
}

start() {
  if running; then
    echo "already running: pid $(cat "$pidfile"), 127.0.0.1:$port, data in $dir"
  else
    launch
  fi
  setup
}

launch() {
  local mariadbd install_db user_args=()
  mariadbd=$(find_binary mariadbd mysqld)
  install_db=$(find_binary mariadb-install-db mysql_install_db)
  # mariadbd refuses to run as root unless told to.
  [ "$(id -u)" = 0 ] && user_args=(--user=root)
  mkdir -p "$dir"
  if [ ! -d "$dir/data/mysql" ]; then
    echo "creating a data directory in $dir/data"
    "$install_db" --no-defaults --auth-root-authentication-method=normal --skip-test-db \
      --datadir="$dir/data" --tmpdir="$dir" "${user_args[@]}" >"$dir/install.log" 2>&1 \
      || { echo "mariadb-install-db failed; see $dir/install.log" >&2; exit 1; }
  fi
  # The settings CDC needs: binary log on, row-based, full row images, a server id.
  # nohup: the server outlives this script and the terminal it was started from.
  nohup "$mariadbd" --no-defaults --datadir="$dir/data" --socket="$socket" --pid-file="$pidfile" \
    --log-error="$dir/error.log" --tmpdir="$dir" --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
    --log-bin="$dir/binlog" --binlog-format=ROW --binlog-row-image=FULL --binlog-row-metadata=FULL --server-id=1 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci "${user_args[@]}" \
    >>"$dir/error.log" 2>&1 &
  local i
  for i in $(seq 1 150); do
    if client -e 'SELECT 1' >/dev/null 2>&1; then break; fi
    if [ "$i" = 150 ] || ! kill -0 $! 2>/dev/null; then
      echo "the server did not start; the end of $dir/error.log:" >&2
      tail -n 20 "$dir/error.log" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# Idempotent: users, the database and the demo table (filled only when empty).
setup() {
  client <<SQL
CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4;
USE test;
-- Over TCP (how weir connects) root comes from 127.0.0.1: the same empty password there.
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';
GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
-- What a CDC user needs and no more: to read the tables and the binlog.
CREATE USER IF NOT EXISTS 'weir'@'127.0.0.1' IDENTIFIED BY 'weir';
GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'weir'@'127.0.0.1';
CREATE TABLE IF NOT EXISTS orders (
  id INT AUTO_INCREMENT PRIMARY KEY,
  customer VARCHAR(40) NOT NULL,
  amount DECIMAL(10,2) NOT NULL,
  status VARCHAR(16) NOT NULL,
  created DATETIME NOT NULL
);
INSERT INTO orders (customer, amount, status, created)
  SELECT CONCAT('customer-', seq % 20), (seq * 7919 % 100000) / 100, ELT(1 + seq % 3, 'new', 'paid', 'shipped'),
         '2026-01-01 00:00:00' + INTERVAL seq MINUTE
  FROM seq_1_to_${orders}
  WHERE NOT EXISTS (SELECT 1 FROM orders);
SQL
  echo "MariaDB running: pid $(cat "$pidfile"), 127.0.0.1:$port, data and binlog in $dir"
  client -N -e "SELECT CONCAT('test.orders: ', COUNT(*), ' rows, ', COUNT(DISTINCT customer), ' customers, total ', SUM(amount)) FROM test.orders"
  shop
  echo "try: node bin/weir.mjs run examples/cdc-orders.ts -- --port $port --output out/cdc-orders"
  echo " or: node bin/weir.mjs pipeline examples/pipelines/mariadb-to-postgres.yaml (with scripts/postgres-for-examples.sh start)"
}

# The pipeline example's database (examples/pipelines/mariadb-to-postgres.yaml): two shards of
# orders and of their items (ids repeat across shards), and customers. Idempotent.
shop() {
  local shard
  {
    echo "CREATE DATABASE IF NOT EXISTS shop CHARACTER SET utf8mb4; USE shop;"
    echo "CREATE TABLE IF NOT EXISTS customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, city VARCHAR(40));"
    echo "INSERT INTO customers SELECT seq, CONCAT('customer-', seq), ELT(1 + seq % 3, 'Lyon', 'Oslo', 'Porto') FROM seq_1_to_20 WHERE NOT EXISTS (SELECT 1 FROM customers);"
    for shard in 1 2; do
      cat <<SQL
CREATE TABLE IF NOT EXISTS orders_$shard (
  id INT PRIMARY KEY, customer_id INT NOT NULL, status VARCHAR(16) NOT NULL,
  price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL, created DATETIME NOT NULL
);
INSERT INTO orders_$shard
  SELECT seq, 1 + (seq * $shard) % 20, ELT(1 + seq % 5, 'new', 'paid', 'shipped', 'paid', 'test'),
         (seq * 7919 * $shard % 10000) / 100 + 1, seq % 4, '2026-01-01 00:00:00' + INTERVAL (seq * 7 + $shard) MINUTE
  FROM seq_1_to_200 WHERE NOT EXISTS (SELECT 1 FROM orders_$shard);
CREATE TABLE IF NOT EXISTS order_items_$shard (
  id INT PRIMARY KEY, order_id INT NOT NULL, sku VARCHAR(20) NOT NULL, quantity INT NOT NULL
);
INSERT INTO order_items_$shard
  SELECT seq, 1 + (seq - 1) DIV 2, CONCAT('sku-', seq % 37), 1 + seq % 3
  FROM seq_1_to_400 WHERE NOT EXISTS (SELECT 1 FROM order_items_$shard);
SQL
    done
  } | client
  client -N -e "SELECT CONCAT('shop: orders_1 ', (SELECT COUNT(*) FROM shop.orders_1), ', orders_2 ', (SELECT COUNT(*) FROM shop.orders_2), ', order_items_1 ', (SELECT COUNT(*) FROM shop.order_items_1), ', order_items_2 ', (SELECT COUNT(*) FROM shop.order_items_2), ', customers ', (SELECT COUNT(*) FROM shop.customers), ' rows')"
}

# Changes for a running pipeline to follow; the new shard and the new column come once.
shop_changes() {
  client shop <<'SQL'
INSERT INTO orders_1 (id, customer_id, status, price, quantity, created)
  SELECT COALESCE(MAX(id), 0) + 1, 7, 'new', 12.50, 2, NOW() FROM orders_1;
UPDATE orders_2 SET quantity = quantity + 1, status = 'paid' WHERE id % 10 = 3;
DELETE FROM orders_1 WHERE id % 50 = 7;
UPDATE orders_1 SET status = 'test' WHERE id % 50 = 11;
CREATE TABLE IF NOT EXISTS orders_3 (
  id INT PRIMARY KEY, customer_id INT NOT NULL, status VARCHAR(16) NOT NULL,
  price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL, created DATETIME NOT NULL
);
INSERT IGNORE INTO orders_3 SELECT seq, 3, 'paid', seq + 0.99, 1 + seq % 2, NOW() FROM seq_1_to_50;
SET @has_note = (SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders_1' AND COLUMN_NAME = 'note');
SET @add = IF(@has_note = 0, 'ALTER TABLE orders_1 ADD COLUMN note VARCHAR(40)', 'DO 0');
PREPARE s FROM @add; EXECUTE s; DEALLOCATE PREPARE s;
UPDATE orders_1 SET note = CONCAT('changed ', NOW()) WHERE id % 25 = 1;
SQL
  echo "changed shop: an order inserted into orders_1, some updated in orders_2, some deleted or made 'test' in orders_1, orders_3 (50 orders), orders_1.note"
}

stop() {
  if ! running; then
    echo "not running (no live pid in $pidfile)"
    return 0
  fi
  local pid
  pid=$(cat "$pidfile")
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  echo "stopped pid $pid"
}

case "$command_name" in
  start) start ;;
  shop-changes)
    running || { echo "not running: start it first" >&2; exit 1; }
    shop_changes ;;
  stop) stop ;;
  destroy) stop; rm -rf "$dir"; echo "removed $dir" ;;
  status)
    if running; then echo "running: pid $(cat "$pidfile"), 127.0.0.1:$port, data in $dir"; client -N -e 'SHOW MASTER STATUS'
    else echo "not running (data directory $dir)"; exit 1; fi ;;
  sql)
    running || { echo "not running: start it first" >&2; exit 1; }
    if [ -n "$statements" ]; then client --table test -e "$statements"; else client test; fi ;;
  *)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    [ -z "$command_name" ] || [ "$command_name" = help ] || exit 2 ;;
esac
