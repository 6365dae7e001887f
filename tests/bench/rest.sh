#!/usr/bin/env bash
# tests/bench/rest.sh [BUILD_DIR] — the REST benchmark of issue 2 (`make bench`).
#
# Measures GET /v1/health on arbiterd against nginx serving the same JSON as a
# static file, on this machine, in the same run, with the same wrk settings:
# requests per second and p50/p99 latency for both, the ratio, and arbiterd's
# resident memory when idle and at its peak next to nginx's (master and
# worker).  Targets are reported as met or not met; missing one is not a
# failure (benchmarks report, tests assert).  The exit status is non-zero only
# when the benchmark could not run.
#
# Rows of `make bench`'s report (report_row, tests/bench/lib.sh), each against
# nginx in the same run; the goals and their reasons are at TARGET_* below:
#   rest.health.req_per_s   arbiterd's req/s, ratio_min 1
#   rest.health.p99_ms      arbiterd's p99, ratio_max 1.5
#   rest.health.p50_ms      arbiterd's p50, no goal
#   rest.rss_kib.idle       arbiterd's idle VmRSS against nginx's, no goal
#   rest.rss_kib.peak       arbiterd's VmHWM after the load against nginx's, no goal
#
# It starts a throwaway PostgreSQL (tools/pgcluster), arbiterd on a free
# loopback port with no D-Bus, and nginx with one worker (arbiterd serves from
# one thread); everything lives in one temporary directory.  Every process is
# stopped on exit, also on failure or Ctrl-C; the directory is removed after a
# successful run and kept (its path printed) after a failure, for the logs.
#
# Environment (defaults in brackets):
#   DURATION     wrk run per target and round [5s]   WARMUP   warm-up per target [2s]
#   ROUNDS       alternating rounds; each target's median round is reported [3]
#   CONNECTIONS  wrk connections [64]            THREADS  wrk threads [2]
#   PGCLUSTER    the cluster helper [tools/pgcluster]
#   KEEP_LOGS    when 1, keep the temporary directory and print its path

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Both servers answer from one thread: each gets the same core of its own,
# wrk the other one, so neither server competes with the load generator.
if [[ $(nproc) -ge 2 ]] && command -v taskset >/dev/null; then
        PIN_SERVER="taskset -c 1"
        PIN_CLIENT="taskset -c 0"
else
        PIN_SERVER=""
        PIN_CLIENT=""
fi
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-2s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}

# Targets from issue 2, printed as they were; the report's goals are relative
# to nginx (issue 15).
TARGET_RATIO=0.8        # arbiterd req/s at least this fraction of nginx's
TARGET_P99_MS=5         # arbiterd p99 latency below this
TARGET_RSS_MIB=16       # arbiterd idle resident memory below this
# The report's goals.  arbiterd answers /v1/health from memory on one thread
# as nginx answers a cached static file on one worker, on the same core:
# it should serve at least as many (issue 2 asked for 0.8; it has done better
# since, and issue 15 starts from that).  Its p99 within half again of
# nginx's: the 99th percentile of a 5 s run moves more from run to run than
# the rate does.  Memory has no goal: arbiterd holds a PostgreSQL
# connection, the games and the web pages that nginx has no need of; the
# figures are reported for their trend.
GOAL_RPS_RATIO_MIN=1
GOAL_P99_RATIO_MAX=1.5
IDLE_SECONDS=2          # idle time before the RSS sample
START_TIMEOUT_S=30      # for the daemon's first /v1/health answer
STOP_TIMEOUT_S=15       # SIGTERM → exit; above the daemon's 10 s shutdown bound
HEALTH_PATH=/v1/health

tmp=""
daemon_pid=""
nginx_pid=""

BENCH_NAME=bench
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        [[ -n $daemon_pid ]] && stop_pid "$daemon_pid" arbiterd "$STOP_TIMEOUT_S"
        [[ -n $nginx_pid ]] && stop_pid "$nginx_pid" nginx 5
        bench_teardown "$status"
}


