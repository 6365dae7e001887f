#!/usr/bin/env bash
# tests/run.sh BUILD_DIR — the whole suite, as `make test` and `make asan` run it.
#
# Starts what the integration tests need in a throwaway directory — a
# PostgreSQL cluster (tools/pgcluster, as the postgres user when root) and a
# private `dbus-daemon --session` — runs every unit test, then every
# integration test against them, and stops everything it started by pid, also
# on failure or Ctrl-C.  Ends with "N passed, N failed" and exits non-zero on
# any failure.
set -euo pipefail

build=${1:?usage: tests/run.sh BUILD_DIR [NAME-PATTERN]}
only=${2:-}      # run only the test programs whose file name contains this
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

tmp=$(mktemp -d /tmp/arbiter-test.XXXXXX)
chmod 0755 "$tmp"
dbus_pid=
pg_dir="$tmp/pg"

cleanup() {
    local rc=$?
    [[ -n $dbus_pid ]] && kill "$dbus_pid" 2>/dev/null && wait "$dbus_pid" 2>/dev/null
    [[ -d $pg_dir ]] && tools/pgcluster "$pg_dir" stop >/dev/null 2>&1
    if [[ $rc -eq 0 || -z ${KEEP_TMP:-} ]]; then rm -rf "$tmp"; else echo "kept $tmp" >&2; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== starting PostgreSQL and dbus-daemon in $tmp"
tools/pgcluster "$pg_dir" init >"$tmp/pg-init.log" 2>&1 || { cat "$tmp/pg-init.log"; exit 1; }
tools/pgcluster "$pg_dir" start
dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" 2>"$tmp/dbus.log" &
dbus_pid=$!
for _ in $(seq 100); do [[ -S $tmp/bus ]] && break; sleep 0.05; done
[[ -S $tmp/bus ]] || { echo "dbus-daemon did not start" >&2; exit 1; }

export DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/bus"
export ARBITER_TEST_DSN=$(tools/pgcluster "$pg_dir" dsn)
export ARBITER_TEST_PGDIR=$pg_dir
export ARBITER_TEST_TMP=$tmp
export ARBITER_TEST_DAEMON="$root/$build/arbiterd"
# the daemon of the test build: the production games and tests/games/
export ARBITER_TEST_DAEMON_GAMES="$root/$build/tests/arbiterd-test"
export ARBITER_TEST_ROOT=$root
export ARBITER_TEST_BUILD="$root/$build"
export CMOCKA_MESSAGE_OUTPUT=TAP

passed=0
failed=0
failed_names=()

# Runs one test program, echoing its TAP output and counting its results.
run_one() {
    local bin=$1 out rc=0
    [[ -z $only || $(basename "$bin") == *"$only"* ]] || return 0
    out=$("$bin" 2>&1) || rc=$?
    printf '%s\n' "$out"
    local ok notok
    ok=$(grep -cE '^ok [0-9]+' <<<"$out" || true)
    notok=$(grep -cE '^not ok [0-9]+' <<<"$out" || true)
    passed=$((passed + ok))
    failed=$((failed + notok))
    if [[ $rc -ne 0 && $notok -eq 0 ]]; then
        failed=$((failed + 1))       # crashed or failed outside a test
        echo "not ok - $bin exited with status $rc"
    fi
    if [[ $rc -ne 0 || $notok -ne 0 ]]; then failed_names+=("$bin"); fi
}

echo "== unit tests"
for t in "$build"/tests/unit/test_*; do
    [[ -x $t ]] && run_one "$t"
done

echo "== integration tests"
for t in "$build"/tests/integration/test_*; do
    [[ -x $t ]] && run_one "$t"
done
for t in tests/integration/*.sh; do
    [[ -x $t ]] && run_one "$t"
done

echo
if [[ ${#failed_names[@]} -gt 0 ]]; then
    echo "failing: ${failed_names[*]}"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
