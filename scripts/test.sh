#!/usr/bin/env bash
# `npm test` (after its pretest `npm install`): run every test file with
# `bun test --timeout 60000` (tests start databases and processes: 5 s is too tight on 2
# cores) against a real TimescaleDB, TEST_JOBS files at a time.
#
# - TEST_DATABASE_URL set: used as is.
# - Otherwise scripts/testdb.sh starts a fresh throwaway cluster for this run (its own
#   instance, so concurrent runs never share one) and it is stopped on exit.
#   KEEP_TESTDB=1 uses the shared "default" instance instead and leaves it running
#   (reused by later runs; stop it with `scripts/testdb.sh stop`).
# - testdb.sh exit 3 (no way to run a database here): tests run anyway without
#   TEST_DATABASE_URL, and database tests are skipped (said so in one line).
# - Typecheck first: `tsc --noEmit` (package.json's `npm run typecheck`), its result on one
#   line (`typecheck: ok (4.5 s)`, or `typecheck: N errors` followed by the errors). A failed
#   typecheck fails the run, but the tests still run so both results are seen; the line is
#   repeated next to the summary. TYPECHECK=0 skips it (e.g. for a quick subset).
# - Parallel: each test file runs in a `bun test` process of its own (files are independent:
#   each makes its own scratch database, temp folders and ports); TEST_JOBS of them at once
#   (default 3: on 2 cores most files wait on databases, processes and drills, not on the
#   CPU, but the drills that start several service processes crowd the CPU at 4), the longest first (LONG_FILES below), the next file as soon as one ends. Each
#   file's output is printed in one block when it ends, headed by its name, result and time.
#   The drills that judge timing under their own load (ALONE_FILES below) run last, alone.
#   TEST_JOBS=1 runs them one after the other.
# - Arguments: files or folders choose the test files (other words select the files whose
#   path contains them, like bun's filters); options (-t PATTERN, --todo, ...) are passed to
#   every file's `bun test`.
# - Prints `N passed, N failed[, N skipped]` alone on a line, summed over the files from
#   bun's summaries (skipped = bun's "skip" count only), then, when bun counted todo tests,
#   `N todo: ...` on a line of its own with their names: known bugs pinned by test.todo,
#   which do not fail the run. Failed tests are listed by file just before. Exits non-zero
#   if the typecheck failed, a file's bun failed, any test failed, or no test ran.
# - Leaves nothing behind: the run gets a temp folder of its own (TMPDIR for the tests and
#   their processes, the per-file logs), removed on exit; anything a test left in it is
#   named in a warning line first. TEST_LOG=FILE keeps a copy of the whole output there.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
export PATH="$ROOT/node_modules/.bin:$PATH"

DB_SKIPPED=""
STARTED_DB=""
INTERRUPTED=""

say() { printf 'test.sh: %s\n' "$*" >&2; }

# This run's own temp folder: per-file logs in out/, and tmp/, the TMPDIR of the tests and
# of every process they start (data dirs, spools, Chromium profiles). Removed on exit.
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gws-test.XXXXXX") || { say "cannot make a temp folder in ${TMPDIR:-/tmp}"; exit 1; }
OUT=$RUN_TMP/out
TESTS_TMP=$RUN_TMP/tmp
# What the run's files make once and share (test/support/db.ts: a migrated embedded database's image).
export GWS_TEST_CACHE=$RUN_TMP/cache
mkdir -p "$OUT" "$TESTS_TMP" "$GWS_TEST_CACHE" || exit 1
# TEST_LOG: a copy of everything this run prints (both streams, each kept on its own).
if [[ -n ${TEST_LOG:-} ]]; then
  : >"$TEST_LOG" || { say "cannot write TEST_LOG=$TEST_LOG"; exit 1; }
  exec > >(tee -a "$TEST_LOG") 2> >(tee -a "$TEST_LOG" >&2)
fi
WORKERS=()

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  local pid f left
  # Workers still running (an interrupted run): their bun processes first, then themselves.
  for f in "$RUN_TMP"/bun.*.pid; do
    [[ -f $f ]] && read -r pid <"$f" 2>/dev/null && kill "$pid" 2>/dev/null
  done
  for pid in "${WORKERS[@]}" ${IMAGE_PID:-}; do kill "$pid" 2>/dev/null; done
  if [[ -n $STARTED_DB ]]; then
    TESTDB_NAME=$STARTED_DB bash "$ROOT/scripts/testdb.sh" stop </dev/null || say "warning: could not stop test database '$STARTED_DB'"
    STARTED_DB=""
  fi
  if [[ -z $INTERRUPTED ]]; then
    left=$(find "$TESTS_TMP" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort | head -n 20 | paste -sd ' ' -)
    [[ -n $left ]] && say "warning: the tests left these in their temp folder (a test should remove what it makes; removed now): $left"
  fi
  rm -rf -- "$RUN_TMP"
}
trap cleanup EXIT
trap 'INTERRUPTED=1; exit 130' INT
trap 'INTERRUPTED=1; exit 143' TERM

