#!/usr/bin/env bash
# Throwaway real TimescaleDB for tests: PostgreSQL 17 + TimescaleDB (Apache-2 edition) from
# Debian 13 (trixie), run inside a cached debootstrap chroot on a Debian host (no Docker).
#
#   scripts/testdb.sh start    build the chroot if needed (cached), start a fresh cluster,
#                              print ONLY its URL on stdout (progress goes to stderr).
#                              Idempotent: if this instance already runs, print its URL.
#                              The first build (debootstrap, ~40 s, ~414 MB) prints each
#                              step with the elapsed time, at least every 10 s; a failed
#                              build keeps its log in $TESTDB_CHROOT.failed-build.log.
#   scripts/testdb.sh stop     stop this instance's cluster and delete its data dir.
#   scripts/testdb.sh status   print "running" or "stopped".
#
# Outage drills for tests (same TESTDB_NAME):
#   scripts/testdb.sh pause    stop the server, keep its data (connections are closed;
#                              new ones are refused).
#   scripts/testdb.sh resume   start it again on the same port, with the same data.
#   scripts/testdb.sh freeze   SIGSTOP the postmaster and all its child processes (backends,
#                              background workers): TCP connections stay open and new ones
#                              are accepted by the kernel, but nothing answers (a hung
#                              server, not a dead one).
#   scripts/testdb.sh thaw     SIGCONT them: everything goes on where it stopped.
#                              `stop` and `pause` thaw a frozen server first.
#
# A streaming read replica of a running instance (for read-replica tests):
#   scripts/testdb.sh replica  create a hot-standby replica of this instance with
#                              pg_basebackup (a physical replication slot keeps the WAL it
#                              needs), start it on the next free port after the primary's,
#                              print ONLY its URL on stdout. Idempotent like `start`. The
#                              replica is read-only (pg_is_in_recovery() is true).
#   scripts/testdb.sh replica-stop            stop and delete the replica, drop its slot.
#   scripts/testdb.sh replica-status          print "running" or "stopped".
#   scripts/testdb.sh replica-pause|replica-resume|replica-freeze|replica-thaw
#                              the outage drills above, on the replica (a paused or frozen
#                              replica catches up when it is back).
#   `stop` of the instance stops and deletes its replica too; so does the orphan cleanup.
#
# PostgreSQL's own client tools, of the chroot's version (for backup and restore tests):
#   scripts/testdb.sh client pg_dump|pg_restore|psql ARGS...
#                              run the tool inside the chroot as postgres (the network is
#                              the host's: -h 127.0.0.1 -p PORT); stdin and stdout pass
#                              through, so `pg_dump -Fc ... > file` and
#                              `pg_restore -d ... < file` work on host files.
#
# Environment:
#   TESTDB_CHROOT      chroot dir (default /var/tmp/gws-timescaledb-trixie), outside the repo
#   TESTDB_PORT        preferred port (default 54329); the next free one is used if busy
#   TESTDB_NAME        instance name (default "default"); scripts/test.sh uses one per run so
#                      concurrent test runs never share or stop each other's cluster
#   TESTDB_OWNER_PID   optional pid owning the instance; once that pid is gone, the next
#                      `start` of any instance stops the orphaned cluster
#
# Exit codes: 0 ok; 3 cannot run here (one line on stderr says why and what to do); 1 error.
set -euo pipefail

export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}"

CHROOT="${TESTDB_CHROOT:-/var/tmp/gws-timescaledb-trixie}"
CHROOT="${CHROOT%/}"
PREFERRED_PORT="${TESTDB_PORT:-54329}"
NAME="${TESTDB_NAME:-default}"
OWNER_PID="${TESTDB_OWNER_PID:-}"
SUITE=trixie
PGVER=17
PGBIN="/usr/lib/postgresql/${PGVER}/bin"
STAMP_NAME=".gws-testdb-complete"
LOCK_FILE="${CHROOT}.lock"
LOCK_WAIT="${TESTDB_LOCK_WAIT:-1200}"
BUILD_TMP=""
DEBOOTSTRAP_PID=""
FAILED_LOG="${CHROOT}.failed-build.log"
CHROOT_BIN=$(command -v chroot || true)

