#!/usr/bin/env bash
# tests/bench/load.sh [BUILD_DIR] — the load a venue network brings (issue 11),
# for `make bench` (one loaded round) and `make soak` (loaded rounds for
# LOAD_S seconds, tests/soak/load.sh).
#
# The scene: arbiterd with its default configuration; a Crash Pilot match
# played at one table by arbiter-bots on arbiter-padsim pads (docs/bots.md),
# hosted again after each finish; then, from tests/load/loadgen, STREAMS
# scoreboards following every match (GET /v1/events?topic=match) from the
# addresses of STREAM_FROM, and four slow hosts (SLOW_FROM) holding
# SLOW_PER_HOST connections each that send a header line every
# SLOW_INTERVAL_MS and come back a second after each close.
#
# Measured, idle first and then in the scene, in the same run: GET /v1/health
# and GET /v1/matches/{id} of the match being played (wrk --latency, -c
# CONNECTIONS, MEASURE_S each), judged calls per minute (call_judged on a
# stream of its own), and arbiterd's resident memory, whose growth in the
# scene per stream is what a stream costs.  The goal for both p99s in the
# scene is under 50 ms (issue 11, printed as it was); benchmarks report, they
# do not pass or fail on a figure: the exit status is non-zero only when the
# scene could not run.
#
# Rows of `make bench`'s report (report_row, tests/bench/lib.sh), each
# against the idle round of the same run (GOAL_*: the reasons):
#   load.health_p99_ms.scene  the worst loaded round's p99, ratio_max 2
#   load.match_p99_ms.scene   GET /v1/matches/{id} the same, ratio_max 2
#   load.calls_per_min.scene  judged calls per minute, ratio_min 0.8
#   load.rss_kib.scene        arbiterd's VmRSS with the streams open, no goal
#                             (tests/bench/fanout.sh compares a stream's
#                             memory with nginx + nchan's)
#
# Environment (defaults in brackets):
#   MEASURE_S [10]  each wrk run          LOAD_S [0]  loaded rounds for this long (0: one)
#   STREAMS [2000]  STREAM_FROM [127.0.1.1-127.0.1.40]
#   SLOW_PER_HOST [64]  SLOW_FROM [127.0.0.2-127.0.0.5]  SLOW_INTERVAL_MS [10000]
#   CONNECTIONS [4]  wrk's                PGCLUSTER [tools/pgcluster]
#   KEEP_LOGS        when 1, keep the temporary directory
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MEASURE_S=${MEASURE_S:-10}
LOAD_S=${LOAD_S:-0}
STREAMS=${STREAMS:-2000}
STREAM_FROM=${STREAM_FROM:-127.0.1.1-127.0.1.40}
SLOW_PER_HOST=${SLOW_PER_HOST:-64}
SLOW_FROM=${SLOW_FROM:-127.0.0.2-127.0.0.5}
SLOW_INTERVAL_MS=${SLOW_INTERVAL_MS:-10000}
CONNECTIONS=${CONNECTIONS:-4}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}

TARGET_P99_MS=50        # issue 11: both requests, in the scene
# The report's goals, relative to the idle round.  A request in the scene
# within 2x of the same request idle: what issue 15 asks of GET
# /v1/matches/{id} with 2,000 streams open (tests/bench/fanout.sh), here
# with the slow hosts and the match's events as well.  The match goes on at
# the bots' pace: at least 0.8 of the idle round's judged calls per minute
# (the bots' pace varies by match and a round is short, so not 1).
GOAL_P99_RATIO_MAX=2
GOAL_CALLS_RATIO_MIN=0.8
N_PADS=4
UID_BASE=0xc000         # padsim --uid-base: pads 000000000000c000..03
START_TIMEOUT_S=60
STOP_TIMEOUT_S=15
# The generator's READY: thousands of connections, a few at a time.
LOAD_READY_TIMEOUT_S=120
SLOW_RECONNECT_MS=1000
# One thread serves HTTP: arbiterd gets a core of its own, wrk the other.
if [[ $(nproc) -ge 2 ]] && command -v taskset >/dev/null; then
        PIN_SERVER="taskset -c 1"
        PIN_CLIENT="taskset -c 0"
