#!/usr/bin/env bash
# Runs a command (`npm test` by default) with the Redis and PostgreSQL suites on: sets MEMORY_TEST_REDIS_URL and
# MEMORY_TEST_POSTGRES_URL to the local servers (unless set already), after starting a local Redis and PostgreSQL that are
# installed but not running. `npm run test:all` and CI (.ci/run) run the suite through it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test servers: $*" >&2; }

wait_for() { # name, command
	for _ in $(seq 1 30); do
		if eval "$2" >/dev/null 2>&1; then return 0; fi
		sleep 1
	done
	say "$1 did not come up"
	return 1
}

if [ -z "${MEMORY_TEST_REDIS_URL:-}" ]; then
	if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
		command -v redis-server >/dev/null || { say "Redis is not running on 127.0.0.1:6379 and redis-server is not installed"; exit 1; }
		say "starting Redis on 127.0.0.1:6379 (in memory only)"
		dir="$(mktemp -d)"
		redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log"
	fi
	wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG"
	export MEMORY_TEST_REDIS_URL="redis://127.0.0.1:6379"
fi

if [ -z "${MEMORY_TEST_POSTGRES_URL:-}" ]; then
	if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
		# Debian's and Ubuntu's packages manage clusters with pg_ctlcluster; elsewhere, start PostgreSQL yourself.
		command -v pg_ctlcluster >/dev/null || { say "PostgreSQL is not running on 127.0.0.1:5432 and pg_ctlcluster is not installed"; exit 1; }
		say "starting PostgreSQL on 127.0.0.1:5432"
		pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
	fi
	wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432"
	if ! psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null 2>&1; then
		say "creating the database test"
		createdb -h 127.0.0.1 -U postgres test
	fi
	export MEMORY_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:5432/test"
fi

if [ "$#" -eq 0 ]; then set -- npm test; fi
exec "$@"
