#!/usr/bin/env bash
# A throwaway PostgreSQL cluster in a folder, shared by the tests and .ci/run.
#   postgres-cluster.sh start DIR [logical]
#                                   creates and starts a cluster in DIR; prints its DATABASE_URL
#                                   (logical: wal_level = logical, so changes are decoded from the WAL)
#   postgres-cluster.sh stop DIR    stops it (DIR stays; the caller removes it)
# The server listens on a unix socket in DIR only, so clusters never collide on a port. initdb
# refuses to run as root, so as root the cluster runs as the `postgres` OS user.
set -euo pipefail
action=${1:?usage: postgres-cluster.sh start|stop DIR}
dir=${2:?usage: postgres-cluster.sh start|stop DIR}
# Commits are not flushed to disk (fsync off), so committing synchronously costs nothing, and a
# WAL sender, which sends only what was flushed, then sends each commit at once (asynchronous,
# it would wait for the WAL writer, up to wal_writer_delay).
commit=off
settings=""
# logical: every test database keeps a slot after its app closes, and every slot keeps the WAL
# of the whole cluster since it was last read; past max_slot_wal_keep_size PostgreSQL lets a
# slot go, and one still streamed is cut too when a transaction of another database holds its
# restart point back that far (its relay then makes it again, after running transactions end).
# 4GB keeps that from happening to the suites' live slots on a busy run; the disk takes it.
if [ "${3:-}" = logical ]; then
  commit=on
  settings=" -c wal_level=logical -c max_replication_slots=1000 -c max_wal_senders=200 -c max_slot_wal_keep_size=4GB"
fi
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bin" ] && command -v pg_ctl >/dev/null; then bin=$(dirname "$(command -v pg_ctl)"); fi
if [ -z "$bin" ]; then
  echo "postgres-cluster.sh: no PostgreSQL binaries (/usr/lib/postgresql/*/bin); apt-get install -y postgresql" >&2
  exit 2
fi
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$action" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" --pgdata="$dir/data" --username=postgres --auth=trust \
      --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    # Durability is not wanted from a throwaway cluster; speed is.
    as_owner "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --silent \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=400 -c fsync=off -c synchronous_commit=$commit -c full_page_writes=off$settings" \
      start || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@localhost/postgres?host=$dir"
    ;;
  stop)
    as_owner "$bin/pg_ctl" --pgdata="$dir/data" --mode=immediate --wait --silent stop
    ;;
  *)
    echo "postgres-cluster.sh: unknown action $action (start or stop)" >&2
    exit 2
    ;;
esac
