#!/usr/bin/env bash
# tests/integration/pg-access.sh — who may connect to the PostgreSQL clusters
# tools/pgcluster makes (issue 11): only the local user who runs it.
#
#   1. the suite's cluster (tests/run.sh): its directory and its socket
#      directory are mode 0700;
#   2. another local user (nobody) cannot connect: the socket directory keeps
#      it out;
#   3. a local user who can reach the socket but does not run tools/pgcluster
#      (postgres, which owns a cluster root made) is refused by peer
#      authentication;
#   4. a normal user (nobody, in a directory of its own) makes, starts and
#      uses a cluster: psql, and arbiterd applying its migrations;
#   5. root, whom no directory keeps out, is refused by that user's cluster;
#   6. make run's own cluster (tools/run-local.sh without ARBITER_DSN) in a
#      checkout under a directory the postgres user may not enter, as /root
#      is: the venue comes up with its database, `tools/pgcluster var/pg
#      psql` works, and nobody cannot connect.
#
# 2 to 5, and the nobody part of 6, act as other users: they need root and
# are skipped otherwise.  Every server this test starts is stopped by
# tools/pgcluster on exit, also on failure.

set -euo pipefail

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/venue.bash"

root=$VENUE_ROOT
pgcluster="$root/tools/pgcluster"
dir=$(mktemp -d "$ARBITER_TEST_TMP/pg-access.XXXXXX")
chmod 0755 "$dir"                   # nobody passes through to its own cluster
n=0
failed=0
own_pg=                             # nobody's cluster, once made
home=                               # the /root of test 6

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
# check NAME COMMAND...: one TAP line for the command's success.
check() {
    local name=$1; shift
    if "$@"; then ok "$name"; else not_ok "$name"; fi
}

on_exit() {
    venue_stop >/dev/null 2>&1 || true
    [[ -n $home ]] && "$pgcluster" "$home/arbiter/var/pg" stop >/dev/null 2>&1 || true
    if [[ -n $own_pg ]]; then
        (cd / && runuser -u nobody -- "$dir/nobody/pgcluster" "$own_pg" stop) >/dev/null 2>&1 || true
    fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

is_root() { [[ $(id -u) -eq 0 ]]; }

# mode_is PATH MODE: PATH has exactly that mode.
mode_is() {
    local m
    m=$(stat -c %a "$1")
    [[ $m == "$2" ]] || { echo "# $1 is mode $m, not $2"; return 1; }
}

# refused USER DSN WHY: USER's psql on DSN fails, saying WHY.
refused() {
    local user=$1 dsn=$2 why=$3 out
    if out=$(cd / && runuser -u "$user" -- psql -X -tA -d "$dsn" -c 'SELECT 1' 2>&1); then
        echo "# $user connected to $dsn"
        return 1
    fi
    grep -qF -- "$why" <<<"$out" || { echo "# $user was refused, not with \"$why\": $out"; return 1; }
}

# --- 1 to 3: the suite's cluster ---------------------------------------------
suite_dirs_private() {
    mode_is "$ARBITER_TEST_PGDIR" 700 && mode_is "$ARBITER_TEST_PGDIR/run" 700
}
check "the suite's cluster: its directory and socket directory are private (0700)" suite_dirs_private

if is_root; then
    check "another local user (nobody) cannot reach the suite's cluster" \
        refused nobody "$ARBITER_TEST_DSN" "Permission denied"
    check "a user who reaches the socket but does not run tools/pgcluster (postgres) is refused by peer auth" \
        refused postgres "$ARBITER_TEST_DSN" "Peer authentication failed"
else
    skip "acting as nobody needs root"
    skip "acting as postgres needs root"
fi

# --- 4 and 5: a normal user's cluster -------------------------------------------
# nobody runs copies of the script and the daemon: a checkout under /root is
# out of its reach.
nobody_makes_and_uses_a_cluster() {
    local d="$dir/nobody" dsn out
    mkdir -p "$d/bin"
    install -m 0755 "$pgcluster" "$d/pgcluster"
    install -m 0755 "$ARBITER_TEST_DAEMON" "$d/bin/arbiterd"
    cp -R "$root/migrations" "$d/migrations"
    chown -R nobody: "$d"
    own_pg="$d/pg"
    (cd / && runuser -u nobody -- "$d/pgcluster" "$own_pg" init) >"$d/init.log" 2>&1 &&
        (cd / && runuser -u nobody -- "$d/pgcluster" "$own_pg" start) >>"$d/init.log" 2>&1 ||
        { sed 's/^/# /' "$d/init.log"; return 1; }
    mode_is "$own_pg/run" 700 || return 1
    [[ $(stat -c %U "$own_pg/run") == nobody ]] || { echo "# $own_pg/run is not nobody's"; return 1; }
    out=$(cd / && runuser -u nobody -- "$d/pgcluster" "$own_pg" psql -tA -c 'SELECT current_user') &&
        [[ $out == arbiter ]] || { echo "# psql as nobody: $out"; return 1; }
    dsn=$(runuser -u nobody -- "$d/pgcluster" "$own_pg" dsn)
    (cd / && runuser -u nobody -- env ARBITER_DSN="$dsn" ARBITER_MIGRATIONS="$d/migrations" ARBITER_BUS=none \
        "$d/bin/arbiterd" --migrate-only) >"$d/migrate.log" 2>&1 ||
        { sed 's/^/# /' "$d/migrate.log"; return 1; }
}

if is_root; then
    check "a normal user (nobody) makes, starts and uses a cluster: psql, arbiterd --migrate-only" \
        nobody_makes_and_uses_a_cluster
    if [[ -n $own_pg ]]; then
        check "root cannot connect to nobody's cluster: peer authentication lets nobody alone in" \
            refused root "$(runuser -u nobody -- "$dir/nobody/pgcluster" "$own_pg" dsn)" \
            "Peer authentication failed"
    else
        not_ok "root cannot connect to nobody's cluster (there is none: the test before failed)"
    fi
else
    skip "acting as nobody needs root"
    skip "acting as nobody needs root"
fi

# --- 6: make run's own cluster, in a checkout under a 0700 directory ---------------
home=$(mktemp -d "$ARBITER_TEST_TMP/home.XXXXXX")       # mode 0700, as /root
make_run_under_a_private_home() {
    local out
    VENUE_OWN_PG=1 venue_start "$home/arbiter" || return 1
    curl -sf "$VENUE_URL/v1/health" | jq -e '.database.state == "ready"' >/dev/null ||
        { echo "# the venue's database is not ready"; return 1; }
    out=$("$pgcluster" "$VENUE_RUN/pg" psql -tA -c 'SELECT count(*) FROM schema_migrations') &&
        ((out >= 1)) || { echo "# tools/pgcluster var/pg psql: $out"; return 1; }
    mode_is "$VENUE_RUN/pg/run" 700 || return 1
    if is_root; then
        refused nobody "$("$pgcluster" "$VENUE_RUN/pg" dsn)" "Permission denied" || return 1
    fi
    venue_stop || { echo "# tools/run-local.sh did not stop cleanly"; return 1; }
}
check "make run's own cluster in a checkout under a 0700 directory: up, psql works, nobody else gets in" \
    make_run_under_a_private_home

echo "1..$n"
((failed == 0))
