#!/usr/bin/env bash
# A private PostgreSQL for trying the database-to-database example (examples/orders-to-postgres.ts)
# without touching the machine's own server: it runs the installed binaries on a data directory of
# its own (no postgresql.conf of the machine is read), on a free port, bound to 127.0.0.1, as the
# `postgres` user when started by root (PostgreSQL refuses to run as root), else as the caller.
#
#   scripts/postgres-for-examples.sh start [--port N] [--dir DIR]
#       creates the data directory on first use (superuser postgres/postgres; a user weir/weir
#       that may only read and write the target table), starts the server with
#       max_prepared_transactions = 64 (two-phase commit), creates database weir, its table
#       customer_totals and its schema shop (the target of examples/pipelines/mariadb-to-postgres.yaml)
#       if they do not exist, and prints how to run the examples. The port is the first free one
#       from 5433 on unless --port is given, and is remembered in DIR
#   scripts/postgres-for-examples.sh sql "STATEMENT; ..." [--dir DIR]
#       runs statements in database weir (no argument: an interactive psql)
#   scripts/postgres-for-examples.sh compare [--mariadb-port 3307] [--dir DIR]
#       the table customer_totals against SELECT customer, COUNT(*), SUM(amount) FROM orders
#       GROUP BY customer in the example MariaDB (scripts/mariadb-for-examples.sh), row for row
#   scripts/postgres-for-examples.sh shop-compare [--mariadb-port 3307] [--dir DIR]
#       the pipeline example's shop.orders against the MariaDB shards merged and transformed
#       (SQL on MariaDB), row for row
#   scripts/postgres-for-examples.sh status | stop | destroy [--dir DIR]
#       destroy stops the server and removes its data directory
#
# The default directory is ${TMPDIR:-/tmp}/weir-example-postgres. Binaries are looked up in the
# newest /usr/lib/postgresql/<major>/bin, then on PATH (initdb, postgres, pg_ctl, psql); on
# Debian/Ubuntu they come with `apt-get install postgresql postgresql-client`.
set -euo pipefail

command_name=${1:-}
[ $# -gt 0 ] && shift
port=''
dir=''
mariadb_port=3307
statements=''
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --port=*) port=${1#*=}; shift ;;
    --dir) dir=$2; shift 2 ;;
    --dir=*) dir=${1#*=}; shift ;;
    --mariadb-port) mariadb_port=$2; shift 2 ;;
    --mariadb-port=*) mariadb_port=${1#*=}; shift ;;
    *)
      if [ "$command_name" = sql ] && [ -z "$statements" ]; then statements=$1; shift
      else echo "unknown argument: $1" >&2; exit 2; fi ;;
  esac
done
dir=${dir:-${TMPDIR:-/tmp}/weir-example-postgres}
data=$dir/data
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

find_binary() {
  local name=$1 bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n | tail -n 1 || true)
  if [ -n "$bin" ] && [ -x "$bin/$name" ]; then echo "$bin/$name"; return 0; fi
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  echo "$name not found: install PostgreSQL (e.g. apt-get install postgresql postgresql-client)" >&2
  return 1
}

# The server and initdb run as `postgres` when we are root, as ourselves otherwise.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() {
  [ -f "$data/postmaster.pid" ] && kill -0 "$(head -n 1 "$data/postmaster.pid")" 2>/dev/null
}

saved_port() {
  cat "$dir/port" 2>/dev/null || { echo "no server was started in $dir (run start first)" >&2; exit 1; }
}

client() {
  # Over the socket in $dir, where pg_hba trusts local connections.
  "$(find_binary psql)" -X -h "$dir" -p "$(saved_port)" -U postgres -v ON_ERROR_STOP=1 "$@"
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
  if running; then
    echo "already running: pid $(head -n 1 "$data/postmaster.pid"), 127.0.0.1:$(saved_port), data in $data"
  else
    launch
  fi
  setup
}

launch() {
  if [ -z "$port" ]; then
    port=$(cat "$dir/port" 2>/dev/null || echo 5433)
    while ! port_free "$port"; do port=$((port + 1)); done
  elif ! port_free "$port"; then
    echo "port $port is in use: choose another with --port" >&2; exit 1
  fi
  mkdir -p "$dir"
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "no postgres user: install the postgresql package (PostgreSQL does not run as root)" >&2; exit 1; }
    chown postgres: "$dir"
    as_owner test -w "$dir" || { echo "the postgres user cannot write $dir: choose a --dir it can reach (or set TMPDIR)" >&2; exit 1; }
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    echo "creating a data directory in $data"
    as_owner bash -c "umask 077; echo postgres > '$dir/pw'"
    as_owner "$(find_binary initdb)" -D "$data" -U postgres --pwfile="$dir/pw" --auth-local=trust \
      --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 \
      || { echo "initdb failed; see $dir/initdb.log" >&2; exit 1; }
    rm -f "$dir/pw"
  fi
  echo "$port" >"$dir/port"
  # Two-phase commit needs prepared transactions; the rest keeps the demo server small.
  as_owner "$(find_binary pg_ctl)" -D "$data" -l "$dir/server.log" -w -t 60 start -o \
    "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_prepared_transactions=64 -c shared_buffers=32MB" >/dev/null \
    || { echo "the server did not start; the end of $dir/server.log:" >&2; tail -n 20 "$dir/server.log" >&2; exit 1; }
}

# Idempotent: the database, the user and the target table.
setup() {
  client -d postgres -q <<'SQL'
SELECT 'CREATE DATABASE weir' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'weir') \gexec
SELECT 'CREATE USER weir PASSWORD ''weir''' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'weir') \gexec
SQL
  client -d weir -q <<'SQL'
