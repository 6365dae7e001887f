#!/usr/bin/env bash
# tests/bench/bench_crazy_race.sh [BUILD_DIR] — Crazy Pilot's slap race in
# `make bench` (issue 13): from the last slap's frame on the pty to the
# penalty it gives, on D-Bus (PenaltyGiven) and SSE (penalty_given), next to
# the same run's database commit time.
#
# Starts a throwaway PostgreSQL (tools/pgcluster), a private dbus-daemon,
# arbiter-padsim (three seats: a button pad and a slap pad each, on one pty,
# --events, script on stdin) and arbiterd with a known [pads]
# settle_window; creates a table and Crazy Pilot matches of three players
# over REST, and plays RACES races: read each seat's face-up card (the
# referee's view); when one holds a zombie, that seat shouts (button 5), the
# two others slap their slap pads 7 ms apart, and the penalty for the last
# of them is awaited; then the shouter's slap resumes play.  A round
# without a zombie puts every card under its pile (hand, button 4) and is
# not measured; a finished match is followed by a new one.
#
# Measured per race, all on CLOCK_MONOTONIC µs (daemon, padsim and this
# script share the machine's clock):
#   slap    padsim's PRESS record of the last slap: host_us, the press's
#           true time; padsim writes its frame at once (no transport delay
#           configured), so this is the frame on the pty, give or take
#           padsim's timer lag, which counts against us
#   D-Bus   when `busctl --user monitor` printed PenaltyGiven
#   SSE     when `curl -N /v1/events` printed penalty_given
# each arrival line stamped by bench_stamp as it is read.  Reported: p50/p99
# of arrival − slap, and minus the settle window (a slap is a timed press:
# it is taken once the settle window has passed, docs/matches.md); and, as
# the reference, how long the last slap's input took to commit (arbiterd's
# debug line "durable … after it was made") and the database's own floor
# (db_reference in lib.sh: psql INSERT+COMMIT into the same cluster).
# Benchmarks report, they do not assert: the exit status is non-zero only
# when the bench could not run.
#
# Rows of `make bench`'s report (report_row, tests/bench/lib.sh), against
# psql's INSERT+COMMIT p99 into the same cluster in the same run:
#   crazy_race.daemon_share_p99_ms.sse   SSE p99 minus the settle window,
#   crazy_race.daemon_share_p99_ms.dbus  D-Bus the same: a difference of at
#       most 1 ms (GOAL_SHARE_MS: why there);
#   crazy_race.stored_p99_ms  the last slap's own commit, at most 0.5 ms
#       more than psql's (GOAL_STORED_MS).
#
# Environment (defaults in brackets):
#   RACES      races measured [100]            SETTLE_US   [pads] settle_window [2000]
#   KEEP_LOGS  when 1, keep the directory      PGCLUSTER   the cluster helper [tools/pgcluster]

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RACES=${RACES:-100}
SETTLE_US=${SETTLE_US:-2000}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}

SEATS=3
UID_BASE=0x7d00                 # pads 0..2 the seats' button pads, 3..5 their slap pads
STEP_TIMEOUT_S=10
START_TIMEOUT_S=30
STOP_TIMEOUT_S=15
MAX_STEPS=100000
# The report's goals.  What the daemon adds to a slap race on top of the two
# things it cannot avoid, the settle window and the durable commit: at most
# 1 ms at p99.  Issue 15 asks 0.5 ms of the judged call (bench_e2e.sh) idle;
# here the figure also holds padsim's timer lag and a second reader process
# (busctl or curl, piped through bench_stamp), all on the two cores the
# daemon and PostgreSQL use, so the bound is the issue's loaded one.
GOAL_SHARE_MS=1
# The daemon's own INSERT+COMMIT of the slap next to psql's into the same
# cluster: the same statement, plus its queueing on the lane; half a
# millisecond for that.
GOAL_STORED_MS=0.5

tmp=""

BENCH_NAME=bench_crazy_race
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        exec 7>&-
        bench_teardown "$status"
}

count() { grep -c -- "$2" "$1" 2>/dev/null || true; }

# Waits until FILE has more than N lines matching PATTERN; 1 on timeout.
wait_count() {  # wait_count FILE PATTERN N TIMEOUT_S
        local i
        for ((i = 0; i < $4 * 200; i++)); do
                (($(count "$1" "$2") > $3)) && return 0
                sleep 0.005
        done
        return 1
}