else
        PIN_SERVER=""
        PIN_CLIENT=""
fi

tmp=""

BENCH_NAME=load
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        exec 8>&- 7>&- 2>/dev/null || true      # the generator's stdin (it quits), padsim's
        bench_teardown "$status"
}

rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$DAEMON_PID/status"; }
judged() { grep -c '^event: call_judged' "$tmp/events.out" 2>/dev/null || true; }

start_scene() { # start_scene BUILD_DIR
        local build=$1 i seats
        log "starting PostgreSQL, arbiterd, padsim and the bots in $tmp"
        pg_up

        # padsim reads the bots' presses from a fifo (opened read-write
        # first, so that neither end waits for the other)
        mkfifo "$tmp/presses"
        exec 7<>"$tmp/presses"
        "$build/arbiter-padsim" --pads "$N_PADS" --uid-base "$UID_BASE" --link "$tmp/pads" --quiet \
                --script - <"$tmp/presses" >"$tmp/padsim.out" 2>"$tmp/padsim.log" &
        started $! padsim
        for _ in $(seq 100); do [[ -L $tmp/pads ]] && break; sleep 0.05; done
        [[ -L $tmp/pads ]] || die "arbiter-padsim did not create its link (log: $tmp/padsim.log)"

        PORT=$(free_port)
        local env=(ARBITER_DSN="$DSN" ARBITER_MIGRATIONS="$ROOT/migrations" ARBITER_BUS=none
                   ARBITER_LISTEN="127.0.0.1:$PORT" ARBITER_SPOOL="$tmp/spool"
                   ARBITER_LOG_LEVEL=notice ARBITER_PADS="$tmp/pads")
        env "${env[@]}" $PIN_SERVER "$build/arbiterd" >"$tmp/arbiterd.log" 2>&1 </dev/null &
        DAEMON_PID=$!
        started "$DAEMON_PID" arbiterd
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null && break
                kill -0 "$DAEMON_PID" 2>/dev/null || die "arbiterd exited (log: $tmp/arbiterd.log)"
                sleep 0.1
        done
        (umask 077; env "${env[@]}" "$build/arbiterd" --create-token admin bench-load >"$tmp/admin.token" \
                2>"$tmp/token.log") || die "arbiterd --create-token failed (log: $tmp/token.log)"
        TOKEN=$(cat "$tmp/admin.token")
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                api GET /v1/status | jq -e '.tokens.loaded' >/dev/null && break
                sleep 0.1
        done
        seats=$(for ((i = 0; i < N_PADS; i++)); do
                        printf '{"seat": %d, "pad": "%016x"}' $((i + 1)) $((UID_BASE + i))
                done | jq -sc .)
        api POST /v1/tables "{\"name\": \"bench-load\", \"seats\": $seats}" >/dev/null ||
                die "could not create the table"

        "$build/arbiter-bots" --url "http://127.0.0.1:$PORT" --table bench-load --uid-base "$UID_BASE" \
                --pads "$N_PADS" --keep-playing --token-file "$tmp/admin.token" \
                >"$tmp/presses" 2>"$tmp/bots.log" &
        started $! arbiter-bots
        curl -sN "http://127.0.0.1:$PORT/v1/events?topic=match" >"$tmp/events.out" 2>/dev/null &
        started $! curl
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                (($(judged) > 0)) && break
                sleep 0.1
        done
        (($(judged) > 0)) || die "the bots' match judged no call within $START_TIMEOUT_S s (log: $tmp/bots.log)"
}

# The match being played now (the bots host the next after each finish).
current_match() {
        api GET "/v1/matches?state=running" | jq -r '.items[0].id // empty'
}

