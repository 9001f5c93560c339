#!/bin/sh
# Writes PgBouncer's configuration from the environment and runs it in the foreground.
#   POSTGRES_HOST, POSTGRES_PORT (5432), POSTGRES_USER, POSTGRES_PASSWORD: the server and the one role the
#   project uses (clients authenticate to PgBouncer with the same name and password, SCRAM);
#   POOL_SIZE (20): server connections per database; MAX_CLIENT_CONN (2000): client connections.
set -eu
: "${POSTGRES_HOST:?}" "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD:?}"
dir=$(mktemp -d)
printf '"%s" "%s"\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" > "$dir/userlist.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=$POSTGRES_HOST port=${POSTGRES_PORT:-5432}

[pgbouncer]
listen_addr = *
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
; Transactions, not sessions, hold a server connection: the project keeps no session state
; (DATABASE_POOLER=transaction in its environment).
pool_mode = transaction
default_pool_size = ${POOL_SIZE:-20}
max_client_conn = ${MAX_CLIENT_CONN:-2000}
ignore_startup_parameters = extra_float_digits,options
INI
exec pgbouncer "$dir/pgbouncer.ini"
