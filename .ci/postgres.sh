#!/usr/bin/env bash
# PostgreSQL for the referee's test suite, on a fresh Debian machine (run as root).
#
# Installs Debian's `postgresql` package if it is missing (the only network it
# needs is the Debian mirror), makes sure a cluster exists and is running on
# 127.0.0.1, creates a password-protected role and a database it owns, and
# prints the URL for the tests as the only line on standard output:
#
#     export REFEREE_TEST_POSTGRES="$(.ci/postgres.sh)"
#     .venv/bin/pytest
#
# Safe to run again: every step checks before it acts. Progress goes to stderr.
# Settings (defaults in brackets): PG_TEST_USER [referee], PG_TEST_PASSWORD
# [referee], PG_TEST_DB [referee_test], PG_TEST_PORT [5432].
set -euo pipefail

user="${PG_TEST_USER:-referee}"
password="${PG_TEST_PASSWORD:-referee}"
db="${PG_TEST_DB:-referee_test}"
port="${PG_TEST_PORT:-5432}"

say() { echo "postgres.sh: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
    say "run me as root (I install packages and start the server as the postgres user)"
    exit 1
fi

# 1. The package. Skip apt entirely when it is already there, so a second run
#    works offline.
if ! command -v pg_lsclusters >/dev/null 2>&1 || [ -z "$(ls /usr/lib/postgresql 2>/dev/null)" ]; then
    say "installing postgresql from the Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y postgresql >&2
fi

version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"

# 2. A cluster (the package normally creates "main"; a minimal image may not).
if ! pg_lsclusters -h | awk '{print $1"/"$2}' | grep -qx "$version/main"; then
    say "creating cluster $version/main"
    pg_createcluster "$version" main --port "$port" >&2
fi
cluster_port="$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $3}')"
if [ "$cluster_port" != "$port" ]; then
    say "cluster $version/main listens on port $cluster_port, not $port: using $cluster_port"
    port="$cluster_port"
fi

# 3. Listen on 127.0.0.1 with password authentication (Debian's pg_hba.conf
#    already has scram-sha-256 for 127.0.0.1/32; add it if someone removed it).
conf_dir="/etc/postgresql/$version/main"
if ! grep -Eq "^[[:space:]]*listen_addresses[[:space:]]*=[[:space:]]*'(localhost|127\.0\.0\.1|\*)" "$conf_dir/postgresql.conf"; then
    echo "listen_addresses = '127.0.0.1'" >>"$conf_dir/postgresql.conf"
fi
if ! grep -Eq "^[[:space:]]*host[[:space:]]+all[[:space:]]+all[[:space:]]+127\.0\.0\.1/32" "$conf_dir/pg_hba.conf"; then
    echo "host all all 127.0.0.1/32 scram-sha-256" >>"$conf_dir/pg_hba.conf"
fi

# 4. Start it (pg_ctlcluster becomes the postgres user itself; no systemd needed).
status="$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $4}')"
if [ "$status" != "online" ]; then
    say "starting cluster $version/main on 127.0.0.1:$port"
    pg_ctlcluster "$version" main start >&2
fi
for _ in $(seq 1 60); do
    if su postgres -c "pg_isready -q -h 127.0.0.1 -p $port"; then break; fi
    sleep 0.5
done
su postgres -c "pg_isready -q -h 127.0.0.1 -p $port" || { say "the server did not come up"; exit 1; }

# 5. The role and the database. The role may create roles: the tests check
#    that a station role with only SELECT, INSERT, UPDATE on the tables works. Names are passed as psql variables and quoted
#    by psql (:"name", :'literal'), so odd characters cannot break the SQL.
cd /  # the postgres user may not be allowed into the current directory
export CI_PG_USER="$user" CI_PG_PASSWORD="$password" CI_PG_DB="$db" CI_PG_PORT="$port"
as_postgres_psql() {  # $1: database; SQL on stdin; u, pw, d set as psql variables
    CI_PG_TARGET="$1" su postgres -c 'psql -X -q -v ON_ERROR_STOP=1 -p "$CI_PG_PORT" -d "$CI_PG_TARGET" \
        -v u="$CI_PG_USER" -v pw="$CI_PG_PASSWORD" -v d="$CI_PG_DB"'
}
as_postgres_psql postgres <<'SQL' >&2
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'u') AS no_role \gset
\if :no_role
CREATE ROLE :"u" LOGIN CREATEROLE PASSWORD :'pw';
\else
ALTER ROLE :"u" LOGIN CREATEROLE PASSWORD :'pw';
\endif
SELECT NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'d') AS no_db \gset
\if :no_db
CREATE DATABASE :"d" OWNER :"u";
\endif
SQL
# The tests make and drop a schema each; the owner may, but say so for PG 15+.
as_postgres_psql "$db" <<'SQL' >&2
GRANT ALL ON SCHEMA public TO :"u";
GRANT CREATE ON DATABASE :"d" TO :"u";
SQL

# 6. The URL (user and password percent-encoded for the URL).
enc() {
    local LC_ALL=C s="$1" out="" c h i
    for ((i = 0; i < ${#s}; i++)); do
        c="${s:i:1}"
        case "$c" in
            [a-zA-Z0-9._~-]) out+="$c" ;;
            *) printf -v h '%%%02X' "'$c"; out+="$h" ;;
        esac
    done
    printf '%s' "$out"
}
echo "postgresql://$(enc "$user"):$(enc "$password")@127.0.0.1:$port/$(enc "$db")"