# One round: wrk on both requests; prints "PHASE H_RPS H_P50 H_P99 H_ERR
# M_RPS M_P50 M_P99 M_ERR CALLS_PER_MIN RSS_KIB".
round() {       # round PHASE N
        local phase=$1 n=$2 match c0 c1 t0 t1 h m
        match=$(current_match)
        [[ -n $match ]] || match=$(api GET "/v1/matches?limit=1" | jq -r '.items[0].id')
        c0=$(judged)
        t0=$(date +%s.%N)
        $PIN_CLIENT wrk -t1 -c"$CONNECTIONS" -d"${MEASURE_S}s" --latency \
                "http://127.0.0.1:$PORT/v1/health" >"$tmp/wrk-$phase-$n-health.txt" 2>&1 ||
                die "wrk failed: $(cat "$tmp/wrk-$phase-$n-health.txt")"
        $PIN_CLIENT wrk -t1 -c"$CONNECTIONS" -d"${MEASURE_S}s" --latency \
                "http://127.0.0.1:$PORT/v1/matches/$match" >"$tmp/wrk-$phase-$n-match.txt" 2>&1 ||
                die "wrk failed: $(cat "$tmp/wrk-$phase-$n-match.txt")"
        t1=$(date +%s.%N)
        c1=$(judged)
        kill -0 "$DAEMON_PID" 2>/dev/null || die "arbiterd exited during the run (log: $tmp/arbiterd.log)"
        h=$(parse_wrk "$tmp/wrk-$phase-$n-health.txt")
        m=$(parse_wrk "$tmp/wrk-$phase-$n-match.txt")
        echo "$phase $h $m $(awk -v c=$((c1 - c0)) -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.1f", c * 60 / (t1 - t0) }') $(rss_kib)"
}

print_row() {   # print_row LABEL IDLE_FIELDS... (from round lines)
        printf '%-22s %9s %9s %9s   %9s %9s %9s   %s\n' "$@"
}

verdict() { if awk "BEGIN { exit !($1) }"; then echo met; else echo "NOT met"; fi; }

