#!/usr/bin/env bash
# tests/bench/ratings.sh [BUILD_DIR] — ratings at a million results (issue
# 12; `make bench`; docs/ratings.md, "Performance").
#
#   1. A throwaway PostgreSQL holding RESULTS results of crash-pilot (2 to 4
#      seats, a finishing order each) between PLAYERS players, inserted with
#      generate_series into the real tables: finished tournaments of 1,000
#      results each made in SQL (a club's years), whose stages the daemon
#      never reads.
#   2. Before: the code that ran before issue 12 (a recompute of the game on
#      the loop thread after every result), timed on those results
#      (bench_ratings_live before).
#   3. After: arbiterd on them.  Its first start computes the game's table
#      (the worker, off the loop).  Then a tournament through the API: two
#      of those players (with their history) in a round robin; its one
#      result is recorded, and the time until the player's rating shows it
#      is measured with the loop's longest stall meanwhile (GET /v1/health
#      every millisecond, next to the idle floor); then POST .../recompute:
#      a full recompute's time, off the loop, with the stall meanwhile.
#
# Targets (issue 12): a stall under 5 ms while a result is rated, a full
# recompute of a million results under 10 s.  Benchmarks report, they do not
# assert: the exit status is non-zero only when the bench could not run.
#
# Rows of `make bench`'s report (report_row, tests/bench/lib.sh), from the
# lines bench_ratings_live prints:
#   ratings_live.stall_ms.result     the longest GET /v1/health answer while
#   ratings_live.stall_ms.recompute  a result is rated / during a full
#       recompute, against the longest idle answer: at most 5 ms more
#       (issue 12's stall bound, on top of the idle floor);
#   ratings_live.visible_ms.result   the new result's rating visible after,
#       against the old code's loop stall for the same results alone (its
#       query and write not counted): ratio at most 1;
#   ratings_live.recompute_s  a full recompute by the worker (read, rate,
#       write) against the old code's query and loop work (without its
#       write): ratio at most 1.  Both: the code that replaced it must not be
#       slower than the part of the old code that it replaced.
#
# Environment (defaults in brackets):
#   RESULTS [1000000]   PLAYERS [5000]   KEEP_LOGS [0]: 1 keeps the directory
#   BENCH_BEFORE_WRITE [1]: 0 skips timing the old write (it is skipped anyway
#   when the old query fails, as it does at 10^6: bench_ratings_live.c)
#   PGCLUSTER [tools/pgcluster]

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
RESULTS=${RESULTS:-1000000}
PLAYERS=${PLAYERS:-5000}
KEEP_LOGS=${KEEP_LOGS:-0}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
START_TIMEOUT_S=60
STOP_TIMEOUT_S=15
# The worker's first computation of the game, at start: minutes would mean
# something is wrong.
FIRST_TABLE_TIMEOUT_S=600
IDLE_MS=3000

BENCH_NAME=bench_ratings
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need jq jq
need curl curl
need psql postgresql-client

tmp=$(mktemp -d /tmp/arbiter-bench-ratings.XXXXXX)
chmod 0755 "$tmp"
daemon_pid=""
pg_started=0