if ! command -v bun >/dev/null; then
  say "bun not found (expected node_modules/.bin/bun: run through 'npm test' so its pretest 'npm install' runs)"
  exit 1
fi

# ---------------------------------------------------------------- typecheck
TYPECHECK_LINE=""
TYPECHECK_FAILED=""
typecheck() {
  local out rc=0 t0 t1 n
  if [[ ${TYPECHECK:-1} == 0 ]]; then
    TYPECHECK_LINE="typecheck: skipped (TYPECHECK=0)"
    echo "$TYPECHECK_LINE"
    return
  fi
  if ! command -v tsc >/dev/null; then
    TYPECHECK_LINE="typecheck: FAILED (tsc not found: expected node_modules/.bin/tsc from 'npm test's pretest install)"
    TYPECHECK_FAILED=1
    echo "$TYPECHECK_LINE"
    return
  fi
  t0=$(date +%s%N)
  # Two projects: the service (Bun types) and the pages' browser code (DOM types).
  out=$( { tsc --noEmit --pretty false; a=$?; tsc --noEmit --pretty false -p src/pages/client; b=$?; exit $((a | b)); } 2>&1 </dev/null) || rc=$?
  t1=$(date +%s%N)
  if ((rc == 0)); then
    TYPECHECK_LINE=$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "typecheck: ok (%.1f s)", ns / 1e9 }')
    echo "$TYPECHECK_LINE"
    return
  fi
  TYPECHECK_FAILED=1
  n=$(grep -cE 'error TS[0-9]+:' <<<"$out" || true)
  if ((n > 0)); then
    TYPECHECK_LINE="typecheck: $n error$( ((n == 1)) || echo s)"
  else
    TYPECHECK_LINE="typecheck: FAILED (tsc exit code $rc)"
  fi
  echo "$TYPECHECK_LINE"
  printf '%s\n' "$out" | sed 's/^/  /'
}
# The migrated embedded database's image the files share (test/support/db.ts), made beside
# the typecheck rather than by each of the first files at once.
bun -e "await (await import('./test/support/db.ts')).migratedImage()" >"$RUN_TMP/image.log" 2>&1 </dev/null &
IMAGE_PID=$!
typecheck
wait "$IMAGE_PID" || say "warning: could not prepare the embedded database's image (each test file makes its own): $(tail -n 1 "$RUN_TMP/image.log")"
IMAGE_PID=""

# ---------------------------------------------------------------- database
if [[ -n ${TEST_DATABASE_URL:-} ]]; then
  say "using TEST_DATABASE_URL from the environment"
else
  if [[ ${KEEP_TESTDB:-} == 1 ]]; then
    instance=default; owner=""
  else
    instance="run-$$"; owner=$$
  fi
  rc=0
  url=$(TESTDB_NAME=$instance TESTDB_OWNER_PID=$owner bash "$ROOT/scripts/testdb.sh" start </dev/null) || rc=$?
  if ((rc == 0)) && [[ -n $url ]]; then
    [[ ${KEEP_TESTDB:-} == 1 ]] || STARTED_DB=$instance
    export TEST_DATABASE_URL=$url
    say "test database: $url$([[ -n $STARTED_DB ]] && echo " (stopped on exit)" || echo " (KEEP_TESTDB=1: left running)")"
  elif ((rc == 3)); then
    DB_SKIPPED=1
    unset TEST_DATABASE_URL
    say "DATABASE TESTS SKIPPED: no TimescaleDB available here (see the testdb line above); set TEST_DATABASE_URL to run them"
  else
    # A start that began may have left a half-started instance: stop it too.
    [[ ${KEEP_TESTDB:-} == 1 ]] || STARTED_DB=$instance
    say "could not start the test database (scripts/testdb.sh start exited $rc)"
    exit 1
  fi
fi