start_all() {   # start_all BUILD_DIR
        local build=$1 i kinds
        log "starting PostgreSQL, dbus-daemon, padsim and arbiterd in $tmp"
        pg_up

        dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" 2>"$tmp/dbus.log" &
        started $! dbus-daemon
        for _ in $(seq 100); do [[ -S $tmp/bus ]] && break; sleep 0.05; done
        [[ -S $tmp/bus ]] || die "dbus-daemon did not start"
        export DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/bus"

        mkfifo "$tmp/script"
        exec 7<>"$tmp/script"
        kinds=buttons,buttons,buttons,slap,slap,slap
        "$build/arbiter-padsim" --kinds "$kinds" --buttons 6 --uid-base "$UID_BASE" --link "$tmp/pads" --events \
                --quiet --script - <"$tmp/script" 2>"$tmp/padsim.log" \
                > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/padsim.out") &
        started $! padsim
        for _ in $(seq 100); do [[ -L $tmp/pads ]] && break; sleep 0.05; done
        [[ -L $tmp/pads ]] || die "arbiter-padsim did not create its link (log: $tmp/padsim.log)"

        printf '[pads]\nsettle_window = %s\n' "$SETTLE_US" >"$tmp/arbiterd.conf"
        PORT=$(free_port)
        local env=(ARBITER_DSN="$DSN" ARBITER_MIGRATIONS="$ROOT/migrations" ARBITER_BUS=session
                   ARBITER_LISTEN="127.0.0.1:$PORT" ARBITER_SPOOL="$tmp/spool"
                   ARBITER_LOG_LEVEL=debug ARBITER_PADS="$tmp/pads")
        env "${env[@]}" "$build/arbiterd" --config="$tmp/arbiterd.conf" >"$tmp/arbiterd.log" 2>&1 </dev/null &
        started $! arbiterd
        local daemon_pid=$!
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null && break
                kill -0 "$daemon_pid" 2>/dev/null || die "arbiterd exited (log: $tmp/arbiterd.log)"
                sleep 0.1
        done
        TOKEN=$(env "${env[@]}" ARBITER_BUS=none "$build/arbiterd" --create-token admin "bench-crazy" \
                2>>"$tmp/token.log") || die "arbiterd --create-token failed (log: $tmp/token.log)"
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                api GET /v1/health | jq -e '.tokens.loaded' >/dev/null && break
                sleep 0.1
        done
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                (($(api GET /v1/pads | jq '[.items[] | select(.connected and .clock.synced)] | length')
                  >= 2 * SEATS)) && break
                sleep 0.1
        done
        ((i < START_TIMEOUT_S * 10)) || die "the pads did not all connect and sync: $(api GET /v1/pads)"

        stdbuf -oL busctl --user monitor --match "type='signal',member='PenaltyGiven'" 2>"$tmp/busctl.log" \
                > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/dbus.out") &
        started $! busctl
        curl -sN -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/events?topic=match" \
                2>"$tmp/curl.log" > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/sse.out") &
        started $! curl
        # both listening: a probe signal and the stream's first line seen
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                busctl --user emit /org/arbiter/bench org.arbiter.Bench PenaltyGiven >/dev/null 2>&1 || true
                (($(count "$tmp/dbus.out" 'Member=PenaltyGiven') > 0)) && [[ -s $tmp/sse.out ]] && break
                sleep 0.1
        done
        ((i < START_TIMEOUT_S * 10)) || die "busctl monitor or the event stream did not start"

        local seats
        seats=$(for ((i = 0; i < SEATS; i++)); do
                        printf '{"seat": %d, "pads": [{"pad": "%016x", "role": "buttons"}, {"pad": "%016x", "role": "slap"}]}' \
                                $((i + 1)) $((UID_BASE + i)) $((UID_BASE + SEATS + i))
                done | jq -sc .)
        TABLE=$(api POST /v1/tables "{\"name\": \"bench-crazy\", \"seats\": $seats}" | jq -r .id) ||
                die "could not create the table"
}

new_match() {
        MATCH=$(api POST /v1/matches "{\"game\": \"crazy-pilot\", \"table\": $TABLE,
                \"players\": [\"A\", \"B\", \"C\"]}" | jq -r .id) || die "could not create a match"
        api POST "/v1/matches/$MATCH/start" >/dev/null || die "could not start match $MATCH"
}

