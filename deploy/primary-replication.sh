#!/bin/sh
# docker compose: lets the read replica (profile "replicas") stream from the primary.
# Runs once, when the primary's data volume is initialised (docker-entrypoint-initdb.d).
set -e
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