# ---------------------------------------------------------------- browser
# The page tests (test/pages/*-page*.test.ts) drive Debian's Chromium. Missing: installed
# with apt-get when this is root on Debian, like the database; otherwise one line, and those
# tests are skipped with the reason (BROWSER_SKIP) in their names.
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [[ ! -x $CHROMIUM ]]; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    say "installing Debian's chromium with apt-get for the browser tests (first run only)"
    if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >"$RUN_TMP/apt.log" 2>&1 </dev/null; then
      export BROWSER_SKIP="apt-get could not install chromium ($(tail -n 1 "$RUN_TMP/apt.log"))"
    elif [[ ! -x $CHROMIUM ]]; then
      export BROWSER_SKIP="no Chromium at $CHROMIUM, even after apt-get install chromium"
    fi
  else
    export BROWSER_SKIP="no Chromium at $CHROMIUM and no root apt-get to install Debian's chromium"
  fi
  [[ -n ${BROWSER_SKIP:-} ]] && say "BROWSER TESTS SKIPPED: $BROWSER_SKIP"
fi

# ---------------------------------------------------------------- test files
# Arguments: options go to every file's bun test (those below take a value); the other
# words choose files: an existing file or folder, else every test file whose path has it.
OPTS=()
SEL=()
while (($#)); do
  case $1 in
    -t | --test-name-pattern | --timeout | --preload | --rerun-each | --reporter | --reporter-outfile | --coverage-reporter | --coverage-dir | --seed | --max-concurrency)
      OPTS+=("$1"); shift
      if (($#)); then OPTS+=("$1"); shift; fi ;;
    -*) OPTS+=("$1"); shift ;;
    *) SEL+=("$1"); shift ;;
  esac
done

# Bun's own test file names, anywhere but node_modules and hidden folders.
list_tests() {
  find "${1:-.}" \( -name node_modules -o -name '.?*' \) -prune -o -type f \
    \( -name '*.test.[jt]s' -o -name '*.test.[jt]sx' -o -name '*.test.[mc][jt]s' -o -name '*_test.[jt]s' \
    -o -name '*.spec.[jt]s' -o -name '*_spec.[jt]s' \) -print 2>/dev/null | sed 's#^\./##' | sort
}
if ((${#SEL[@]} == 0)); then
  mapfile -t FILES < <(list_tests .)
else
  mapfile -t ALL < <(list_tests .)
  FILES=()
  for sel in "${SEL[@]}"; do
    rel=${sel#./}
    if [[ -f $rel ]]; then
      FILES+=("$rel")
    elif [[ -d $rel ]]; then
      mapfile -t -O "${#FILES[@]}" FILES < <(list_tests "$rel")
    else
      for f in "${ALL[@]}"; do [[ $f == *"$rel"* ]] && FILES+=("$f"); done
    fi
  done
  mapfile -t FILES < <(printf '%s\n' "${FILES[@]}" | awk 'NF && !seen[$0]++')
fi

# The files that take longest, longest first (seconds of one file with 4 at a time on the
# 2-core machine: real outages, kill -9, replicas, Chromium, big seeds). They start first,
# so that the last files to end are short ones; the rest follow, largest first.
LONG_FILES=(
  test/reliability/db-outage-service-under-load.test.ts  # 150
  test/reliability/db-outage-service-restart.test.ts     # 70
  test/demo/history.test.ts                              # 40
  test/e2e/push-across-processes.test.ts                 # 20
  test/e2e/replicas-and-kill.test.ts                     # 37
  test/storage/time-pages.test.ts                        # 34
  test/storage/retention.test.ts                         # 27
  test/collect/outages.test.ts                           # 24
  test/e2e/read-replicas.test.ts                         # 23
  test/pages/every-page.test.ts                          # 60
  test/pages/war-page.test.ts                            # 40
  test/pages/main-page.test.ts                           # 40
  test/bench/check.test.ts                               # 21
  test/reliability/feed-faults.test.ts                   # 17
  test/routes/divers.test.ts                             # 16
  test/routes/war.test.ts                                # 16
)
# Drills that judge timing under a load of their own (a schedule that must not miss a
# firing while they load the service): run last, alone, so other files do not crowd them.
ALONE_FILES=(
  test/reliability/load-while-collecting.test.ts
)
ordered() {
  local f l
  for l in "${LONG_FILES[@]}"; do
    for f in "${FILES[@]}"; do [[ $f == "$l" ]] && echo "$f"; done
  done
  for f in "${FILES[@]}"; do
    for l in "${LONG_FILES[@]}" "${ALONE_FILES[@]}"; do [[ $f == "$l" ]] && continue 2; done
    printf '%s\t%s\n' "$(stat -c %s "$f" 2>/dev/null || echo 0)" "$f"
  done | sort -t$'\t' -k1,1nr -k2 | cut -f2
}

JOBS=${TEST_JOBS:-3}
if ! [[ $JOBS =~ ^[1-9][0-9]*$ ]]; then
  say "TEST_JOBS must be a whole number >= 1 (got '$JOBS')"
  exit 1
fi

# ---------------------------------------------------------------- run
strip() { sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$@"; }
# A count from bun's summary of one log: " 12 pass", " 0 fail", " 1 skip", " 2 todo".
count() { strip "$2" | awk -v w="$1" '$0 ~ "^[[:space:]]*[0-9]+ " w "[[:space:]]*$" { n = $1 } END { print n + 0 }'; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e9 }'; }
logname() { printf '%s/%s.log' "$OUT" "${1//\//__}"; }
# The children's user + system seconds from bash's `times` (its second line: "0m20.733s 0m9.823s").
cpu_seconds() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f\n", t }'; }

# Pop the next file of the queue (empty when done), under a lock shared by the workers.
next_file() {
  (
    flock 7
    head -n 1 "$RUN_TMP/queue"
    sed -i 1d "$RUN_TMP/queue"
  ) 7>>"$RUN_TMP/queue.lock"
}

# One file's block, printed whole when it ends (under a lock: blocks never interleave).
print_block() {
  local file=$1 log=$2 rc=$3 ns=$4 pass fail skip todo state cpu
  cpu=$(cat "$log.cpu" 2>/dev/null)
  pass=$(count pass "$log"); fail=$(count fail "$log"); skip=$(count skip "$log"); todo=$(count todo "$log")
  state=ok
  ((fail > 0 || rc != 0)) && state=FAILED
  (
    flock 8
    printf '\n── %s: %s, %d pass, %d fail%s%s (%s s%s) ──\n' "$file" "$state" "$pass" "$fail" \
      "$( ((skip > 0)) && echo ", $skip skip")" "$( ((todo > 0)) && echo ", $todo todo")" "$(secs "$ns")" "${cpu:+, CPU $cpu s}"
    # bun's banner, the file's name and its closing counts are in the heading already.
    strip "$log" | awk -v f="$file:" '
      NR <= 3 && (/^bun test v/ || $0 == f || /^$/) { next }
      /^[[:space:]]*[0-9]+ (pass|fail|skip|todo|expect\(\) calls?)[[:space:]]*$/ || /^Ran [0-9]+ tests? across/ { next }
      /^[[:space:]]*$/ { blank = 1; next }
      { if (blank && shown) print ""; blank = 0; shown = 1; print }'
    ((rc != 0 && fail == 0)) && echo "bun exited with code $rc (no failed test counted: an error outside the tests, above)"
  ) 8>>"$RUN_TMP/print.lock"
}

worker() {
  local file log t0 rc ns
  while file=$(next_file) && [[ -n $file ]]; do
    log=$(logname "$file")
    t0=$(date +%s%N)
    # In a subshell of its own, whose `times` then gives the CPU time of bun and of the
    # processes it started and waited for (not the database server's, shared by all).
    (
      TMPDIR=$TESTS_TMP bun test --timeout 60000 "${OPTS[@]}" "./$file" >"$log" 2>&1 </dev/null &
      echo $! >"$RUN_TMP/bun.$1.pid"
      r=0
      wait $! || r=$?
      times >"$log.times" # a builtin here: in a pipeline it would run in a fork, which has no children
      cpu_seconds <"$log.times" >"$log.cpu"
      exit $r
    )
    rc=$?
    rm -f "$RUN_TMP/bun.$1.pid"
    ns=$(($(date +%s%N) - t0))
    printf '%s %s %s\n' "$rc" "$ns" "$file" >"$log.rc"
    print_block "$file" "$log" "$rc" "$ns"
  done
}

# The machine's busy and total CPU time (first line of /proc/stat, in clock ticks): how busy
# its cores were over the files' run, said in the summary.
cpu_ticks() { [[ -r /proc/stat ]] && awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8; exit }' /proc/stat; }
CPU0=$(cpu_ticks)
T0=$(date +%s%N)
if ((${#FILES[@]} == 0)); then
  # Nothing matched: bun says so in its own words (and no test ran).
  say "no test file matches: ${SEL[*]:-(none)}"
  TMPDIR=$TESTS_TMP bun test --timeout 60000 "${OPTS[@]}" "${SEL[@]}" >"$OUT/none.log" 2>&1 </dev/null
  printf '%s 0 %s\n' "$?" "(bun test ${SEL[*]})" >"$OUT/none.log.rc"
  strip "$OUT/none.log"
else
  ordered >"$RUN_TMP/queue"
  alone=()
  for l in "${ALONE_FILES[@]}"; do
    for f in "${FILES[@]}"; do [[ $f == "$l" ]] && alone+=("$f"); done
  done
  together=$((${#FILES[@]} - ${#alone[@]}))
  ((JOBS > together)) && JOBS=$together
  say "${#FILES[@]} test file$( ((${#FILES[@]} == 1)) || echo s), $JOBS at a time (TEST_JOBS), longest first$( ((${#alone[@]} > 0)) && echo "; then ${alone[*]} alone")"
  for ((w = 1; w <= JOBS; w++)); do
    worker "$w" &
    WORKERS+=($!)
  done
  for pid in "${WORKERS[@]}"; do wait "$pid"; done
  WORKERS=()
  if ((${#alone[@]} > 0)); then
    printf '%s\n' "${alone[@]}" >"$RUN_TMP/queue"
    worker 1 &
    WORKERS+=($!)
    wait "${WORKERS[@]}"
    WORKERS=()
  fi
fi
WALL_NS=$(($(date +%s%N) - T0))
CPU1=$(cpu_ticks)

# ---------------------------------------------------------------- summary
pass=0; fail=0; skip=0; todo=0; bun_failed=(); nfiles=0
for rcf in "$OUT"/*.log.rc; do
  [[ -f $rcf ]] || continue
  log=${rcf%.rc}
  read -r rc _ name <"$rcf"
  [[ $name == "("* ]] || nfiles=$((nfiles + 1))
  pass=$((pass + $(count pass "$log"))); f=$(count fail "$log"); fail=$((fail + f))
  skip=$((skip + $(count skip "$log"))); todo=$((todo + $(count todo "$log")))
  ((rc != 0 || f > 0)) && bun_failed+=("$name")
done
if ((${#FILES[@]} > 0)) && ((nfiles < ${#FILES[@]})); then
  say "only $nfiles of ${#FILES[@]} test files ran to the end"
  bun_failed+=("(files not run)")
fi

echo
if ((${#bun_failed[@]} > 0)); then
  echo "Failed (the output of each is in its file's block above):"
  for name in "${bun_failed[@]}"; do
    echo "  $name"
    log=$(logname "$name")
    [[ -f $log ]] && strip "$log" | sed -n 's/^(fail) /    (fail) /p' | awk '!seen[$0]++' | cut -c1-240
  done
fi
cpu_total=$(cat "$OUT"/*.log.cpu 2>/dev/null | awk '{ t += $1 } END { printf "%.0f", t }')
busy=""
if [[ -n $CPU0 && -n $CPU1 ]]; then
  busy=$(awk -v a="$CPU0" -v b="$CPU1" 'BEGIN { split(a, x, " "); split(b, y, " "); if (y[2] > x[2]) printf ", the machine'"'"'s CPUs %.0f %% busy", 100 * (y[1] - x[1]) / (y[2] - x[2]) }')
fi
echo "Ran $((pass + fail + skip + todo)) tests across $nfiles file$( ((nfiles == 1)) || echo s) in $(secs "$WALL_NS") s, $JOBS at a time; the test processes used $cpu_total s of CPU$busy."
[[ -n $DB_SKIPPED ]] && echo "DATABASE TESTS SKIPPED: no TimescaleDB was available (set TEST_DATABASE_URL to run them)"
echo "$TYPECHECK_LINE$([[ -n $TYPECHECK_FAILED ]] && echo " (listed at the start of this output)")"
summary="$pass passed, $fail failed"
((skip > 0)) && summary+=", $skip skipped"
echo "$summary"
if ((todo > 0)); then
  echo "$todo todo: known bugs pinned by test.todo (not failures; run them with 'bun test --todo'):"
  # bun names each todo test twice (in its file's list and in its closing recap): once here.
  cat "$OUT"/*.log 2>/dev/null | strip | sed -n 's/^(todo) /  - /p' | awk '!seen[$0]++' | cut -c1-200
fi

status=0
((${#bun_failed[@]} == 0)) || status=1
if ((pass + fail == 0)); then
  echo "NO TESTS RAN: bun executed no test; failing"
  status=1
fi
((status == 0)) || say "FAILED: ${#bun_failed[@]} test file$( ((${#bun_failed[@]} == 1)) || echo s) failed or did not finish"
if [[ -n $TYPECHECK_FAILED ]]; then
  say "FAILED: ${TYPECHECK_LINE#typecheck: } in the typecheck"
  ((status != 0)) || status=1
fi
exit "$status"
