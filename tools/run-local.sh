#!/usr/bin/env bash
# tools/run-local.sh BUILD_DIR — what `make run` does (BUILD_DIR: the checkout's build/,
# or any directory with the binaries).
#
# Keeps a PostgreSQL cluster under ./var/pg (created on first run, reused
# after), starts a D-Bus session bus of its own at ./var/bus (so that
# `busctl --address=unix:path=var/bus` always finds arbiterd), creates an
# admin token once (./var/admin.token), starts a simulated venue — three tables
# of pads, each an arbiter-padsim on its own pty — and runs arbiterd on
# 127.0.0.1:8080.  Once arbiterd answers it creates the venue's tables if they
# are not there yet: table-a (four button pads), where arbiter-bots keep a
# Crash Pilot match going and play it as people would (docs/bots.md), and
# table-b (three seats, each with a button pad and a slap pad), where another
# arbiter-bots keeps a Crazy Pilot match going, and table-c (four seats and a
# referee keypad), where a Pitch Fleet match of four waits for a referee: no
# bot plays it, a newcomer reports its turns from the referee console and
# may press the keypad's keys by writing them to var/pads/table-c.presses.
#
# arbiterd is supervised as systemd's unit would have it (Restart=on-failure,
# RestartSec=2s, RestartPreventExitStatus=65 78): when it dies it is started
# again, with a message, and the database and the venue stay up.  Ctrl-C (or
# SIGTERM to this script) stops arbiterd gracefully, then everything this
# script started, by pid.  Every child runs in a session of its own, so that
# the terminal's Ctrl-C reaches this script only and the order holds.
#
# As root, PostgreSQL runs as the postgres user, who must be able to reach
# its data directory, ./var/pg.  When a directory above ./var keeps it out (a
# checkout under /root, mode 0700), the postgres user is given search
# permission on that directory alone, by an ACL entry (setfacl u:postgres:x:
# it may pass through, not list or read), and the script says so.
#
# Environment: ARBITER_LISTEN (default 127.0.0.1:8080); ARBITER_RUN_DIR
# instead of ./var; ARBITER_DSN, a database to use instead of the cluster
# under var/pg (the tests give theirs); ARBITER_BOTS_OPTIONS, more options
# for table-a's bots (e.g. "--error-pct 25"); ARBITER_BOTS_B_OPTIONS, for
# table-b's.
set -euo pipefail