CREATE TABLE IF NOT EXISTS customer_totals (
  customer text PRIMARY KEY,
  orders bigint NOT NULL,
  total numeric(14,2) NOT NULL
);
-- What the sink needs and no more: to read and write its table (and end its own prepared transactions).
GRANT CONNECT ON DATABASE weir TO weir;
GRANT SELECT, INSERT, UPDATE, DELETE ON customer_totals TO weir;
-- The pipeline example's target schema: its sink tables are created in it (as postgres).
CREATE SCHEMA IF NOT EXISTS shop;
SQL
  local p
  p=$(saved_port)
  echo "PostgreSQL running: pid $(head -n 1 "$data/postmaster.pid"), 127.0.0.1:$p, data in $data"
  echo "database weir, user weir/weir (superuser postgres/postgres), table customer_totals: $(client -d weir -Atc 'SELECT count(*) FROM customer_totals') rows"
  echo "try:"
  echo "  $(dirname "$0")/mariadb-for-examples.sh start --port $mariadb_port"
  echo "  node bin/weir.mjs run examples/orders-to-postgres.ts -- --port $mariadb_port --pg-port $p"
  echo "  $(dirname "$0")/mariadb-for-examples.sh sql \"UPDATE orders SET amount = amount + 10 WHERE id <= 5\" --port $mariadb_port"
  echo "  $0 compare --mariadb-port $mariadb_port"
  echo "the pipeline example (needs port 5433 as its file says; tables into schema shop):"
  echo "  node bin/weir.mjs pipeline examples/pipelines/mariadb-to-postgres.yaml"
  echo "  $(dirname "$0")/mariadb-for-examples.sh shop-changes --port $mariadb_port"
  echo "  $0 shop-compare --mariadb-port $mariadb_port"
}

# The example's transform of the order shards, computed by MariaDB, against what the pipeline wrote.
shop_compare() {
  local pg_rows my_rows shards
  pg_rows=$(client -d weir -At -F $'\t' -c "SELECT shard, id, status, price, quantity, total FROM shop.orders" | LC_ALL=C sort)
  shards=$("$here/mariadb-for-examples.sh" sql --port "$mariadb_port" "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME RLIKE '^orders_[0-9]+\$'" \
    | awk -F'|' 'NF >= 3 && $2 !~ /TABLE_NAME/ { gsub(/ /, "", $2); print $2 }')
  local union='' s
  for s in $shards; do
    union="${union:+$union UNION ALL }SELECT '$s' AS shard, id, status, price, quantity, price * quantity AS total FROM shop.$s WHERE status <> 'test' AND quantity > 0"
  done
  my_rows=$("$here/mariadb-for-examples.sh" sql --port "$mariadb_port" "$union" \
    | awk -F'|' 'NF >= 8 && $2 !~ /^ *shard *$/ { for (i = 2; i <= 7; i++) gsub(/^ +| +$/, "", $i); print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' | LC_ALL=C sort)
  echo "PostgreSQL shop.orders: $(echo -n "$pg_rows" | grep -c '' || true) rows; MariaDB shards ($(echo $shards)) merged and filtered: $(echo -n "$my_rows" | grep -c '' || true) rows"
  if [ "$pg_rows" = "$my_rows" ]; then
    echo "equal, row for row"
  else
    echo "DIFFERENT (< PostgreSQL, > MariaDB; rows become visible when a checkpoint completes):"
    diff <(echo "$pg_rows") <(echo "$my_rows") | head -n 20 || true
    return 1
  fi
}

compare() {
  local pg_rows my_rows
  pg_rows=$(client -d weir -At -F $'\t' -c 'SELECT customer, orders, total FROM customer_totals' | LC_ALL=C sort)
  my_rows=$("$here/mariadb-for-examples.sh" sql --port "$mariadb_port" \
    "SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer")
  # The MariaDB client prints a table: take the fields out of its `| a | b | c |` lines.
  my_rows=$(echo "$my_rows" | awk -F'|' 'NF >= 5 && $2 !~ /^ *customer *$/ { gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4); print $2 "\t" $3 "\t" $4 }' | LC_ALL=C sort)
  echo "PostgreSQL customer_totals: $(echo -n "$pg_rows" | grep -c '' || true) rows; MariaDB GROUP BY: $(echo -n "$my_rows" | grep -c '' || true) rows"
  if [ "$pg_rows" = "$my_rows" ]; then
    echo "equal, row for row"
    printf '%s\n' "$pg_rows" | head -n 5
    echo "..."
  else
    echo "DIFFERENT (< PostgreSQL, > MariaDB; output becomes visible when a checkpoint completes):"
    diff <(echo "$pg_rows") <(echo "$my_rows") || true
    return 1
  fi
}

stop() {
  if ! running; then
    echo "not running (no live server in $data)"
    return 0
  fi
  as_owner "$(find_binary pg_ctl)" -D "$data" -m fast -w stop >/dev/null
  echo "stopped the server in $data"
}

case "$command_name" in
  start) start ;;
  stop) stop ;;
  destroy) stop; rm -rf "$dir"; echo "removed $dir" ;;
  status)
    if running; then echo "running: pid $(head -n 1 "$data/postmaster.pid"), 127.0.0.1:$(saved_port), data in $data"; client -d weir -c 'SELECT gid, prepared FROM pg_prepared_xacts'
    else echo "not running (data directory $data)"; exit 1; fi ;;
  sql)
    running || { echo "not running: start it first" >&2; exit 1; }
    if [ -n "$statements" ]; then client -d weir -c "$statements"; else client -d weir; fi ;;
  compare) compare ;;
  shop-compare) shop_compare ;;
  *)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    [ -z "$command_name" ] || [ "$command_name" = help ] || exit 2 ;;
esac