# Waits until URL answers 2xx while PID lives.
wait_http() {   # wait_http URL PID NAME TIMEOUT_S
        local i
        for ((i = 0; i < $4 * 10; i++)); do
                curl -fsS -o /dev/null --max-time 1 "$1" 2>/dev/null && return 0
                kill -0 "$2" 2>/dev/null || die "$3 exited before answering $1 (log: $tmp/$3.log)"
                sleep 0.1
        done
        die "$3 did not answer $1 within $4 s (log: $tmp/$3.log)"
}

start_postgres() {
        [[ -x $PGCLUSTER ]] || die "$PGCLUSTER not found or not executable"
        pg_up
}

start_daemon() {        # start_daemon BUILD_DIR
        local bin=$1/arbiterd
        [[ -x $bin ]] || die "$bin not found: build it first (make)"
        DAEMON_PORT=$(free_port)
        # wrk's CONNECTIONS kept-alive connections all come from 127.0.0.1,
        # and between two requests each is one that "has not sent its
        # request yet": past [http] pending_per_ip (32) arbiterd would close
        # that address's oldest, as it does a slow client's, and wrk counts a
        # read error and reconnects.  A reverse proxy in front of arbiterd is
        # such an address too (docs/arbiterd.conf.example says to raise it).
        printf '[http]\npending_per_ip = %d\n' $((CONNECTIONS * 2)) >"$tmp/arbiterd.conf"
        ARBITER_DSN=$DSN ARBITER_LISTEN=127.0.0.1:$DAEMON_PORT ARBITER_BUS=none \
        ARBITER_MIGRATIONS=$ROOT/migrations ARBITER_SPOOL=$tmp/spool ARBITER_LOG_LEVEL=warning \
                $PIN_SERVER "$bin" -c "$tmp/arbiterd.conf" >"$tmp/arbiterd.log" 2>&1 </dev/null &
        daemon_pid=$!
        wait_http "http://127.0.0.1:$DAEMON_PORT$HEALTH_PATH" "$daemon_pid" arbiterd "$START_TIMEOUT_S"
}

# The same bytes and Content-Type as the daemon's answer, for nginx to serve.
capture_health() {
        local type
        mkdir -p "$tmp/www${HEALTH_PATH%/*}"
        type=$(curl -fsS -o "$tmp/www$HEALTH_PATH" -w '%{content_type}' \
                "http://127.0.0.1:$DAEMON_PORT$HEALTH_PATH") || die "could not fetch $HEALTH_PATH"
        HEALTH_TYPE=${type%%;*}
        [[ $HEALTH_TYPE == application/json ]] ||
                log "warning: $HEALTH_PATH answered Content-Type '$type', not application/json"
        chmod -R a+rX "$tmp/www"        # nginx's worker may run as nobody
}

write_nginx_conf() {
        local d=$tmp/nginx
        mkdir -p "$d"
        cat >"$d/nginx.conf" <<EOF
# One worker: arbiterd serves from one thread (issue 2).
worker_processes 1;
daemon off;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $d/body;
    proxy_temp_path $d/proxy;
    fastcgi_temp_path $d/fastcgi;
    uwsgi_temp_path $d/uwsgi;
    scgi_temp_path $d/scgi;
    types { }
    default_type $HEALTH_TYPE;
    # wrk keeps its connections open; do not make nginx reconnect every
    # 1000 requests when arbiterd does not.
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $tmp/www;
    }
}
EOF
}

start_nginx() {
        need nginx nginx-light
        NGINX_PORT=$(free_port)
        write_nginx_conf
        $PIN_SERVER nginx -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf" \
                >"$tmp/nginx.log" 2>&1 </dev/null &
        nginx_pid=$!
        wait_http "http://127.0.0.1:$NGINX_PORT$HEALTH_PATH" "$nginx_pid" nginx 10
        local type
        type=$(curl -fsS -o /dev/null -w '%{content_type}' "http://127.0.0.1:$NGINX_PORT$HEALTH_PATH")
        [[ $type == "$HEALTH_TYPE" ]] || log "warning: nginx answers Content-Type '$type', arbiterd '$HEALTH_TYPE'"
}