build=${1:?usage: tools/run-local.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
var=${ARBITER_RUN_DIR:-$root/var}
pg="$var/pg"
listen=${ARBITER_LISTEN:-127.0.0.1:8080}
url="http://$listen"
[[ $build == /* ]] || build="$root/$build"
daemon="$build/arbiterd"
padsim="$build/arbiter-padsim"
bots="$build/arbiter-bots"

# systemd/arbiterd.service: RestartSec=2s, RestartPreventExitStatus=65 78.
RESTART_SEC=2
EX_DATAERR=65
EX_CONFIG=78
# How long arbiterd may take to answer before the tables are given up on
# (it binds HTTP at once; the database may take a while the first time).
READY_TIMEOUT_S=60
POLL_S=0.1

mkdir -p "$var"
chmod 0755 "$var"

own_pg=
[[ -z ${ARBITER_DSN:-} ]] && own_pg=1
dbus_pid=
daemon_pid=
tables_pid=
sim_pids=()
bots_pids=()
stopping=

# Stops a child by pid and reaps it.
stop_pid() {
    [[ -n $1 ]] || return 0
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

cleanup() {
    trap - EXIT INT TERM
    stopping=1
    if [[ -n $daemon_pid ]]; then
        echo "stopping arbiterd (pid $daemon_pid)" >&2
        stop_pid "$daemon_pid"
    fi
    stop_pid "$tables_pid"
    for pid in "${bots_pids[@]}" "${sim_pids[@]}"; do stop_pid "$pid"; done
    stop_pid "$dbus_pid"
    if [[ -n $own_pg ]]; then
        echo "stopping PostgreSQL (data kept in var/pg)" >&2
        "$root/tools/pgcluster" "$pg" stop || true
    fi
}
trap cleanup EXIT
# Ctrl-C or SIGTERM: stop arbiterd gracefully (one SIGTERM: a second one would
# make it stop without waiting); the loop below then ends and cleanup runs.
on_signal() {
    stopping=1
    if [[ -n $daemon_pid ]]; then kill -TERM "$daemon_pid" 2>/dev/null || true; fi
}
trap on_signal INT TERM

# --- PostgreSQL ---------------------------------------------------------------
# Lets the postgres user pass through every directory above $var that keeps
# it out (search permission only, one ACL entry each), saying which.
let_postgres_reach() {
    local d="" part
    local -a parts
    IFS=/ read -r -a parts <<<"${var#/}"
    for part in "${parts[@]}"; do
        d="$d/$part"
        runuser -u postgres -- test -x "$d" 2>/dev/null && continue
        setfacl -m u:postgres:x "$d"
        echo "make run: the postgres user may now pass through $d to reach var/pg (an ACL entry:" \
             "search only; 'setfacl -x u:postgres $d' removes it)" >&2
    done
}

if [[ -n $own_pg ]]; then
    if [[ $(id -u) -eq 0 ]]; then let_postgres_reach; fi
    "$root/tools/pgcluster" "$pg" init
    "$root/tools/pgcluster" "$pg" start
    ARBITER_DSN=$("$root/tools/pgcluster" "$pg" dsn)
fi
export ARBITER_DSN

# A table-b made by an earlier make run, before Crazy Pilot, has its button
# pads and no slap pads; no route changes a table's pads, so they are added
# to its seats in make run's own database, before arbiterd and the bots
# start (so that no match is made there without them), once, saying so.  On
# the first run there is no schema yet, and nothing to do.
if [[ -n $own_pg ]]; then
    added=$("$root/tools/pgcluster" "$pg" psql -q -t -A -c "WITH added AS (
        INSERT INTO table_pads (table_id, seat, pad_id, role)
        SELECT id, s, '000000000000b00' || (s + 2), 'slap' FROM tables, generate_series(1, 3) AS s
        WHERE name = 'table-b' ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*) FROM added" 2>/dev/null || true)
    if [[ ${added:-0} != 0 ]]; then
        echo "table-b from an earlier make run: its seats 1-3 get their slap pads (b003-b005) for Crazy Pilot" >&2
    fi
fi

# --- D-Bus: a session bus of our own ------------------------------------------------
rm -f "$var/bus"
setsid dbus-daemon --session --nofork --nopidfile --address="unix:path=$var/bus" 2>>"$var/dbus.log" &
dbus_pid=$!
for _ in $(seq 100); do [[ -S $var/bus ]] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS="unix:path=$var/bus"

export ARBITER_LISTEN=$listen
export ARBITER_BUS=session
export ARBITER_MIGRATIONS="$root/migrations"
export ARBITER_SPOOL="$var/spool"
export ARBITER_WEB="$root/web"

if [[ ! -s $var/admin.token ]]; then
    (umask 077; "$daemon" --create-token admin "make-run-admin" >"$var/admin.token")
fi

# --- The simulated venue --------------------------------------------------------
# Table A: four button pads (Crash Pilot), played by arbiter-bots through the
# FIFO table-a.presses, padsim's script.  Table B: three button pads and three
# slap pads (Crazy Pilot), played by arbiter-bots through table-b.presses.
# Table C: a referee keypad (Pitch Fleet's frequent steps), pressed by whoever
# writes padsim's script lines to the FIFO table-c.presses.
# Clocks are offset and drift as real ones do.
mkdir -p "$var/pads"
start_padsim() {     # name, its stdin, padsim options...
    local name=$1 input=$2; shift 2
    # the redirections are the child's: opening a FIFO blocks until its other end opens
    setsid "$padsim" --link "$var/pads/$name" --quiet "$@" \
        <"$input" >"$var/pads/$name.out" 2>"$var/pads/$name.log" &
    sim_pids+=($!)
}
fifo() { [[ -p $1 ]] || { rm -f "$1"; mkfifo "$1"; }; }
start_bots() {       # table, its FIFO, bots options...
    local name=$1 output=$2; shift 2
    setsid "$bots" --url "$url" --table "$name" --keep-playing --token-file "$var/admin.token" \
        --state "$var/pads/$name.bots.state" "$@" >"$output" 2>"$var/pads/$name.bots.log" &
    bots_pids+=($!)
}
presses="$var/pads/table-a.presses"
fifo "$presses"
start_padsim table-a "$presses" --kinds buttons,buttons,buttons,buttons --uid-base 0xa000 \
    --offset-us 1200,-800,30000,-45000 --drift-ppm 20,-35,60,-80 --jitter-us 300 --script -
# shellcheck disable=SC2086  # ARBITER_BOTS_OPTIONS is a list of options
start_bots table-a "$presses" --uid-base 0xa000 --pads 4 ${ARBITER_BOTS_OPTIONS:-}
presses_b="$var/pads/table-b.presses"
fifo "$presses_b"
start_padsim table-b "$presses_b" --kinds buttons,buttons,buttons,slap,slap,slap --uid-base 0xb000 \
    --offset-us -5000,12000,700,-22000,3000,-9000 --drift-ppm -10,45,-70,90,-25,55 --jitter-us 300 --script -
# shellcheck disable=SC2086  # ARBITER_BOTS_B_OPTIONS is a list of options
start_bots table-b "$presses_b" --uid-base 0xb000 --pads 6 --game crazy-pilot ${ARBITER_BOTS_B_OPTIONS:-}
presses_c="$var/pads/table-c.presses"
fifo "$presses_c"
# read-write: padsim holds both ends, so it starts with no one writing yet
setsid "$padsim" --link "$var/pads/table-c" --quiet --kinds referee --uid-base 0xc000 --script - \
    <>"$presses_c" >"$var/pads/table-c.out" 2>"$var/pads/table-c.log" &
sim_pids+=($!)
for _ in $(seq 100); do [[ -L $var/pads/table-a && -L $var/pads/table-b && -L $var/pads/table-c ]] && break; sleep 0.05; done
export ARBITER_PADS="$var/pads/table-a $var/pads/table-b $var/pads/table-c"

# The tables, created once arbiterd takes requests (kept in the database, so
# only on the first run).  A pad id is its uid in 16 hex digits.  Table B's
# seat n has button pad b00(n-1) and slap pad b00(n+2).
table_a='{"name": "table-a", "seats": [{"seat": 1, "pad": "000000000000a000"}, {"seat": 2, "pad": "000000000000a001"},
          {"seat": 3, "pad": "000000000000a002"}, {"seat": 4, "pad": "000000000000a003"}]}'
table_b='{"name": "table-b", "seats": [
          {"seat": 1, "pads": [{"pad": "000000000000b000", "role": "buttons"}, {"pad": "000000000000b003", "role": "slap"}]},
          {"seat": 2, "pads": [{"pad": "000000000000b001", "role": "buttons"}, {"pad": "000000000000b004", "role": "slap"}]},
          {"seat": 3, "pads": [{"pad": "000000000000b002", "role": "buttons"}, {"pad": "000000000000b005", "role": "slap"}]}]}'
table_c='{"name": "table-c", "seats": [{"seat": 1, "pads": []}, {"seat": 2, "pads": []}, {"seat": 3, "pads": []},
          {"seat": 4, "pads": []}], "pads": [{"pad": "000000000000c000", "role": "keypad"}]}'
# A Pitch Fleet match of four at table-c unless one is live there already: it
# waits, ready, for a referee (the console, or REST) to start it.
pitch_fleet_match() {   # auth header
    local table match
    table=$(curl -sf "$url/v1/tables?limit=1000" | jq '.items[] | select(.name == "table-c") | .id')
    [[ -n $table ]] || return 1
    match=$(curl -sf "$url/v1/tables/$table" | jq '.match.id // empty')
    if [[ -z $match ]]; then
        match=$(curl -sf -H "$1" -H 'Content-Type: application/json' -d "{\"game\": \"pitch-fleet\", \"table\": $table,
                \"players\": [\"Ana\", \"Ben\", \"Cy\", \"Dee\"], \"confirm\": \"referee\"}" "$url/v1/matches" | jq .id)
        [[ -n $match ]] || return 1
    fi
    echo "Pitch Fleet match $match at table-c waits for its referee: $url/referee?match=$match" >&2
}
create_tables() {
    local auth deadline=$((SECONDS + READY_TIMEOUT_S)) spec name
    auth="Authorization: Bearer $(cat "$var/admin.token")"
    until curl -sf "$url/v1/status" 2>/dev/null | jq -e '.tokens.loaded' >/dev/null; do
        if ((SECONDS > deadline)); then
            echo "arbiterd did not answer at $url within $READY_TIMEOUT_S s: the venue's tables are not created" >&2
            return 1
        fi
        sleep "$POLL_S"
    done
    for spec in "$table_a" "$table_b" "$table_c"; do
        name=$(jq -r .name <<<"$spec")
        if curl -sf "$url/v1/tables?limit=1000" | jq -e --arg n "$name" '.items | any(.name == $n)' >/dev/null; then
            continue
        fi
        curl -sf -H "$auth" -H 'Content-Type: application/json' -d "$spec" "$url/v1/tables" |
            jq -r '"created \(.name) (table \(.id)) with \(.seats | length) seats"' >&2
    done
    echo "venue ready: table-a, table-b and table-c at $url/v1/tables" >&2
    pitch_fleet_match "$auth" || echo "the Pitch Fleet match at table-c could not be created" >&2
}

cat <<MSG

  arbiterd is starting on $url  (Ctrl-C stops it and everything make run started)

    health        curl $url/v1/health
    API routes    curl $url/v1
    pads          curl $url/v1/pads      (three simulated tables)
    tables        curl $url/v1/tables    (table-a: Crash Pilot, table-b: Crazy Pilot,
                  each played by bots; table-c: Pitch Fleet, yours to referee)
    Pitch Fleet   $url/referee (the admin token below): start table-c's match,
                  report each turn (pick, shot, end_turn); its keypad's Enter:
                  echo '{"in_us":0,"pad":0,"button":10,"press":true}' > var/pads/table-c.presses
    matches       curl '$url/v1/matches?state=running'   (the bots' matches)
    presses       curl $url/v1/presses   (in pad-time order)
    live events   curl -N $url/v1/events
    admin token   var/admin.token  — e.g.
                  curl -H "Authorization: Bearer \$(cat var/admin.token)" $url/v1/tokens
    tournaments   curl $url/v1/tournaments   (a club night step by step:
                  docs/running-a-tournament.md)
    D-Bus         busctl --address=$DBUS_SESSION_BUS_ADDRESS \\
                  introspect org.arbiter.Arbiter1 /org/arbiter/Arbiter1
    database      tools/pgcluster var/pg psql
    bots          var/pads/table-a.bots.log, var/pads/table-b.bots.log (who won, and how)

MSG

# --- arbiterd, supervised ----------------------------------------------------------
start_daemon() {
    setsid "$daemon" &
    daemon_pid=$!
    # a signal that came before daemon_pid was set found nothing to stop
    if [[ -n $stopping ]]; then kill -TERM "$daemon_pid" 2>/dev/null || true; fi
}

# The exit status of daemon_pid, once it has exited.  wait returns early (>128)
# when a trapped signal arrives: then the daemon is stopping, wait again.
wait_daemon() {
    local rc=0
    wait "$daemon_pid" 2>/dev/null || rc=$?
    while kill -0 "$daemon_pid" 2>/dev/null; do
        rc=0
        wait "$daemon_pid" 2>/dev/null || rc=$?
    done
    return "$rc"
}

start_daemon
create_tables &
tables_pid=$!
while :; do
    rc=0
    wait_daemon || rc=$?
    pid=$daemon_pid
    daemon_pid=
    [[ -n $stopping ]] && break
    if ((rc == 0)); then
        echo "arbiterd (pid $pid) exited with status 0: stopping the venue and the database" >&2
        break
    fi
    if ((rc == EX_DATAERR || rc == EX_CONFIG)); then
        echo "arbiterd (pid $pid) exited with status $rc, which a restart cannot cure (systemd would not" \
             "restart it either): stopping" >&2
        exit "$rc"
    fi
    if ((rc > 128)); then
        why="was killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
    else
        why="exited with status $rc"
    fi
    echo "arbiterd (pid $pid) $why; restarting it in $RESTART_SEC s, as systemd would (Ctrl-C stops everything)" >&2
    sleep "$RESTART_SEC" &
    sleep_pid=$!
    wait "$sleep_pid" || true
    stop_pid "$sleep_pid"
    [[ -n $stopping ]] && break
    start_daemon
done
exit 0
