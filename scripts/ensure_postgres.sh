#!/usr/bin/env bash
# Debian's PostgreSQL server for the tests of the server backend (tests/fixtures/postgres.py starts a throwaway
# cluster with its initdb and pg_ctl): installed with apt when no initdb is found and we run as root; otherwise
# a message says what to do (Rabbithole itself runs without it: SQLite is the default).
set -euo pipefail
if command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "make setup: PostgreSQL's initdb is missing; the PostgreSQL tests need it." >&2
    echo "            Install it with: sudo apt-get install -y postgresql" >&2
    exit 0
fi
# The package's own cluster (postgresql-common creates one and starts it where it can) is not used: the tests
# create their own in a temporary folder.
"$(dirname "$0")/apt_install.sh" postgresql
compgen -G "/usr/lib/postgresql/*/bin/initdb"
