# Sourced by .ci/run (and usable by hand): starts a throwaway PostgreSQL on loopback for the tests
# and exports SVC_TEST_DATABASE_URL. Runs the server as the 'postgres' user, since initdb refuses root.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$pg_bin" ]; then
  echo "ci-postgres: no PostgreSQL server installed" >&2
  return 1 2>/dev/null || exit 1
fi
pg_dir=$(mktemp -d /tmp/svc-pg.XXXXXX)
pg_port=${SVC_TEST_PG_PORT:-55432}
chown postgres "$pg_dir" 2>/dev/null || true
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U svc --auth=trust >/dev/null
as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off" -w start >/dev/null
as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U svc svc_test
export SVC_TEST_DATABASE_URL="postgres://svc@127.0.0.1:$pg_port/svc_test"
trap 'as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1 || true' EXIT
echo "ci-postgres: PostgreSQL ready at $SVC_TEST_DATABASE_URL" >&2
