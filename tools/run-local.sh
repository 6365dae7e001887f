#!/usr/bin/env bash
# tools/run-local.sh BUILD_DIR — what `make run` does.
#
# Keeps a PostgreSQL cluster under ./var/pg (created on first run, reused
# after), uses the session bus or starts a private dbus-daemon, creates an
# admin token once (./var/admin.token), starts a simulated venue — two
# tables of pads, each an arbiter-padsim on its own pty with bots pressing
# — and runs arbiterd in the foreground on 127.0.0.1:8080.  Ctrl-C stops
# arbiterd, then what this script started.
set -euo pipefail

build=${1:?usage: tools/run-local.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
var="$root/var"
pg="$var/pg"
listen=${ARBITER_LISTEN:-127.0.0.1:8080}
daemon="$root/$build/arbiterd"
padsim="$root/$build/arbiter-padsim"
dbus_pid=
sim_pids=()

mkdir -p "$var"
chmod 0755 "$var"

cleanup() {
    trap - EXIT INT TERM
    for pid in "${sim_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    if [[ -n $dbus_pid ]]; then kill "$dbus_pid" 2>/dev/null || true; wait "$dbus_pid" 2>/dev/null || true; fi
    echo "stopping PostgreSQL (data kept in var/pg)" >&2
    "$root/tools/pgcluster" "$pg" stop || true
}
trap cleanup EXIT
trap 'exit 130' TERM
# Ctrl-C reaches arbiterd too (same process group) and it stops gracefully;
# this script only has to survive it to clean up afterwards.
trap ':' INT

"$root/tools/pgcluster" "$pg" init
"$root/tools/pgcluster" "$pg" start

# The session bus if there is one we can reach, otherwise our own.
if [[ -z ${DBUS_SESSION_BUS_ADDRESS:-} ]] || ! busctl --user status >/dev/null 2>&1; then
    rm -f "$var/bus"
    dbus-daemon --session --nofork --nopidfile --address="unix:path=$var/bus" 2>>"$var/dbus.log" &
    dbus_pid=$!
    for _ in $(seq 100); do [[ -S $var/bus ]] && break; sleep 0.05; done
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$var/bus"
fi

# The simulated venue: table A has four button pads (Crash Pilot), table B
# three button pads and a slap pad (Crazy Pilot).  Bots press after
# human-like reaction times; clocks are offset and drift as real ones do.
mkdir -p "$var/pads"
start_table() {     # name, padsim options...
    local name=$1; shift
    "$padsim" --link "$var/pads/$name" --bots --quiet "$@" \
        >"$var/pads/$name.out" 2>"$var/pads/$name.log" &
    sim_pids+=($!)
}
start_table table-a --kinds buttons,buttons,buttons,buttons --uid-base 0xa000 \
    --offset-us 1200,-800,30000,-45000 --drift-ppm 20,-35,60,-80 --jitter-us 300
start_table table-b --kinds buttons,buttons,buttons,slap --uid-base 0xb000 \
    --offset-us -5000,12000,700,-22000 --drift-ppm -10,45,-70,90 --jitter-us 300
for _ in $(seq 100); do [[ -L $var/pads/table-a && -L $var/pads/table-b ]] && break; sleep 0.05; done

export ARBITER_PADS="$var/pads/table-a $var/pads/table-b"
export ARBITER_DSN=$("$root/tools/pgcluster" "$pg" dsn)
export ARBITER_LISTEN=$listen
export ARBITER_BUS=session
export ARBITER_MIGRATIONS="$root/migrations"
export ARBITER_SPOOL="$var/spool"
export ARBITER_WEB="$root/web"

if [[ ! -s $var/admin.token ]]; then
    (umask 077; "$daemon" --create-token admin "make-run-admin" >"$var/admin.token")
fi

cat <<MSG

  arbiterd is starting on http://$listen  (Ctrl-C stops it and the database)

    health        curl http://$listen/v1/health
    API routes    curl http://$listen/v1
    pads          curl http://$listen/v1/pads      (two simulated tables, bots pressing)
    presses       curl http://$listen/v1/presses   (in pad-time order)
    live events   curl -N http://$listen/v1/events
    admin token   var/admin.token  — e.g.
                  curl -H "Authorization: Bearer \$(cat var/admin.token)" http://$listen/v1/tokens
    tournaments   curl http://$listen/v1/tournaments   (a club night step by step:
                  docs/running-a-tournament.md)
    D-Bus         DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS \\
                  busctl --user introspect org.arbiter.Arbiter1 /org/arbiter/Arbiter1
    database      tools/pgcluster var/pg psql

MSG

# Not exec: the cleanup above must run after arbiterd exits.  Ctrl-C reaches
# arbiterd directly (same process group); it stops gracefully.
rc=0
"$daemon" || rc=$?
exit "$rc"