press() {       # press PAD BUTTON IN_US
        printf '{"pad": %d, "button": %d, "press": true, "hold_ms": 20, "in_us": %d}\n' "$1" "$2" "$3" >&7
}

# "STATE PHASE ZOMBIE_SEAT HANDLES" of the match: the zombie seat 0 when no
# face-up card holds one; HANDLES the seats' face-up cards, joined.
look() {
        api GET "/v1/matches/$MATCH/referee" | jq -r '
                [.state, .view.phase,
                 ([.view.referee.seats[] | select(.card != null and any(.card.scene.items[]?; .kind == "zombie"))
                   | .seat] | first // 0),
                 ([.view.referee.seats[] | .card.handle // "-"] | join(","))] | join(" ")'
}

# Waits until the match's phase is one of PHASES (space-separated) or it
# is over; 1 on timeout.
wait_phase() {  # wait_phase PHASES...
        local i state phase
        for ((i = 0; i < STEP_TIMEOUT_S * 200; i++)); do
                read -r state phase _ _ < <(look)
                [[ $state != running ]] && return 0
                for p in "$@"; do [[ $phase == "$p" ]] && return 0; done
                sleep 0.005
        done
        return 1
}

# Plays one step; a race appends "slap_us dbus_us sse_us seq" to FILE.
# 0 when a race was measured, 1 otherwise.
step() {        # step FILE
        local state phase z handles s np nd ns racers=() tp td ts seq
        read -r state phase z handles < <(look)
        if [[ $state != running || $phase == finished || $phase == ending ]]; then
                [[ $state == running ]] && { wait_phase finished || true; }
                new_match
                return 1
        fi
        if [[ $phase != playing ]]; then
                sleep 0.005
                return 1
        fi
        if ((z == 0)); then
                # no zombie: every card under its pile; wait until each seat
                # that had one shows another (or the match moved on)
                for ((s = 0; s < SEATS; s++)); do press "$s" 4 $((1000 + 3000 * s)); done
                local i now
                for ((i = 0; i < STEP_TIMEOUT_S * 200; i++)); do
                        read -r state phase _ now < <(look)
                        [[ $state != running || $phase != playing ]] && break
                        [[ $(paste -d' ' <(tr ',' '\n' <<<"$now") <(tr ',' '\n' <<<"$handles") |
                             awk '$2 != "-" && $1 == $2' | wc -l) == 0 ]] && break
                        sleep 0.005
                done
                return 1
        fi
        # seat z shouts; the two others slap, 7 ms apart
        press $((z - 1)) 5 1000
        wait_phase race checked finished ending || die "no race after seat $z's shout in match $MATCH"
        read -r state phase _ _ < <(look)
        [[ $phase == race ]] || return 1
        for ((s = 1; s <= SEATS; s++)); do ((s != z)) && racers+=("$s"); done
        np=$(count "$tmp/padsim.out" ' PRESS ')
        nd=$(count "$tmp/dbus.out" 'Member=PenaltyGiven')
        ns=$(count "$tmp/sse.out" 'event: penalty_given')
        press $((SEATS + racers[0] - 1)) 0 1000
        press $((SEATS + racers[1] - 1)) 0 8000
        # arrivals are stamped as they come; keep off the CPUs meanwhile
        sleep 0.05
        if ! wait_count "$tmp/sse.out" 'event: penalty_given' "$ns" "$STEP_TIMEOUT_S" ||
           ! wait_count "$tmp/dbus.out" 'Member=PenaltyGiven' "$nd" "$STEP_TIMEOUT_S" ||
           ! wait_count "$tmp/padsim.out" ' PRESS ' $((np + 1)) 1; then
                log "match $MATCH: no penalty within $STEP_TIMEOUT_S s after the slaps; skipped"
        else
                tp=$(grep ' PRESS ' "$tmp/padsim.out" | tail -n 2 | sed -n 's/.*host_us=\([0-9]*\).*/\1/p' |
                     sort -n | tail -n 1)
                td=$(grep 'Member=PenaltyGiven' "$tmp/dbus.out" | tail -n 1 | cut -d' ' -f1)
                ts=$(grep 'event: penalty_given' "$tmp/sse.out" | tail -n 1 | cut -d' ' -f1)
                seq=$(grep -A1 'event: penalty_given' "$tmp/sse.out" | tail -n 1 |
                      sed -n 's/^[0-9]* data: //p' | jq -r '.seq // empty')
                echo "$tp $td $ts ${seq:-0} $MATCH" >>"$1"
        fi
        # the shouter resumes play
        wait_phase checked finished ending || die "match $MATCH: the race did not end"
        press $((SEATS + z - 1)) 0 1000
        wait_phase playing finished ending || die "match $MATCH: play did not resume"
        return 0
}

# p50 p99 n in ms of (column − slap − offset_us) over FILE.
percentiles() { # percentiles FILE COLUMN OFFSET_US
        awk -v c="$2" -v s="$3" '{ print ($c - $1 - s) / 1000 }' "$1" | sort -g |
                awk '{ v[NR] = $1 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }'
}

# p50 p99 n in ms of the last slaps' commits, from arbiterd's debug lines.
stored_percentiles() {  # stored_percentiles FILE
        local seq m
        while read -r _ _ _ seq m; do
                grep -F "match $m: input $seq durable " "$tmp/arbiterd.log" | tail -n 1 |
                        sed -n 's/.* durable \([0-9]*\) µs.*/\1/p'
        done <"$1" | sort -g |
                awk '{ v[NR] = $1 / 1000 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }'
}

main() {
        local build=${1:-build} n=0 steps=0 file p50 p99 k
        [[ $build == /* ]] || build=$ROOT/$build
        need curl curl
        need jq jq
        need psql postgresql-client-15
        need busctl systemd
        need dbus-daemon dbus
        need ss iproute2
        for f in arbiterd arbiter-padsim tests/bench/bench_stamp; do
                [[ -x $build/$f ]] || die "$build/$f not found: build it first (make build-tests)"
        done
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-bench-crazy.XXXXXX")
        chmod 0755 "$tmp"
        trap cleanup EXIT
        trap 'exit 130' INT TERM

        start_all "$build"
        new_match
        file=$tmp/races.txt
        : >"$file"
        log "$RACES races"
        while ((n < RACES && steps < MAX_STEPS)); do
                steps=$((steps + 1))
                if step "$file"; then n=$((n + 1)); fi
        done

        echo
        echo "Crazy Pilot's slap race: the last slap (padsim PRESS host_us) → PenaltyGiven (busctl monitor) /"
        echo "penalty_given (SSE), ms; settle window $SETTLE_US µs; $(nproc) CPUs"
        printf '%-44s %6s %9s %9s\n' step n "p50 ms" "p99 ms"
        local share_dbus share_sse stored ref
        for k in 2 3; do
                read -r p50 p99 n < <(percentiles "$file" "$k" 0)
                printf '%-44s %6s %9s %9s\n' "$([[ $k == 2 ]] && echo D-Bus || echo SSE): last slap → penalty" "$n" "$p50" "$p99"
                read -r p50 p99 n < <(percentiles "$file" "$k" "$SETTLE_US")
                printf '%-44s %6s %9s %9s\n' "  the same, minus the settle window" "$n" "$p50" "$p99"
                if [[ $k == 2 ]]; then share_dbus=$p99; else share_sse=$p99; fi
        done
        read -r p50 p99 n < <(stored_percentiles "$file")
        printf '%-44s %6s %9s %9s\n' "the last slap stored (INSERT+COMMIT)" "$n" "$p50" "$p99"
        stored=$p99
        read -r p50 p99 n < <(db_reference "$DSN")
        printf '%-44s %6s %9s %9s\n' "ref: psql INSERT+COMMIT, 200 ms apart" "$n" "$p50" "$p99"
        ref=$p99
        report_row crazy_race.daemon_share_p99_ms.sse "Crazy Pilot slap race: last slap → penalty_given on SSE, p99 − settle" \
                ms "$share_sse" "$ref" "psql INSERT+COMMIT p99" diff_max "$GOAL_SHARE_MS"
        report_row crazy_race.daemon_share_p99_ms.dbus "Crazy Pilot slap race: last slap → PenaltyGiven on D-Bus, p99 − settle" \
                ms "$share_dbus" "$ref" "psql INSERT+COMMIT p99" diff_max "$GOAL_SHARE_MS"
        report_row crazy_race.stored_p99_ms "Crazy Pilot slap race: the last slap stored, p99" \
                ms "$stored" "$ref" "psql INSERT+COMMIT p99" diff_max "$GOAL_STORED_MS"
}

main "$@"
