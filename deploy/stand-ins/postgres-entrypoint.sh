#!/bin/sh
# The official postgres image's start, in short: a new data folder is made with the superuser
# POSTGRES_USER (password POSTGRES_PASSWORD, required from other hosts) and the database
# POSTGRES_DB; then the server runs as the user postgres, listening on every address.
set -eu
user="${POSTGRES_USER:-postgres}"
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  printf '%s\n' "$POSTGRES_PASSWORD" > /run/postgresql/pwfile
  chown postgres /run/postgresql/pwfile
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile=/run/postgresql/pwfile -E UTF8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /run/postgresql/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
if [ "$1" = postgres ]; then
  shift
  exec setpriv --reuid=postgres --regid=postgres --init-groups -- postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