proc_kib() {    # proc_kib PID FIELD → KiB from /proc/PID/status
        awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# FIELD summed over nginx's master and its worker.
nginx_kib() {   # nginx_kib FIELD
        local p sum=0 k
        for p in "$nginx_pid" $(pgrep -P "$nginx_pid"); do
                k=$(proc_kib "$p" "$1") && sum=$((sum + ${k:-0}))
        done
        echo "$sum"
}

# A server that died under load is a finding, not noise.  (Ctrl-C also ends
# here: wrk catches SIGINT and exits 0, so bash runs no INT trap, but the
# servers in the same process group stop.)
still_running() {       # still_running PID NAME
        kill -0 "$1" 2>/dev/null || die "$2 exited during the run (interrupted?); log: $tmp/$2.log"
}

# Runs wrk against NAME (process PID) and leaves its report in
# wrk-NAME-ROUND.txt; the warm-up is done in round 1 only.
run_wrk() {     # run_wrk NAME PID URL ROUND
        local out=$tmp/wrk-$1-$4.txt
        log "wrk against $1, round $4 ($DURATION run)"
        if [[ $4 == 1 ]]; then
                $PIN_CLIENT wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$3" >/dev/null 2>&1 ||
                        die "wrk warm-up against $1 failed"
        fi
        still_running "$2" "$1"
        $PIN_CLIENT wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$3" >"$out" 2>&1 ||
                { cat "$out" >&2; die "wrk against $1 failed"; }
        still_running "$2" "$1"
}

# The round with the median req/s for NAME, as parse_wrk prints it.
median_result() {       # median_result NAME
        local f
        for f in "$tmp"/wrk-"$1"-*.txt; do parse_wrk "$f"; done |
                sort -n -k1,1 | awk '{ line[NR] = $0 } END { print line[int((NR + 1) / 2)] }'
}

verdict() {     # verdict CONDITION → met / NOT met
        if awk "BEGIN { exit !($1) }"; then echo met; else echo "NOT met"; fi
}

report() {
        local d_rps d_p50 d_p99 d_err n_rps n_p50 n_p99 n_err ratio idle_mib peak_mib
        read -r d_rps d_p50 d_p99 d_err <<<"$DAEMON_RESULT"
        read -r n_rps n_p50 n_p99 n_err <<<"$NGINX_RESULT"
        ratio=$(awk -v a="$d_rps" -v b="$n_rps" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
        idle_mib=$(awk -v k="$IDLE_RSS_KIB" 'BEGIN { printf "%.1f", k / 1024 }')
        peak_mib=$(awk -v k="$PEAK_RSS_KIB" 'BEGIN { printf "%.1f", k / 1024 }')

        echo
        echo "REST benchmark: GET $HEALTH_PATH, wrk -t$THREADS -c$CONNECTIONS -d$DURATION," \
             "$ROUNDS alternating rounds (median shown), after a $WARMUP warm-up, $(nproc) CPUs" \
             "${PIN_SERVER:+(servers pinned to CPU 1, wrk to CPU 0)}"
        printf '%-10s %12s %10s %10s %8s\n' target req/s "p50 ms" "p99 ms" errors
        printf '%-10s %12.0f %10.3f %10.3f %8d\n' arbiterd "$d_rps" "$d_p50" "$d_p99" "$d_err"
        printf '%-10s %12.0f %10.3f %10.3f %8d\n' nginx "$n_rps" "$n_p50" "$n_p99" "$n_err"
        echo
        # Verdicts on the unrounded figures: 0.797 must not pass as "0.80".
        printf 'req/s ratio arbiterd/nginx  %6s   target >= %s      %s\n' \
                "$ratio" "$TARGET_RATIO" "$(verdict "$d_rps >= $TARGET_RATIO * $n_rps")"
        printf 'arbiterd p99 latency        %6.3f ms  target < %s ms    %s\n' \
                "$d_p99" "$TARGET_P99_MS" "$(verdict "$d_p99 < $TARGET_P99_MS")"
        printf 'arbiterd idle RSS (VmRSS)   %6s MiB target < %s MiB  %s\n' \
                "$idle_mib" "$TARGET_RSS_MIB" "$(verdict "$IDLE_RSS_KIB < $TARGET_RSS_MIB * 1024")"
        printf 'arbiterd peak RSS (VmHWM)   %6s MiB (after the load; no target)\n' "$peak_mib"
        printf 'nginx RSS, master + worker  %6s MiB idle, %s MiB peak (VmHWM)\n' \
                "$(awk -v k="$NGINX_IDLE_RSS_KIB" 'BEGIN { printf "%.1f", k / 1024 }')" \
                "$(awk -v k="$NGINX_PEAK_RSS_KIB" 'BEGIN { printf "%.1f", k / 1024 }')"
        local how="wrk -t$THREADS -c$CONNECTIONS, median of $ROUNDS rounds"
        report_row rest.health.req_per_s "GET /v1/health, $how" "req/s" "$d_rps" "$n_rps" \
                "nginx, the same JSON file" ratio_min "$GOAL_RPS_RATIO_MIN"
        report_row rest.health.p99_ms "GET /v1/health p99, $how" ms "$d_p99" "$n_p99" \
                "nginx, the same JSON file" ratio_max "$GOAL_P99_RATIO_MAX"
        report_row rest.health.p50_ms "GET /v1/health p50, $how" ms "$d_p50" "$n_p50" \
                "nginx, the same JSON file" none
        report_row rest.rss_kib.idle "resident memory, idle (VmRSS)" KiB "$IDLE_RSS_KIB" "$NGINX_IDLE_RSS_KIB" \
                "nginx, master + worker" none
        report_row rest.rss_kib.peak "resident memory, peak after the load (VmHWM)" KiB "$PEAK_RSS_KIB" \
                "$NGINX_PEAK_RSS_KIB" "nginx, master + worker" none
        if [[ $d_err != 0 || $n_err != 0 ]]; then
                echo "note: errors are non-2xx answers plus socket errors; see $tmp/wrk-*.txt"
                KEEP_LOGS=1
        fi
}

main() {
        local build=${1:-build}
        [[ $build == /* ]] || build=$ROOT/$build
        need wrk wrk
        need curl curl
        need ss iproute2
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-bench.XXXXXX")
        chmod 0755 "$tmp"       # nginx's worker and the postgres user read below it
        trap cleanup EXIT
        trap 'exit 130' INT TERM

        [[ -x $build/arbiterd ]] || die "$build/arbiterd not found: build it first (make)"
        log "starting PostgreSQL"
        start_postgres
        log "starting arbiterd"
        start_daemon "$build"
        capture_health
        sleep "$IDLE_SECONDS"
        IDLE_RSS_KIB=$(proc_kib "$daemon_pid" VmRSS)
        log "starting nginx"
        start_nginx
        sleep "$IDLE_SECONDS"
        NGINX_IDLE_RSS_KIB=$(nginx_kib VmRSS)

        # Alternate the two targets ROUNDS times and keep each one's median
        # round: the machine's speed drifts over a minute, and running one
        # target after the other would charge the drift to one of them.
        for round in $(seq "$ROUNDS"); do
                run_wrk arbiterd "$daemon_pid" "http://127.0.0.1:$DAEMON_PORT$HEALTH_PATH" "$round"
                run_wrk nginx "$nginx_pid" "http://127.0.0.1:$NGINX_PORT$HEALTH_PATH" "$round"
        done
        PEAK_RSS_KIB=$(proc_kib "$daemon_pid" VmHWM)
        NGINX_PEAK_RSS_KIB=$(nginx_kib VmHWM)
        DAEMON_RESULT=$(median_result arbiterd)
        NGINX_RESULT=$(median_result nginx)
        report
}

main "$@"