log() { printf 'testdb: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
unavailable() {
  local how="set TEST_DATABASE_URL, e.g. 'docker compose up -d db' then"
  how+=" 'TEST_DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres npm test'"
  printf 'testdb: cannot run a TimescaleDB here (%s); point the tests at a database instead: %s\n' "$*" "$how" >&2
  exit 3
}

usage() {
  echo "usage: $0 start|stop|status|pause|resume|freeze|thaw|replica|replica-stop|replica-status|replica-pause|replica-resume|replica-freeze|replica-thaw|client TOOL ARGS..." >&2
  exit 2
}

[[ $NAME =~ ^[A-Za-z0-9_.-]+$ ]] || die "TESTDB_NAME must match [A-Za-z0-9_.-]+ (got '$NAME')"
if ! [[ $PREFERRED_PORT =~ ^[0-9]+$ ]] || ((PREFERRED_PORT < 1024 || PREFERRED_PORT > 65000)); then
  die "TESTDB_PORT must be a number in 1024..65000 (got '$PREFERRED_PORT')"
fi
[[ -z $OWNER_PID || $OWNER_PID =~ ^[0-9]+$ ]] || die "TESTDB_OWNER_PID must be a pid"

# ---------------------------------------------------------------- helpers

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Run a command inside the chroot as the chroot's postgres user, with a clean environment.
# fd 9 (the lock) is closed so a server started this way never inherits the lock.
in_chroot() {
  env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 LANG=C.UTF-8 HOME=/var/lib/postgresql PGTZ=UTC \
    "$CHROOT_BIN" --userspec=postgres:postgres "$CHROOT" "$@" 9>&-
}

chroot_real() { readlink -f -- "$CHROOT"; }

# A process is alive if it exists and is not a zombie.
pid_alive() {
  local pid=$1 state
  [[ -r /proc/$pid/status ]] || return 1
  state=$(awk '/^State:/ { print $2; exit }' "/proc/$pid/status" 2>/dev/null || true)
  [[ -n $state && $state != Z ]]
}

# Postmaster pid of DATA (host path) if it is alive AND runs inside our chroot; else fails.
postmaster_pid() {
  local data=$1 pid root
  [[ -f $data/postmaster.pid ]] || return 1
  pid=$(head -n1 "$data/postmaster.pid" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  pid_alive "$pid" || return 1
  root=$(readlink "/proc/$pid/root" 2>/dev/null || true)
  if [[ $root != "$(chroot_real)" ]]; then
    log "pid $pid from $data/postmaster.pid runs outside $CHROOT (root: ${root:-?}): leaving it alone"
    return 1
  fi
  echo "$pid"
}

# Direct children of postmaster PID (backends, walsenders, background workers), each
# checked to be its child and to run inside our chroot, just before it is listed.
postmaster_children() {
  local ppid=$1 c
  for c in $(ps -o pid= --ppid "$ppid" 2>/dev/null || true); do
    [[ $(awk '{ print $4 }' "/proc/$c/stat" 2>/dev/null) == "$ppid" ]] || continue
    [[ $(readlink "/proc/$c/root" 2>/dev/null) == "$(chroot_real)" ]] || continue
    echo "$c"
  done
}

# SIGSTOP (freeze) or SIGCONT (thaw) the postmaster of DATA and all its children. Freezing
# stops the postmaster first, so no child is forked after the list is taken; thawing wakes
# the children first, then the postmaster. Prints the number of processes signalled.
signal_cluster() {
  local sig=$1 data=$2 pid c n=0
  pid=$(postmaster_pid "$data") || return 1
  if [[ $sig == STOP ]]; then
    kill -STOP "$pid" && n=1
    for c in $(postmaster_children "$pid"); do kill -STOP "$c" 2>/dev/null && n=$((n + 1)); done
  else
    for c in $(postmaster_children "$pid"); do kill -CONT "$c" 2>/dev/null && n=$((n + 1)); done
    kill -CONT "$pid" && n=$((n + 1))
  fi
  echo "$n"
}

# Unmount anything mounted below DIR (an interrupted debootstrap can leave proc/sys mounted),
# then delete DIR without crossing file systems.
safe_rm() {
  local dir=$1 m
  [[ -n $dir && $dir != / && -e $dir ]] || return 0
  while read -r m; do
    umount -l -- "$m" 2>/dev/null || log "warning: could not unmount $m"
  done < <(awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r)
  rm -rf --one-file-system -- "$dir"
}

port_in_use() {
  local port=$1
  # Connecting succeeds only if something listens there (refused immediately otherwise).
  timeout 3 bash -c ": </dev/tcp/127.0.0.1/$port" 2>/dev/null
}

url_for() { printf 'postgres://postgres@127.0.0.1:%s/postgres\n' "$1"; }

state_file() { printf '%s/var/tmp/gws-testdb-%s.state' "$CHROOT" "$1"; }
data_rel() { printf '/var/tmp/gws-data-%s' "$1"; }          # path inside the chroot
data_host() { printf '%s%s' "$CHROOT" "$(data_rel "$1")"; }  # same path on the host

replica_file() { printf '%s/var/tmp/gws-testdb-%s.replica' "$CHROOT" "$1"; }
REPLICA_SLOT=gws_testdb_replica

# Reads the port of instance $1's replica into REPLICA_PORT; fails if it has none.
read_replica() {
  local f
  f=$(replica_file "$1")
  REPLICA_PORT=""
  [[ -f $f ]] || return 1
  read -r REPLICA_PORT <"$f" || true
  [[ $REPLICA_PORT =~ ^[0-9]+$ ]]
}

# Succeeds if the data dir of PORT $2 is marked as belonging to $1 ("NAME" for an
# instance's primary, "NAME/replica" for its replica).
data_owned_by() {
  local data
  data=$(data_host "$2")
  [[ -f $data/gws-testdb-instance && $(cat "$data/gws-testdb-instance" 2>/dev/null) == "$1" ]]
}

# Succeeds (printing the port) if instance $1's replica has a live postmaster in its data dir.
replica_running() {
  read_replica "$1" || return 1
  data_owned_by "$1/replica" "$REPLICA_PORT" || return 1
  postmaster_pid "$(data_host "$REPLICA_PORT")" >/dev/null || return 1
  echo "$REPLICA_PORT"
}

# psql as postgres on 127.0.0.1:PORT, inside the chroot; gives up after 3 s on a server that
# does not answer (paused, frozen).
psql_on() {
  in_chroot "$PGBIN/psql" -X -At -h 127.0.0.1 -p "$1" -U postgres \
    -d "dbname=postgres connect_timeout=3 options='-c statement_timeout=5000'" -c "$2" </dev/null
}

# Drop the replica's replication slot on the primary (port $1) unless a replica uses it.
drop_slot() {
  psql_on "$1" "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
                WHERE slot_name = '$REPLICA_SLOT' AND NOT active" >/dev/null 2>&1 \
    || log "warning: could not drop replication slot $REPLICA_SLOT on port $1"
}

# Stop and delete instance $1's replica, if any; with a primary port $2, drop its slot there.
stop_replica() {
  local name=$1 pport=${2:-}
  if read_replica "$name" && data_owned_by "$name/replica" "$REPLICA_PORT"; then
    stop_data "$REPLICA_PORT"
  fi
  rm -f -- "$(replica_file "$name")"
  if [[ -n $pport ]]; then drop_slot "$pport"; fi
}

# Reads "port owner" of instance $1 into STATE_PORT / STATE_OWNER; fails if none.
read_state() {
  local f
  f=$(state_file "$1")
  STATE_PORT=""; STATE_OWNER=""
  [[ -f $f ]] || return 1
  read -r STATE_PORT STATE_OWNER <"$f" || true
  [[ $STATE_PORT =~ ^[0-9]+$ ]]
}

# Succeeds if the data dir of PORT is still claimed by an instance's state file: a paused
# instance keeps its data dir while nothing listens on its port, and another instance's
# start must not take it for a stale one.
data_claimed() {
  local port=$1 data owner
  data=$(data_host "$port")
  [[ -f $data/gws-testdb-instance ]] || return 1
  owner=$(cat "$data/gws-testdb-instance" 2>/dev/null || true)
  if [[ $owner =~ ^([A-Za-z0-9_.-]+)/replica$ ]]; then
    (read_replica "${BASH_REMATCH[1]}" && [[ $REPLICA_PORT == "$port" ]])
    return
  fi
  [[ $owner =~ ^[A-Za-z0-9_.-]+$ ]] || return 1
  (read_state "$owner" && [[ $STATE_PORT == "$port" ]])
}

# Succeeds (printing the port) if instance $1 has a live postmaster in its own data dir.
instance_running() {
  local name=$1 data
  read_state "$name" || return 1
  data=$(data_host "$STATE_PORT")
  [[ -f $data/gws-testdb-instance && $(cat "$data/gws-testdb-instance") == "$name" ]] || return 1
  postmaster_pid "$data" >/dev/null || return 1
  echo "$STATE_PORT"
}

# Stop the cluster in data dir of PORT (signalling only a verified postmaster), delete it.
stop_data() {
  local port=$1 data pid i
  data=$(data_host "$port")
  if pid=$(postmaster_pid "$data"); then
    log "stopping postmaster $pid (port $port)"
    signal_cluster CONT "$data" >/dev/null || true    # a frozen server cannot shut down
    kill -INT "$pid" 2>/dev/null || true              # fast shutdown
    for ((i = 0; i < 300; i++)); do pid_alive "$pid" || break; sleep 0.1; done
    if pid_alive "$pid"; then
      log "postmaster $pid still up after 30 s: immediate shutdown"
      kill -QUIT "$pid" 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do pid_alive "$pid" || break; sleep 0.1; done
    fi
    pid_alive "$pid" && die "postmaster $pid did not stop; data dir $data kept"
  fi
  safe_rm "$data"
}

stop_instance() {
  local name=$1
  stop_replica "$name"       # first: it would only retry connecting to a stopped primary
  if read_state "$name"; then
    local data
    data=$(data_host "$STATE_PORT")
    # Only touch the data dir if it still belongs to this instance.
    if [[ -f $data/gws-testdb-instance && $(cat "$data/gws-testdb-instance") == "$name" ]]; then
      stop_data "$STATE_PORT"
    fi
  fi
  rm -f -- "$(state_file "$name")"
}

# Stop clusters whose owner process (TESTDB_OWNER_PID of the run that started them) is gone,
# e.g. after a test run was killed before its trap could stop them.
gc_orphans() {
  local f name
  shopt -s nullglob
  for f in "$CHROOT"/var/tmp/gws-testdb-*.state; do
    name=${f##*/gws-testdb-}; name=${name%.state}
    read_state "$name" || { rm -f -- "$f"; continue; }
    if [[ -n $STATE_OWNER ]] && ! pid_alive "$STATE_OWNER"; then
      log "instance '$name' (port $STATE_PORT): owner $STATE_OWNER is gone; stopping it"
      stop_instance "$name"
    fi
  done
  for f in "$CHROOT"/var/tmp/gws-testdb-*.replica; do
    name=${f##*/gws-testdb-}; name=${name%.replica}
    if [[ ! -f $(state_file "$name") ]]; then
      log "replica of instance '$name' has no primary record; stopping it"
      stop_replica "$name"
    fi
  done
  shopt -u nullglob
}

require_host() {
  [[ $(uname -s) == Linux ]] || unavailable "not Linux"
  [[ $(id -u) -eq 0 ]] || unavailable "needs root for chroot, running as $(id -un)"
  [[ -n $CHROOT_BIN ]] || unavailable "no chroot command"
  command -v flock >/dev/null || unavailable "no flock command"
}

take_lock() {
  mkdir -p -- "$(dirname -- "$CHROOT")"
  exec 9>>"$LOCK_FILE"
  if ! flock -n 9; then
    log "waiting for another testdb.sh holding $LOCK_FILE (up to ${LOCK_WAIT}s)"
    flock -w "$LOCK_WAIT" 9 || die "timed out waiting for $LOCK_FILE"
  fi
}

on_exit() {
  if [[ -n $DEBOOTSTRAP_PID ]] && pid_alive "$DEBOOTSTRAP_PID"; then
    local pgid i
    pgid=$(ps -o pgid= -p "$DEBOOTSTRAP_PID" 2>/dev/null | tr -d ' ' || true)
    log "stopping debootstrap (pid $DEBOOTSTRAP_PID)"
    if [[ $pgid == "$DEBOOTSTRAP_PID" ]]; then
      kill -TERM -- "-$pgid" 2>/dev/null || true     # its own group: debootstrap and its children
    else
      kill -TERM "$DEBOOTSTRAP_PID" 2>/dev/null || true
    fi
    for ((i = 0; i < 100; i++)); do pid_alive "$DEBOOTSTRAP_PID" || break; sleep 0.1; done
  fi
  if [[ -n $BUILD_TMP && -e $BUILD_TMP ]]; then
    log "removing unfinished build $BUILD_TMP"
    safe_rm "$BUILD_TMP"
  fi
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- chroot build

ensure_debootstrap() {
  command -v debootstrap >/dev/null && return 0
  if ! command -v apt-get >/dev/null || [[ ! -f /etc/debian_version ]]; then
    unavailable "no debootstrap and no Debian apt-get to install it"
  fi
  log "installing debootstrap with apt-get"
  {
    DEBIAN_FRONTEND=noninteractive apt-get update -q \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  } </dev/null >&2 || unavailable "apt-get could not install debootstrap"
  command -v debootstrap >/dev/null || unavailable "debootstrap still missing after apt-get install"
}

secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%d", b - a }'; }

# debootstrap's current step from its output so far: "step<TAB>detail".
build_step() {
  awk '
    function pkg(s) { s = $3; sub(/\.\.\.$/, "", s); sub(/:[a-z0-9]+$/, "", s); return s }
    /^I: (Retrieving|Validating) (InRelease|Release|Packages)/ || /^I: (Checking|Valid) Release/ {
      step = "downloading package lists"; detail = ""; next }
    /^I: Resolving dependencies/    { step = "resolving dependencies"; detail = ""; next }
    /^I: Checking component/        { step = "downloading packages"; detail = ""; next }
    /^I: Retrieving /               { step = "downloading packages"; d++; detail = d " so far, " pkg(); next }
    /^I: Extracting /               { step = "extracting essential packages"; x++; detail = x " so far, " pkg(); next }
    /^I: Installing core packages/  { step = "installing core packages"; detail = ""; next }
    /^I: Unpacking /                { step = "unpacking packages"; u++; detail = u " so far, " pkg(); next }
    /^I: Configuring /              { step = "configuring packages"; c++; detail = c " so far, " pkg(); next }
    /^I: Base system installed/     { step = "base system installed"; detail = ""; next }
    /^[WE]: /                       { detail = $0 }
    END { printf "%s\t%s\n", (step == "" ? "starting" : step), detail }
  ' "$1" 2>/dev/null
}

# While debootstrap (PID) runs: a line on stderr at each new step, and at least every 10 s.
build_progress() {
  local pid=$1 blog=$2 t0=$3 cur step detail last_step="" last_print=0 t
  while kill -0 "$pid" 2>/dev/null; do
    cur=$(build_step "$blog")
    step=${cur%%$'\t'*}; detail=${cur#*$'\t'}
    t=$(secs_since "$t0")
    if [[ $step != "$last_step" ]] || ((t - last_print >= 10)); then
      log "[${t}s] debootstrap: $step${detail:+ ($detail)}"
      last_step=$step; last_print=$t
    fi
    sleep 1
  done
}

# Keep the log of a failed build (debootstrap's own debootstrap.log appended), show its end.
build_failed() {
  local rc=$1 blog=$2 t0=$3 inner="$BUILD_TMP/debootstrap/debootstrap.log"
  {
    cat -- "$blog"
    if [[ -f $inner ]]; then
      printf '\n----- %s -----\n' "$inner"
      cat -- "$inner"
    fi
  } >"$FAILED_LOG" 2>/dev/null || true
  rm -f -- "$blog"
  log "[$(secs_since "$t0")s] debootstrap FAILED (exit $rc); last lines of its output:"
  grep -v '^$' "$FAILED_LOG" | sed -n '/^----- /q;p' | tail -n 12 | sed 's/^/  | /' >&2 || true
  if [[ -f $inner ]]; then
    log "last lines of debootstrap's own log (appended to the kept log):"
    tail -n 12 -- "$inner" | sed 's/^/  | /' >&2 || true
  fi
  die "debootstrap failed; build log kept: $FAILED_LOG"
}

ensure_chroot() {
  [[ -f $CHROOT/$STAMP_NAME ]] && return 0
  ensure_debootstrap
  local d t0 blog
  shopt -s nullglob
  for d in "$CHROOT".build.*; do
    if [[ -d $d ]]; then
      log "removing leftover unfinished build $d"
      safe_rm "$d"
    else
      rm -f -- "$d"                # its build log
    fi
  done
  shopt -u nullglob
  if [[ -e $CHROOT ]]; then
    log "$CHROOT exists without $STAMP_NAME (unfinished/foreign); removing it"
    safe_rm "$CHROOT"
  fi
  BUILD_TMP=$(mktemp -d "$CHROOT.build.XXXXXX")
  chmod 0755 "$BUILD_TMP"    # mktemp makes it 0700: the chroot's postgres user must traverse /
  blog="$BUILD_TMP.log"
  t0=$(now)
  log "building $SUITE chroot with postgresql-$PGVER + timescaledb into $BUILD_TMP (log: $blog); ~1 min, ~400 MB"
  local rc=0
  # In a process group of its own (setsid: pgid = its pid), so that an interrupted build
  # can stop debootstrap together with the dpkg/wget it runs.
  setsid debootstrap --variant=minbase --include="postgresql-$PGVER,postgresql-$PGVER-timescaledb" \
    "$SUITE" "$BUILD_TMP" </dev/null >"$blog" 2>&1 9>&- &
  DEBOOTSTRAP_PID=$!
  build_progress "$DEBOOTSTRAP_PID" "$blog" "$t0"
  wait "$DEBOOTSTRAP_PID" || rc=$?
  DEBOOTSTRAP_PID=""
  if ((rc != 0)); then
    build_failed "$rc" "$blog" "$t0"
  fi
  log "[$(secs_since "$t0")s] debootstrap done; trimming the tree (apt caches, docs, locales)"
  # Leave no mounts behind, then drop what a test server never reads.
  local m
  while read -r m; do umount -l -- "$m" || true; done \
    < <(awk -v d="$BUILD_TMP" 'index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r)
  # Cluster "main" created by postgresql-common's postinst: never used (we initdb our own).
  rm -rf -- "$BUILD_TMP/var/lib/postgresql/$PGVER/main" "$BUILD_TMP/etc/postgresql/$PGVER/main"
  rm -rf -- "$BUILD_TMP"/var/cache/apt/archives/*.deb "$BUILD_TMP"/var/cache/apt/*.bin \
    "$BUILD_TMP"/var/lib/apt/lists/* "$BUILD_TMP"/var/cache/debconf/*-old \
    "$BUILD_TMP"/usr/share/doc/* "$BUILD_TMP"/usr/share/man/* "$BUILD_TMP"/usr/share/info/* \
    "$BUILD_TMP"/usr/share/locale/* "$BUILD_TMP"/var/log/*.log "$BUILD_TMP"/var/log/apt/*
  [[ -x $BUILD_TMP$PGBIN/postgres ]] || die "build has no $PGBIN/postgres"
  compgen -G "$BUILD_TMP/usr/lib/postgresql/$PGVER/lib/timescaledb*.so" >/dev/null \
    || die "build has no timescaledb library"
  {
    echo "built $(date -u +%FT%TZ) by scripts/testdb.sh"
    chroot "$BUILD_TMP" dpkg-query -W "postgresql-$PGVER" "postgresql-$PGVER-timescaledb" 2>/dev/null || true
  } >"$BUILD_TMP/$STAMP_NAME"
  mv -T -- "$BUILD_TMP" "$CHROOT"        # atomic: the chroot appears complete or not at all
  BUILD_TMP=""
  rm -f -- "$blog" "$FAILED_LOG"
  log "[$(secs_since "$t0")s] chroot ready ($(du -sh "$CHROOT" 2>/dev/null | cut -f1)): $CHROOT"
}

# ---------------------------------------------------------------- cluster

# Try to create and start a fresh cluster on PORT. Returns 0 started, 10 port taken, 1 error.
start_on_port() {
  local port=$1 rel data
  rel=$(data_rel "$port"); data=$(data_host "$port")
  if [[ -e $data ]]; then
    if postmaster_pid "$data" >/dev/null; then return 10; fi
    if data_claimed "$port"; then return 10; fi        # a paused instance's data
    log "removing stale data dir $data"
    safe_rm "$data"
  fi
  in_chroot "$PGBIN/initdb" -D "$rel" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    </dev/null >"$CHROOT/var/tmp/gws-initdb-$port.log" 2>&1 \
    || { cat "$CHROOT/var/tmp/gws-initdb-$port.log" >&2; rm -f -- "$CHROOT/var/tmp/gws-initdb-$port.log"; safe_rm "$data"; return 1; }
  rm -f -- "$CHROOT/var/tmp/gws-initdb-$port.log"
  printf '%s\n' "$NAME" >"$data/gws-testdb-instance"
  cat >>"$data/postgresql.conf" <<EOF

# --- scripts/testdb.sh: throwaway test cluster ---
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$rel'
shared_preload_libraries = 'timescaledb'
timescaledb.telemetry_level = off
jit = off
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
# streaming replication for scripts/testdb.sh replica (PostgreSQL 17's defaults, stated)
wal_level = replica
max_wal_senders = 10
max_replication_slots = 10
hot_standby = on
EOF
  # initdb -A trust allows replication connections from 127.0.0.1; make sure of it.
  grep -qE '^[[:space:]]*host[[:space:]]+replication[[:space:]]+(all|postgres)[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' \
    "$data/pg_hba.conf" || printf 'host replication postgres 127.0.0.1/32 trust\n' >>"$data/pg_hba.conf"
  if ! in_chroot "$PGBIN/pg_ctl" -D "$rel" -l "$rel/server.log" -w -t 60 start </dev/null >/dev/null 2>&1; then
    if grep -qE 'could not bind|Address already in use|could not create any TCP/IP sockets' "$data/server.log" 2>/dev/null; then
      safe_rm "$data"
      return 10
    fi
    tail -n 25 "$data/server.log" >&2 || true
    stop_data "$port"
    return 1
  fi
  return 0
}

cmd_start() {
  local t0 port rc tries version
  t0=$(now)
  require_host
  take_lock
  ensure_chroot
  gc_orphans
  if port=$(instance_running "$NAME"); then
    log "instance '$NAME' already running on port $port"
    url_for "$port"
    return 0
  fi
  stop_instance "$NAME"      # clear stale state of a crashed earlier run
  port=$PREFERRED_PORT
  for ((tries = 0; ; tries++)); do
    ((tries < 50 && port <= 65000)) || die "no free port in $PREFERRED_PORT..$port"
    if port_in_use "$port"; then
      port=$((port + 1)); continue
    fi
    rc=0; start_on_port "$port" || rc=$?
    case $rc in
      0) break ;;
      10) port=$((port + 1)) ;;
      *) die "could not start PostgreSQL $PGVER on port $port" ;;
    esac
  done
  [[ $port == "$PREFERRED_PORT" ]] || log "port $PREFERRED_PORT busy; using $port"
  printf '%s %s\n' "$port" "$OWNER_PID" >"$(state_file "$NAME")"
  # Verify the server answers over TCP (as the host will) and offers timescaledb.
  version=$(in_chroot "$PGBIN/psql" -X -At -h 127.0.0.1 -p "$port" -U postgres -d postgres \
    -c "SELECT default_version FROM pg_available_extensions WHERE name = 'timescaledb'" </dev/null 2>&1) \
    || { log "$version"; stop_instance "$NAME"; die "server on port $port does not answer"; }
  [[ -n $version ]] || { stop_instance "$NAME"; die "timescaledb extension not available"; }
  log "PostgreSQL $PGVER + timescaledb $version ready on port $port (instance '$NAME', $(elapsed "$t0")s)"
  url_for "$port"
}

cmd_stop() {
  require_host
  [[ -d $CHROOT ]] || { log "no chroot at $CHROOT: nothing to stop"; return 0; }
  take_lock
  if read_state "$NAME" || read_replica "$NAME"; then
    stop_instance "$NAME"
    log "instance '$NAME' stopped"
  else
    log "instance '$NAME' not running"
  fi
}

cmd_status() {
  local port
  if [[ -d $CHROOT/var/tmp ]] && port=$(instance_running "$NAME" 2>/dev/null); then
    log "instance '$NAME': $(url_for "$port")"
    echo running
  else
    echo stopped
  fi
}

# ---------------------------------------------------------------- drills

# Sets TARGET_PORT and TARGET_LABEL for a drill on this instance ("primary") or its replica.
target() {
  if [[ $1 == replica ]]; then
    if ! { read_replica "$NAME" && data_owned_by "$NAME/replica" "$REPLICA_PORT"; }; then
      die "instance '$NAME' has no replica (TESTDB_NAME=$NAME $0 replica)"
    fi
    TARGET_PORT=$REPLICA_PORT; TARGET_LABEL="replica of instance '$NAME'"
  else
    read_state "$NAME" || die "instance '$NAME' not started"
    TARGET_PORT=$STATE_PORT; TARGET_LABEL="instance '$NAME'"
  fi
}

# Outage drills for tests: stop the server but keep its data, then start it again on the
# same port (stop/start would throw the data away).
cmd_pause() {
  require_host
  target "$1"
  signal_cluster CONT "$(data_host "$TARGET_PORT")" >/dev/null 2>&1 || true   # thaw a frozen server
  in_chroot "$PGBIN/pg_ctl" -D "$(data_rel "$TARGET_PORT")" -m fast -w -t 30 stop </dev/null >/dev/null 2>&1 \
    || die "could not pause $TARGET_LABEL"
  log "$TARGET_LABEL paused (data kept)"
}

cmd_resume() {
  require_host
  target "$1"
  local rel
  rel=$(data_rel "$TARGET_PORT")
  in_chroot "$PGBIN/pg_ctl" -D "$rel" -l "$rel/server.log" -w -t 60 start </dev/null >/dev/null 2>&1 \
    || die "could not resume $TARGET_LABEL"
  log "$TARGET_LABEL resumed on port $TARGET_PORT"
}

# Hung-server drills: freeze every process of the cluster (SIGSTOP), thaw it (SIGCONT).
cmd_freeze() {
  local sig=$2 what=$3 n
  require_host
  target "$1"
  n=$(signal_cluster "$sig" "$(data_host "$TARGET_PORT")") \
    || die "$TARGET_LABEL has no running server on port $TARGET_PORT"
  log "$TARGET_LABEL $what (port $TARGET_PORT; postmaster and $((n - 1)) child processes)"
}

# ---------------------------------------------------------------- replica

# Try to create and start instance NAME's replica of the primary on port $1, on port $2.
# Returns 0 started, 10 port taken, 1 error.
start_replica_on_port() {
  local pport=$1 port=$2 rel data blog
  rel=$(data_rel "$port"); data=$(data_host "$port")
  if [[ -e $data ]]; then
    if postmaster_pid "$data" >/dev/null; then return 10; fi
    if data_claimed "$port"; then return 10; fi        # a paused instance's data
    log "removing stale data dir $data"
    safe_rm "$data"
  fi
  drop_slot "$pport"                                   # left by an earlier attempt
  blog="$CHROOT/var/tmp/gws-basebackup-$port.log"
  # -R: standby.signal + primary_conninfo/primary_slot_name; -C -S: a physical slot, so the
  # primary keeps the WAL a paused replica still needs.
  if ! in_chroot "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres -D "$rel" \
      -X stream -R -C -S "$REPLICA_SLOT" --checkpoint=fast --no-sync </dev/null >"$blog" 2>&1; then
    cat -- "$blog" >&2
    rm -f -- "$blog"
    safe_rm "$data"
    drop_slot "$pport"
    return 1
  fi
  rm -f -- "$blog" "$data/server.log"                 # the primary's log, copied along
  printf '%s/replica\n' "$NAME" >"$data/gws-testdb-instance"
  cat >>"$data/postgresql.conf" <<EOF

# --- scripts/testdb.sh: hot-standby streaming replica of instance '$NAME' (primary port $pport) ---
port = $port
unix_socket_directories = '$rel'
hot_standby = on
hot_standby_feedback = on
wal_receiver_status_interval = 1s
wal_retrieve_retry_interval = 1s
EOF
  if ! in_chroot "$PGBIN/pg_ctl" -D "$rel" -l "$rel/server.log" -w -t 60 start </dev/null >/dev/null 2>&1; then
    if grep -qE 'could not bind|Address already in use|could not create any TCP/IP sockets' "$data/server.log" 2>/dev/null; then
      safe_rm "$data"
      drop_slot "$pport"
      return 10
    fi
    tail -n 25 "$data/server.log" >&2 || true
    stop_data "$port"
    drop_slot "$pport"
    return 1
  fi
  return 0
}

cmd_replica() {
  local t0 pport port rc tries i status=""
  t0=$(now)
  require_host
  [[ -d $CHROOT/var/tmp ]] || die "no chroot at $CHROOT: start the instance first"
  take_lock
  pport=$(instance_running "$NAME") \
    || die "instance '$NAME' is not running: start it first (TESTDB_NAME=$NAME $0 start)"
  if port=$(replica_running "$NAME"); then
    log "replica of instance '$NAME' already running on port $port"
    url_for "$port"
    return 0
  fi
  stop_replica "$NAME" "$pport"      # clear what a crashed earlier replica left
  port=$((pport + 1))
  for ((tries = 0; ; tries++)); do
    ((tries < 50 && port <= 65000)) || die "no free port for the replica in $((pport + 1))..$port"
    if port_in_use "$port"; then
      port=$((port + 1)); continue
    fi
    rc=0; start_replica_on_port "$pport" "$port" || rc=$?
    case $rc in
      0) break ;;
      10) port=$((port + 1)) ;;
      *) die "could not start a replica of instance '$NAME' on port $port" ;;
    esac
  done
  printf '%s\n' "$port" >"$(replica_file "$NAME")"
  # A hot standby that answers over TCP, and streams from the primary.
  for ((i = 0; i < 100; i++)); do
    status=$(psql_on "$port" "SELECT pg_is_in_recovery()::text || ' ' || coalesce((SELECT status FROM pg_stat_wal_receiver), 'none')" 2>/dev/null || true)
    [[ $status == "true streaming" ]] && break
    sleep 0.1
  done
  if [[ $status != "true streaming" ]]; then
    tail -n 25 "$(data_host "$port")/server.log" >&2 || true
    stop_replica "$NAME" "$pport"
    die "replica on port $port is not streaming from port $pport (recovery, receiver: ${status:-no answer})"
  fi
  log "streaming replica of instance '$NAME' (primary port $pport) ready on port $port ($(elapsed "$t0")s)"
  url_for "$port"
}

cmd_replica_stop() {
  require_host
  [[ -d $CHROOT/var/tmp ]] || { log "no chroot at $CHROOT: nothing to stop"; return 0; }
  take_lock
  local pport=""
  pport=$(instance_running "$NAME" 2>/dev/null) || pport=""
  if read_replica "$NAME"; then
    stop_replica "$NAME" "$pport"
    log "replica of instance '$NAME' stopped"
  else
    log "instance '$NAME' has no replica"
  fi
}

cmd_replica_status() {
  local port
  if [[ -d $CHROOT/var/tmp ]] && port=$(replica_running "$NAME" 2>/dev/null); then
    log "replica of instance '$NAME': $(url_for "$port")"
    echo running
  else
    echo stopped
  fi
}

cmd_client() {
  local tool=${1:-}
  case $tool in
    pg_dump | pg_restore | psql) ;;
    *) die "client: pg_dump, pg_restore or psql (got '$tool')" ;;
  esac
  shift
  require_host
  [[ -x $CHROOT$PGBIN/$tool ]] || die "no $tool in $CHROOT (run '$0 start' once to build the chroot)"
  in_chroot "$PGBIN/$tool" "$@"
}

case "${1:-}" in
  start) cmd_start ;;
  client) shift; cmd_client "$@" ;;
  pause) cmd_pause primary ;;
  resume) cmd_resume primary ;;
  freeze) cmd_freeze primary STOP frozen ;;
  thaw) cmd_freeze primary CONT thawed ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  replica) cmd_replica ;;
  replica-stop) cmd_replica_stop ;;
  replica-status) cmd_replica_status ;;
  replica-pause) cmd_pause replica ;;
  replica-resume) cmd_resume replica ;;
  replica-freeze) cmd_freeze replica STOP frozen ;;
  replica-thaw) cmd_freeze replica CONT thawed ;;
  *) usage ;;
esac