main() {
        local build=${1:-build} idle loaded rounds=() r start worst_h=0 worst_m=0
        [[ $build == /* ]] || build=$ROOT/$build
        need wrk wrk
        need jq jq
        need curl curl
        need ss iproute2
        for f in arbiterd arbiter-padsim arbiter-bots tests/load/loadgen; do
                [[ -x $build/$f ]] || die "$build/$f not found: build it first (make bench)"
        done
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-load.XXXXXX")
        chmod 0755 "$tmp"
        trap cleanup EXIT
        trap 'exit 130' INT TERM

        start_scene "$build"
        log "idle round (wrk ${MEASURE_S}s per request)"
        idle=$(round idle 0)
        local idle_rss
        idle_rss=$(rss_kib)

        log "the venue: $STREAMS streams from $STREAM_FROM, $SLOW_PER_HOST slow connections from each of $SLOW_FROM"
        mkfifo "$tmp/loadgen.in"
        exec 8<>"$tmp/loadgen.in"
        "$build/tests/load/loadgen" --port "$PORT" --streams "$STREAMS" --stream-from "$STREAM_FROM" \
                --stream-path "/v1/events?topic=match" --slow "$SLOW_PER_HOST" --slow-from "$SLOW_FROM" \
                --slow-interval "$SLOW_INTERVAL_MS" --slow-reconnect "$SLOW_RECONNECT_MS" \
                <"$tmp/loadgen.in" >"$tmp/loadgen.out" 2>"$tmp/loadgen.log" &
        started $! loadgen
        local i
        for ((i = 0; i < LOAD_READY_TIMEOUT_S * 10; i++)); do
                grep -qs '^READY' "$tmp/loadgen.out" && break
                sleep 0.1
        done
        grep '^READY' "$tmp/loadgen.out" >&2 || die "the load generator did not get ready (log: $tmp/loadgen.log)"
        local scene_rss open_streams
        scene_rss=$(rss_kib)
        open_streams=$(api GET /v1/status | jq '.http.streams')

        start=$SECONDS
        r=1
        while :; do
                log "loaded round $r"
                rounds+=("$(round loaded "$r")")
                ((SECONDS - start < LOAD_S)) || break
                r=$((r + 1))
        done
        echo "status" >&8
        sleep 0.5
        local http
        http=$(api GET /v1/status | jq -c '.http | {streams, connections: .connections | {pending, streams},
                                                    refused, closed}')

        # shellcheck disable=SC2086
        set -- $idle
        echo
        echo "Venue load (issue 11): $STREAMS event streams (topic match) from $STREAM_FROM;" \
             "$SLOW_PER_HOST slow connections from each of $SLOW_FROM (a header line every $SLOW_INTERVAL_MS ms);"
        echo "a Crash Pilot match played by arbiter-bots on padsim pads; arbiterd's defaults;" \
             "wrk -t1 -c$CONNECTIONS -d${MEASURE_S}s per figure; $(nproc) CPUs${PIN_SERVER:+ (arbiterd on CPU 1, wrk on CPU 0)}"
        print_row "" "idle" "" "" "loaded" "" "" ""
        print_row "request" "p50 ms" "p99 ms" "req/s" "p50 ms" "p99 ms" "req/s" "goal: p99 < $TARGET_P99_MS ms"
        local row
        for row in "${rounds[@]}"; do
                # shellcheck disable=SC2086
                set -- $row
                local lh=($2 $3 $4 $5) lm=($6 $7 $8 $9) lcalls=${10} lrss=${11}
                # shellcheck disable=SC2086
                set -- $idle
                print_row "GET /v1/health" "$3" "$4" "$(printf %.0f "$2")" "${lh[1]}" "${lh[2]}" \
                        "$(printf %.0f "${lh[0]}")" "$(verdict "${lh[2]} < $TARGET_P99_MS")"
                print_row "GET /v1/matches/{id}" "$7" "$8" "$(printf %.0f "$6")" "${lm[1]}" "${lm[2]}" \
                        "$(printf %.0f "${lm[0]}")" "$(verdict "${lm[2]} < $TARGET_P99_MS")"
                print_row "judged calls/min" "${10}" "" "" "$lcalls" "" "" ""
                print_row "arbiterd RSS MiB" "$(awk -v k="${11}" 'BEGIN { printf "%.1f", k / 1024 }')" "" "" \
                        "$(awk -v k="$lrss" 'BEGIN { printf "%.1f", k / 1024 }')" "" "" ""
                if ((${lh[3]} + ${lm[3]} > 0)); then
                        echo "note: wrk counted ${lh[3]} + ${lm[3]} errors (non-2xx or socket) in the scene"
                        KEEP_LOGS=1
                fi
                worst_h=$(awk -v a="$worst_h" -v b="${lh[2]}" 'BEGIN { print (b > a) ? b : a }')
                worst_m=$(awk -v a="$worst_m" -v b="${lm[2]}" 'BEGIN { print (b > a) ? b : a }')
        done
        echo "memory per stream: $(awk -v a="$idle_rss" -v b="$scene_rss" -v n="$open_streams" \
                'BEGIN { printf "%.1f KiB", (b - a) / n }') (RSS $(awk -v k="$idle_rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
             "→ $(awk -v k="$scene_rss" 'BEGIN { printf "%.1f", k / 1024 }') MiB with $open_streams streams and the slow hosts)"
        echo "worst p99 in the scene: GET /v1/health $worst_h ms, GET /v1/matches/{id} $worst_m ms" \
             "over ${#rounds[@]} round(s)"
        echo "generator: $(grep '^STATUS' "$tmp/loadgen.out" | tail -n 1)"
        # the worst loaded round against the idle one; calls and memory from the last round
        # shellcheck disable=SC2086
        set -- $idle
        local scene="$STREAMS streams, $((SLOW_PER_HOST * 4)) slow connections, wrk -t1 -c$CONNECTIONS"
        report_row load.health_p99_ms.scene "GET /v1/health p99 in the venue's load ($scene)" ms "$worst_h" "$4" \
                "idle, same run" ratio_max "$GOAL_P99_RATIO_MAX"
        report_row load.match_p99_ms.scene "GET /v1/matches/{id} p99 in the venue's load ($scene)" ms "$worst_m" "$8" \
                "idle, same run" ratio_max "$GOAL_P99_RATIO_MAX"
        report_row load.calls_per_min.scene "judged calls per minute in the venue's load" calls/min "$lcalls" "${10}" \
                "idle, same run" ratio_min "$GOAL_CALLS_RATIO_MIN"
        report_row load.rss_kib.scene "arbiterd's resident memory with $open_streams streams open" KiB "$scene_rss" \
                "$idle_rss" "idle, same run" none
        echo "daemon: $http"
}

main "$@"
