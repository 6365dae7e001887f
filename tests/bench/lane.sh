#!/usr/bin/env bash
# tests/bench/lane.sh [BUILD_DIR] — inputs stored per second with 8 tables
# pressing at once (issue 15, `make bench`): the input lane's pipeline mode
# (store/store.h, "Pipeline mode") against the same inserts one round trip
# at a time.
#
# Starts a throwaway PostgreSQL (tools/pgcluster) and arbiterd, creates
# TABLES Crash Pilot matches over REST and starts them, then wrk (one thread
# and one connection per match, WRK_CPU pinned with taskset) sends each
# match a referee's input as fast as its answers come: `{"kind": "confirm"}`
# while the match runs, which the engine refuses ("not possible now") — a
# refused input is numbered, stored (one INSERT into match_inputs, the same
# statement a judged call takes) and answered 409 only once its INSERT has
# committed, like any other.  Each table has at most one input on its way at
# a time, as a table's pads and referee do; the tables press together, so
# the lane has up to TABLES inserts in flight, each its own transaction
# with its own sync point.  Measured: the rows match_inputs gained over the
# run ÷ its duration.
#
# Reference, same cluster, same run: pgbench with one client and the same
# INSERT into match_inputs itself (foreign key to matches and all, for
# matches created and aborted for it, so never played), each statement one
# round trip and one commit — what a lane sending one query at a time could
# at best store.  Also printed, for information: pgbench with TABLES
# clients (TABLES connections, whose commits PostgreSQL can flush together:
# what a connection per table would reach).  Report row
# lane.inputs_per_s.tables8, goal: arbiter / reference >= 1.
#
# Environment (defaults in brackets):
#   TABLES [8]  DURATION_S [10]  WRK_CPU [the last CPU]  KEEP_LOGS [0]
#   PGCLUSTER the cluster helper [tools/pgcluster]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TABLES=${TABLES:-8}
DURATION_S=${DURATION_S:-10}
WRK_CPU=${WRK_CPU:-$(($(nproc) - 1))}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}
START_TIMEOUT_S=30
STOP_TIMEOUT_S=15

tmp=""
daemon_pid=""

BENCH_NAME=lane
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        [[ -n $daemon_pid ]] && stop_pid "$daemon_pid" arbiterd "$STOP_TIMEOUT_S"
        bench_teardown "$status"
}

# The same INSERT as a refused input's (store/matches.c, the plain one),
# into match_inputs for the aborted matches REF_IDS (client n its own), by
# pgbench: "inputs/s" with CLIENTS clients.
pgbench_rate() {        # pgbench_rate CLIENTS
        cat >"$tmp/ref.sql" <<'EOF'
\set seq random(1000000, 2000000000)
\set m :ref_base + :client_id
INSERT INTO match_inputs (match_id, seq, match_time_us, seat, kind, input, state_hash, refusal, reaction_us, source, who, reason) VALUES (:m, :seq, 123456, NULL, 'confirm', '{}'::jsonb, 'abcdef0123456789', 'not possible now', NULL, 'referee', 'token 1 (bench-lane)', NULL) ON CONFLICT DO NOTHING;
EOF
        pgbench "$DSN" -n -c "$1" -j "$1" -T "$DURATION_S" -D ref_base="${REF_IDS[0]}" -f "$tmp/ref.sql" \
                >"$tmp/pgbench-$1.txt" 2>&1 ||
                { cat "$tmp/pgbench-$1.txt" >&2; die "pgbench failed"; }
        sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$tmp/pgbench-$1.txt" | head -n 1
}

