# tests/integration/venue.bash — make run's simulated venue for a shell test
# (sourced; not a test itself).
#
# venue_start runs tools/run-local.sh — what `make run` runs — with the
# suite's environment (tests/run.sh): the test build's binaries, a fresh
# database in the suite's PostgreSQL (ARBITER_DSN), a free port, and a run
# directory of its own instead of ./var.  It waits for the script's "venue
# ready" line.  venue_stop stops it by pid as Ctrl-C would (SIGINT), and
# anything it left behind by pid; the test's EXIT trap must call it, so that
# a failed test stops the venue too.
#
# VENUE_OWN_PG=1 leaves ARBITER_DSN out, so that the script makes and starts
# its own cluster under the venue's var/pg, as `make run` does.
#
# After venue_start: VENUE_PID, VENUE_URL (http://127.0.0.1:PORT),
# VENUE_LISTEN (127.0.0.1:PORT), VENUE_RUN (its var/ directory), VENUE_OUT
# and VENUE_ERR (the script's stdout and stderr: the daemon logs there).

VENUE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# A hang guard: the venue is up in a second or two.
VENUE_WAIT_S=60
VENUE_POLL_S=0.05
VENUE_PID=
VENUE_CHILDREN=()

venue_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# venue_wait_line FILE TEXT [COUNT]: waits until COUNT (default 1) lines of
# FILE contain TEXT; returns 1 after VENUE_WAIT_S.
venue_wait_line() {
    local file=$1 text=$2 count=${3:-1} deadline=$((SECONDS + VENUE_WAIT_S))
    until (($(grep -cF -- "$text" "$file" 2>/dev/null || true) >= count)); do
        ((SECONDS <= deadline)) || return 1
        sleep "$VENUE_POLL_S"
    done
}

# venue_start DIR [BOTS_OPTIONS [BOTS_B_OPTIONS]]: the venue's files go to
# DIR; the options are table-a's bots' and table-b's.
venue_start() {
    local dir=$1 db
    mkdir -p "$dir"
    VENUE_RUN="$dir/var"
    VENUE_OUT="$dir/run-local.out"
    VENUE_ERR="$dir/run-local.err"
    VENUE_LISTEN="127.0.0.1:$(venue_free_port)"
    # shellcheck disable=SC2034  # for the tests that source this file
    VENUE_URL="http://$VENUE_LISTEN"
    local -a dsn=()
    if [[ -z ${VENUE_OWN_PG:-} ]]; then
        db="venue_$$_${RANDOM}"
        "$VENUE_ROOT/tools/pgcluster" "$ARBITER_TEST_PGDIR" psql -q -c "CREATE DATABASE $db" >/dev/null
        dsn=(ARBITER_DSN="${ARBITER_TEST_DSN/dbname=arbiter/dbname=$db}")
    fi
    # SIGINT back to its default: a background job of a script starts with
    # it ignored, and the venue is stopped as Ctrl-C stops make run.
    ARBITER_RUN_DIR="$VENUE_RUN" ARBITER_LISTEN="$VENUE_LISTEN" ARBITER_BOTS_OPTIONS="${2:-}" \
        ARBITER_BOTS_B_OPTIONS="${3:-}" \
        env -u ARBITER_DSN --default-signal=INT "${dsn[@]}" "$VENUE_ROOT/tools/run-local.sh" "$ARBITER_TEST_BUILD" \
        >"$VENUE_OUT" 2>"$VENUE_ERR" </dev/null &
    VENUE_PID=$!
    if ! venue_wait_line "$VENUE_ERR" "venue ready"; then
        echo "# tools/run-local.sh did not get the venue ready; its stderr:" >&2
        sed 's/^/# /' "$VENUE_ERR" >&2
        return 1
    fi
}

# venue_stop: SIGINT, as Ctrl-C; its exit status (0 for a clean stop), or 1
# when it or any of its children had to be killed.
venue_stop() {
    local rc=0 pid deadline=$((SECONDS + VENUE_WAIT_S))
    [[ -n $VENUE_PID ]] || return 0
    mapfile -t VENUE_CHILDREN < <(pgrep -P "$VENUE_PID")
    kill -INT "$VENUE_PID" 2>/dev/null || true
    while kill -0 "$VENUE_PID" 2>/dev/null && ((SECONDS <= deadline)); do sleep "$VENUE_POLL_S"; done
    if kill -0 "$VENUE_PID" 2>/dev/null; then
        echo "# tools/run-local.sh did not stop on SIGINT within $VENUE_WAIT_S s" >&2
        kill -KILL "$VENUE_PID" 2>/dev/null || true
    fi
    wait "$VENUE_PID" 2>/dev/null || rc=$?
    VENUE_PID=
    for pid in "${VENUE_CHILDREN[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then
            echo "# pid $pid was left running by tools/run-local.sh" >&2
            kill -KILL "$pid" 2>/dev/null || true
            rc=1
        fi
    done
    return "$rc"
}
