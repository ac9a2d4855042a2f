#!/usr/bin/env bash
# `npm test` (after its pretest `npm install`): run `bun test --timeout 30000 "$@"` (tests start databases and processes: 5 s is too tight on 2 cores) against a real TimescaleDB.
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
# - Prints `N passed, N failed[, N skipped]` alone on a line from bun's summary (skipped =
#   bun's "skip" count only), then, when bun counted todo tests, `N todo: ...` on a line of
#   its own with their names: known bugs pinned by test.todo, which do not fail the run.
#   Exits non-zero if the typecheck failed, bun failed, any test failed, or no test ran.
# - TEST_LOG: where bun's output is copied (default: a per-run file under ${TMPDIR:-/tmp}).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
export PATH="$ROOT/node_modules/.bin:$PATH"

LOG=${TEST_LOG:-${TMPDIR:-/tmp}/gws-bun-test.$$.log}
DB_SKIPPED=""
STARTED_DB=""

say() { printf 'test.sh: %s\n' "$*" >&2; }

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  if [[ -n $STARTED_DB ]]; then
    TESTDB_NAME=$STARTED_DB bash "$ROOT/scripts/testdb.sh" stop </dev/null || say "warning: could not stop test database '$STARTED_DB'"
    STARTED_DB=""
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

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
typecheck

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
# The page tests (test/pages/browser.test.ts) drive Debian's Chromium. Missing: installed
# with apt-get when this is root on Debian, like the database; otherwise one line, and those
# tests are skipped with the reason (BROWSER_SKIP) in their names.
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [[ ! -x $CHROMIUM ]]; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    say "installing Debian's chromium with apt-get for the browser tests (first run only)"
    if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >"$LOG.apt" 2>&1 </dev/null; then
      export BROWSER_SKIP="apt-get could not install chromium (log: $LOG.apt)"
    elif [[ ! -x $CHROMIUM ]]; then
      export BROWSER_SKIP="no Chromium at $CHROMIUM, even after apt-get install chromium"
    fi
  else
    export BROWSER_SKIP="no Chromium at $CHROMIUM and no root apt-get to install Debian's chromium"
  fi
  [[ -n ${BROWSER_SKIP:-} ]] && say "BROWSER TESTS SKIPPED: $BROWSER_SKIP"
fi

# Bun prints its summary on stderr: capture both streams, keep bun's exit code.
: >"$LOG" || { say "cannot write $LOG"; exit 1; }
bun test --timeout 30000 "$@" 2>&1 </dev/null | tee "$LOG"
bun_rc=${PIPESTATUS[0]}

# Summary lines look like " 12 pass", " 0 fail", " 1 skip", " 2 todo", "Ran 15 tests across 3 files."
count() {
  sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG" \
    | awk -v w="$1" '$0 ~ "^[[:space:]]*[0-9]+ " w "[[:space:]]*$" { n = $1 } END { print n + 0 }'
}
pass=$(count pass)
fail=$(count fail)
skip=$(count skip)
todo=$(count todo)
ran_line=$(sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG" | grep -E '^Ran [0-9]+ tests? across' | tail -n1 || true)

echo
[[ -n $ran_line ]] || say "no 'Ran N tests across M files' line in bun's output"
[[ -n $DB_SKIPPED ]] && echo "DATABASE TESTS SKIPPED: no TimescaleDB was available (set TEST_DATABASE_URL to run them)"
echo "$TYPECHECK_LINE$([[ -n $TYPECHECK_FAILED ]] && echo " (listed at the start of this output)")"
summary="$pass passed, $fail failed"
((skip > 0)) && summary+=", $skip skipped"
echo "$summary"
if ((todo > 0)); then
  echo "$todo todo: known bugs pinned by test.todo (not failures; run them with 'bun test --todo'):"
  # bun names each todo test twice (in its file's list and in its closing recap): once here.
  sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' "$LOG" | sed -n 's/^(todo) /  - /p' | awk '!seen[$0]++' | cut -c1-200
fi
say "bun output saved to $LOG"

status=$bun_rc
if ((pass + fail == 0)); then
  echo "NO TESTS RAN: bun executed no test (exit code $bun_rc); failing"
  status=1
elif ((fail > 0 && status == 0)); then
  status=1
fi
((status == 0)) || say "FAILED (bun exit code $bun_rc)"
if [[ -n $TYPECHECK_FAILED ]]; then
  say "FAILED: ${TYPECHECK_LINE#typecheck: } in the typecheck"
  ((status != 0)) || status=1
fi
exit "$status"