main() {
        local build=${1:-build} i ids=() before after t0 t1 rate ref ref8 body cpu0 cpu1
        [[ $build == /* ]] || build=$ROOT/$build
        need wrk wrk
        need curl curl
        need jq jq
        need psql postgresql-client-15
        need pgbench postgresql-client-15
        need taskset util-linux
        need ss iproute2
        [[ -x $build/arbiterd ]] || die "$build/arbiterd not found: build it first (make build-tests)"
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-bench-lane.XXXXXX")
        chmod 0755 "$tmp"
        trap cleanup EXIT
        trap 'exit 130' INT TERM

        log "starting PostgreSQL and arbiterd in $tmp"
        pg_up
        PORT=$(free_port)
        local env=(ARBITER_DSN="$DSN" ARBITER_MIGRATIONS="$ROOT/migrations" ARBITER_BUS=none
                   ARBITER_LISTEN="127.0.0.1:$PORT" ARBITER_SPOOL="$tmp/spool" ARBITER_LOG_LEVEL=info)
        env "${env[@]}" "$build/arbiterd" >"$tmp/arbiterd.log" 2>&1 </dev/null &
        daemon_pid=$!
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null && break
                kill -0 "$daemon_pid" 2>/dev/null || die "arbiterd exited (log: $tmp/arbiterd.log)"
                sleep 0.1
        done
        TOKEN=$(env "${env[@]}" "$build/arbiterd" --create-token admin "bench-lane" 2>>"$tmp/token.log") ||
                die "arbiterd --create-token failed (log: $tmp/token.log)"
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                curl -fsS --max-time 1 "http://127.0.0.1:$PORT/v1/health" | jq -e '.tokens.loaded' >/dev/null && break
                sleep 0.1
        done

        for ((i = 0; i < TABLES; i++)); do
                ids+=("$(api POST /v1/matches '{"game": "crash-pilot", "players": ["A", "B", "C"]}' | jq -r .id)") ||
                        die "could not create a match"
                api POST "/v1/matches/${ids[i]}/start" >/dev/null || die "could not start match ${ids[i]}"
        done
        # the reference's matches: consecutive ids, aborted (never played)
        REF_IDS=()
        for ((i = 0; i < TABLES; i++)); do
                REF_IDS+=("$(api POST /v1/matches '{"game": "crash-pilot", "players": ["A", "B", "C"]}' | jq -r .id)") ||
                        die "could not create a match"
                api POST "/v1/matches/${REF_IDS[i]}/abort" >/dev/null || die "could not abort match ${REF_IDS[i]}"
                ((REF_IDS[i] == REF_IDS[0] + i)) || die "the reference's matches do not have consecutive ids"
        done
        # the input is refused and stored, answered 409 with its seq
        body=$(curl -sS --max-time 5 -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
                --data '{"kind": "confirm"}' "http://127.0.0.1:$PORT/v1/matches/${ids[0]}/inputs")
        jq -e '.seq and .refusal' <<<"$body" >/dev/null ||
                die "a confirm while running was not refused and stored as expected: $body"

        cat >"$tmp/lane.lua" <<'EOF'
-- one thread, one connection, one match each: a table's inputs one at a time
local ids, n = {}, 0
for id in string.gmatch(os.getenv("LANE_MATCHES"), "%d+") do ids[#ids + 1] = id end
function setup(thread)
        n = n + 1
        thread:set("match", ids[n])
end
function init(args)
        path = "/v1/matches/" .. match .. "/inputs"
        headers = { ["Authorization"] = "Bearer " .. os.getenv("LANE_TOKEN"),
                    ["Content-Type"] = "application/json" }
end
function request()
        return wrk.format("POST", path, headers, '{"kind": "confirm"}')
end
EOF
        log "$TABLES matches (${ids[*]}), one input at a time each, for $DURATION_S s"
        before=$(psql "$DSN" -X -qtA -c "SELECT count(*) FROM match_inputs")
        cpu0=$(awk '{ print $14 + $15 }' "/proc/$daemon_pid/stat")
        t0=$EPOCHREALTIME
        LANE_MATCHES="${ids[*]}" LANE_TOKEN=$TOKEN taskset -c "$WRK_CPU" \
                wrk -t"$TABLES" -c"$TABLES" -d"${DURATION_S}s" --latency -s "$tmp/lane.lua" \
                "http://127.0.0.1:$PORT" >"$tmp/wrk.txt" 2>&1 || { cat "$tmp/wrk.txt" >&2; die "wrk failed"; }
        t1=$EPOCHREALTIME
        cpu1=$(awk '{ print $14 + $15 }' "/proc/$daemon_pid/stat")
        after=$(psql "$DSN" -X -qtA -c "SELECT count(*) FROM match_inputs")
        rate=$(awk -v a="$after" -v b="$before" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.0f", (a - b) / (t1 - t0) }')
        log "reference: pgbench, 1 client, then $TABLES clients, $DURATION_S s each"
        ref=$(pgbench_rate 1)
        ref8=$(pgbench_rate "$TABLES")

        echo
        echo "Inputs stored per second, $TABLES tables pressing at once ($(nproc) CPUs; wrk -t$TABLES -c$TABLES pinned"
        echo "to CPU $WRK_CPU, arbiterd and PostgreSQL unpinned; each input answered once committed):"
        printf '  %-58s %10s\n' "arbiterd, input lane in pipeline mode (rows stored / s)" "$rate"
        printf '  %-58s %10s\n' "pgbench, same INSERT, 1 client (one round trip at a time)" "${ref%.*}"
        printf '  %-58s %10s\n' "pgbench, same INSERT, $TABLES clients (for information)" "${ref8%.*}"
        printf '  arbiterd CPU meanwhile: %s%% of one CPU (utime+stime)\n' \
                "$(awk -v a="$cpu1" -v b="$cpu0" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
                        'BEGIN { printf "%.0f", 100 * (a - b) / hz / (t1 - t0) }')"
        printf '  wrk: %s\n' "$(grep -E 'Requests/sec|Latency  ' "$tmp/wrk.txt" | tr -s ' ' | paste -sd';')"
        awk -v a="$rate" -v r="$ref" 'BEGIN { if (r > 0) printf "  ratio %.2f (goal >= 1)\n", a / r }'
        report_row "lane.inputs_per_s.tables8" \
                "inputs stored per second, $TABLES tables pressing at once (pipeline mode, each its own commit)" \
                "inputs/s" "$rate" "$ref" "pgbench INSERT+COMMIT, 1 client" ratio_min 1
}

main "$@"