cleanup() {
        local status=$?
        [[ -n $daemon_pid ]] && stop_pid "$daemon_pid" arbiterd "$STOP_TIMEOUT_S"
        if [[ $pg_started == 1 ]]; then
                "$PGCLUSTER" "$tmp/pg" stop >/dev/null 2>&1 || log "tools/pgcluster stop failed"
        fi
        if [[ $KEEP_LOGS == 1 || $status != 0 ]]; then
                log "logs kept in $tmp"
        else
                rm -rf "$tmp"
        fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

live="$ROOT/$BUILD/tests/bench/bench_ratings_live"
[[ -x $live ]] || die "$live is not built (make bench builds it)"

api() {         # api METHOD PATH [JSON] → body on stdout
        local url="http://127.0.0.1:$PORT$2"
        if [[ $1 == GET ]]; then
                curl -fsS --max-time 30 -H "Authorization: Bearer $TOKEN" "$url"
        else
                curl -fsS --max-time 30 -X "$1" -H "Authorization: Bearer $TOKEN" \
                        -H 'Content-Type: application/json' --data "${3:-{\}}" "$url"
        fi
}

log "a PostgreSQL cluster in $tmp"
"$PGCLUSTER" "$tmp/pg" init >"$tmp/pg-init.log" 2>&1 || { cat "$tmp/pg-init.log" >&2; die "tools/pgcluster init failed"; }
pg_started=1
"$PGCLUSTER" "$tmp/pg" start >"$tmp/pg-start.log" 2>&1 || { cat "$tmp/pg-start.log" >&2; die "tools/pgcluster start failed"; }
DSN=$("$PGCLUSTER" "$tmp/pg" dsn)
PORT=$(free_port)
env=(ARBITER_DSN="$DSN" ARBITER_MIGRATIONS="$ROOT/migrations" ARBITER_BUS=none
     ARBITER_LISTEN="127.0.0.1:$PORT" ARBITER_SPOOL="$tmp/spool" ARBITER_LOG_LEVEL=info)
env "${env[@]}" "$ROOT/$BUILD/arbiterd" --migrate-only >"$tmp/migrate.log" 2>&1 || die "migrations failed (log: $tmp/migrate.log)"

log "$RESULTS results between $PLAYERS players (generate_series; a minute or two)"
SECONDS=0
psql -X -q -v ON_ERROR_STOP=1 -d "$DSN" >"$tmp/insert.log" 2>&1 <<SQL || die "inserting the results failed (log: $tmp/insert.log)"
INSERT INTO players (name) SELECT 'player ' || g FROM generate_series(1, $PLAYERS) g;
INSERT INTO tournaments (name, game, seed, state, created_by, competitive, secrets)
SELECT 'history ' || g, 'crash-pilot', g, 'finished', 'bench', false, ARRAY['\\x00'::bytea]
FROM generate_series(1, ($RESULTS + 999) / 1000) g;
INSERT INTO stages (tournament_id, number, format, config, state)
SELECT id, 1, 'swiss', '{}', 'finished' FROM tournaments ORDER BY id;
-- table g: 2 to 4 seats, players (7919 g + 1237 k) mod P + 1 (distinct for k < 4),
-- seat k finishing ((g + k) mod n) + 1, one a second from 2020-01-01,
-- a thousand to a tournament
INSERT INTO stage_matches (stage_id, round, table_no, participants, state, result, recorded_at, recorded_by)
SELECT g / 1000 + 1, g % 1000 / 10 + 1, g % 10 + 1, p.ids, 'done',
       (SELECT jsonb_agg(jsonb_build_object('player', pid, 'rank', ((g + o) % (2 + g % 3)) + 1, 'score', 0,
                                            'forfeit', false) ORDER BY o)
          FROM unnest(p.ids) WITH ORDINALITY u(pid, o)),
       timestamptz '2020-01-01 00:00:00+00' + g * interval '1 second', 'bench'
FROM generate_series(0, $RESULTS - 1) g,
LATERAL (SELECT array(SELECT ((g::bigint * 7919 + k * 1237) % $PLAYERS) + 1
                      FROM generate_series(0, 1 + g % 3) k) AS ids) p;
ANALYZE;
SQL
echo "inserted in $SECONDS s"

echo "-- before issue 12"
"$live" before "$DSN" crash-pilot | tee "$tmp/before.txt"

echo "-- after issue 12"
env "${env[@]}" "$ROOT/$BUILD/arbiterd" >"$tmp/arbiterd.log" 2>&1 </dev/null &
daemon_pid=$!
for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
        curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null && break
        kill -0 "$daemon_pid" 2>/dev/null || die "arbiterd exited (log: $tmp/arbiterd.log)"
        sleep 0.1
done
TOKEN=$(env "${env[@]}" "$ROOT/$BUILD/arbiterd" --create-token admin bench-ratings 2>>"$tmp/token.log") ||
        die "arbiterd --create-token failed (log: $tmp/token.log)"
for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
        api GET /v1/health | jq -e '.tokens.loaded' >/dev/null && break
        sleep 0.1
done
# its first start computes the game's table from the results
for ((i = 0; i < FIRST_TABLE_TIMEOUT_S * 10; i++)); do
        st=$(api GET /v1/status)
        jq -e '.ratings.recomputes >= 1 and (.ratings.busy | not)' >/dev/null <<<"$st" && break
        sleep 0.1
done
((i < FIRST_TABLE_TIMEOUT_S * 10)) || die "the first table was not computed in $FIRST_TABLE_TIMEOUT_S s (log: $tmp/arbiterd.log)"
jq -r '.ratings.last_recompute | "the first start computed the table of \(.results) results in \(.seconds * 100 | round / 100) s, off the loop"' <<<"$st"

# a tournament through the API: players 1 and 2 in a round robin
T=$(api POST /v1/tournaments '{"name": "bench", "game": "crash-pilot", "seed": 1, "competitive": false}' | jq -r .id)
api POST "/v1/tournaments/$T/state" '{"state": "registration"}' >/dev/null
for p in 1 2; do api POST "/v1/tournaments/$T/registrations" "{\"player\": $p}" >/dev/null; done
api POST "/v1/tournaments/$T/stages" '{"format": "round_robin"}' >/dev/null
api POST "/v1/tournaments/$T/state" '{"state": "check_in"}' >/dev/null
for p in 1 2; do api POST "/v1/tournaments/$T/registrations/$p/check-in" >/dev/null; done
api POST "/v1/tournaments/$T/state" '{"state": "running"}' >/dev/null
M=$(api POST "/v1/tournaments/$T/rounds" | jq -r '.matches[0].id')
[[ $M =~ ^[0-9]+$ ]] || die "no match to record a result for"

"$live" idle "$PORT" "$IDLE_MS" | tee "$tmp/idle.txt"
"$live" result "$PORT" "$TOKEN" "$T" "$M" 1 \
        '{"results": [{"player": 1, "rank": 1}, {"player": 2, "rank": 2}]}' | tee "$tmp/result.txt"
"$live" recompute "$PORT" "$TOKEN" "$T" | tee "$tmp/recompute.txt"
echo "targets (issue 12): a stall under 5 ms while a result is rated; a full recompute of 1,000,000 results under 10 s"

# the rows, from the lines above ("-" when a line is missing)
longest() { sed -n 's/.*GET \/v1\/health .*longest \([0-9.]*\) ms (.*/\1/p' "$1" | tail -n 1; }
idle_longest=$(longest "$tmp/idle.txt")
old_loop_s=$(sed -n 's/.*= a stall of \([0-9.]*\) s$/\1/p' "$tmp/before.txt")
old_query_s=$(sed -n 's/^ *the query (one JSON document of .*): \([0-9.]*\) s, off the loop$/\1/p' "$tmp/before.txt")
visible_ms=$(sed -n 's/.*its rating visible after \([0-9.]*\) ms.*/\1/p' "$tmp/result.txt")
recompute_s=$(sed -n 's/.* done in \([0-9.]*\) s, the worker.*/\1/p' "$tmp/recompute.txt")
old_ms=$(awk -v l="${old_loop_s:--}" 'BEGIN { if (l == "-") print "-"; else printf "%.1f", l * 1000 }')
old_read_loop_s=$(awk -v q="${old_query_s:--}" -v l="${old_loop_s:--}" \
        'BEGIN { if (q == "-" || l == "-") print "-"; else printf "%.2f", q + l }')
report_row ratings_live.stall_ms.result "a new result rated at $RESULTS results: GET /v1/health's longest answer meanwhile" \
        ms "$(longest "$tmp/result.txt")" "$idle_longest" "idle daemon, same run" diff_max 5
report_row ratings_live.stall_ms.recompute "a full recompute of $RESULTS results: GET /v1/health's longest answer meanwhile" \
        ms "$(longest "$tmp/recompute.txt")" "$idle_longest" "idle daemon, same run" diff_max 5
report_row ratings_live.visible_ms.result "a new result's rating visible, at $RESULTS results" ms "$visible_ms" "$old_ms" \
        "the code before issue 12: its loop stall alone" ratio_max 1
report_row ratings_live.recompute_s "a full recompute of $RESULTS results by the worker (read, rate, write)" s \
        "$recompute_s" "$old_read_loop_s" "the code before issue 12: query + loop, no write" ratio_max 1
grep -E "warning: .*(rating|season)" "$tmp/arbiterd.log" | head -5 || true
