#!/usr/bin/env bash
# tests/bench/league.sh [BUILD_DIR] — a league across three venues on one
# PostgreSQL and a streaming replica (issue 17, `make bench`): results
# recorded per second, how long a result takes to reach another venue's
# stream next to its own venue's, the replica's lag meanwhile, and what each
# venue costs the primary.
#
# Starts a throwaway primary (tools/pgcluster, with pg_stat_statements
# loaded) and a streaming replica of it (tools/pgcluster DIR replica), then
# three daemons of the test build (north, south, east: their own ports and
# spools, [venue] id, ARBITER_BUS=none, the replica as replica_dsn), one at
# a time, counting the sessions each opens on the primary and on the
# replica.  Then tests/bench/league_drive.c plays a Swiss tournament of
# Reflex (first to one point: a referee's award finishes a match) with
# TABLES_PER_VENUE tables at each venue and PLAYERS players over ROUNDS
# rounds: each round paired at north, every table's matches called,
# started and won at the table's own venue, as fast as the answers come;
# it reads every venue's tournament stream meanwhile.  Then each table
# plays a long match of its own, INPUTS_PER_TABLE referee inputs, for what
# a venue costs per input while it plays (league_drive.c says what it
# measures and how).
#
# Figures (report rows league.*):
#   results/s         stage matches finished ÷ the play's time (pairings
#                     included), all three venues together
#   cross-venue       result_recorded on another venue's stream − the
#                     finishing award's answer, p50 and p99, next to the same
#                     event on the stream of the venue that ran the match
#                     (single venue), same run; goal: at most 1 s more (the
#                     issue's "within a second")
#   replica lag       the daemons' probe (/v1/status database.replica.lag_ms)
#                     and the primary's pg_stat_replication replay_lag,
#                     sampled every 200 ms during play: p50, p99, max
# and, printed for docs/scaling.md: statements per second the clients sent
# (pg_stat_statements), writing transactions per second, WAL bytes, NOTIFYs
# and statements per result and per input, the CPU per result of the
# daemons and of the primary, sessions per daemon on the primary and on
# the replica, and the ceilings that load is set against (pgbench on the
# same clusters after the play): commits per second with and without a
# NOTIFY, and reads per second of the tournament's standings on the
# replica.  The load is the same at each venue (the same number of
# tables, each match played at its own venue; north also pairs the rounds),
# so a venue's share is a third.
#
# Environment (defaults in brackets):
#   TABLES_PER_VENUE [4]  PLAYERS [96]  ROUNDS [10]  INPUTS_PER_TABLE [400]
#   KEEP_LOGS [0]
#   PGCLUSTER the cluster helper [tools/pgcluster]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TABLES_PER_VENUE=${TABLES_PER_VENUE:-4}
PLAYERS=${PLAYERS:-96}
ROUNDS=${ROUNDS:-10}
INPUTS_PER_TABLE=${INPUTS_PER_TABLE:-400}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}
START_TIMEOUT_S=30
STOP_TIMEOUT_S=15
# The issue's bound: a result at one venue shows at another within a second.
CROSS_VENUE_MAX_EXTRA_MS=1000
# The ceilings' pgbench runs: as many clients as a busy primary's sessions
# that write at once, long enough to settle.
CEILING_CLIENTS=8
CEILING_S=5
VENUES=(north south east)

tmp=""
replica_started=0

BENCH_NAME=league
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        if [[ $replica_started == 1 ]]; then
                "$PGCLUSTER" "$tmp/replica" stop >/dev/null 2>&1 || log "tools/pgcluster stop (replica) failed"
        fi
        bench_teardown "$status"
}

# Sessions of daemons (application names arbiterd…) on the server at DSN.
sessions() {    # sessions DSN
        psql "$1" -X -qtA -c "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'arbiterd%'"
}

# Waits until the daemon on PORT says its database is ready and its tokens
# are loaded.
wait_ready() {  # wait_ready PORT NAME
        local i
        for ((i = 0; i < START_TIMEOUT_S * 20; i++)); do
                if curl -fsS --max-time 2 "http://127.0.0.1:$1/v1/status" 2>/dev/null |
                   jq -e '.database.state == "ready" and .tokens.loaded' >/dev/null 2>&1; then
                        return 0
                fi
                sleep 0.05
        done
        die "$2 did not become ready (log: $tmp/$2.log)"
}

# Transactions per second of pgbench running FILE on DSN.
ceiling() {     # ceiling DSN FILE
        pgbench "$1" -n -c "$CEILING_CLIENTS" -j 2 -T "$CEILING_S" -f "$2" 2>>"$tmp/pgbench.log" |
                awk '/^tps/ { printf "%.0f", $3 }'
}

main() {
        local build=${1:-build} v i port ports=() before_p before_r conn_p=() conn_r=() out daemon_pids=()
        [[ $build == /* ]] || build=$ROOT/$build
        need curl curl
        need jq jq
        need psql postgresql-client-15
        need pgbench postgresql-client-15
        local daemon=$build/tests/arbiterd-test drive=$build/tests/bench/league_drive
        [[ -x $daemon && -x $drive ]] || die "$daemon or $drive missing: run make bench"

        tmp=$(mktemp -d /tmp/arbiter-bench-league.XXXXXX)
        chmod 0755 "$tmp"               # the postgres user passes through it
        trap cleanup EXIT
        log "starting a primary and a streaming replica in $tmp"
        "$PGCLUSTER" "$tmp/pg" init >"$tmp/pg-init.log" 2>&1 ||
                { cat "$tmp/pg-init.log" >&2; die "tools/pgcluster init failed"; }
        pg_started=1
        echo "shared_preload_libraries = 'pg_stat_statements'" >>"$tmp/pg/data/postgresql.conf"
        "$PGCLUSTER" "$tmp/pg" start >"$tmp/pg-start.log" 2>&1 ||
                { cat "$tmp/pg-start.log" >&2; die "tools/pgcluster start failed"; }
        DSN=$("$PGCLUSTER" "$tmp/pg" dsn)
        psql "$DSN" -X -q -c "CREATE EXTENSION pg_stat_statements" >/dev/null
        "$PGCLUSTER" "$tmp/replica" replica "$tmp/pg" >"$tmp/replica.log" 2>&1 ||
                { cat "$tmp/replica.log" >&2; die "tools/pgcluster replica failed"; }
        replica_started=1
        "$PGCLUSTER" "$tmp/replica" start >>"$tmp/replica.log" 2>&1 ||
                { cat "$tmp/replica.log" >&2; die "the replica did not start"; }
        local replica_dsn
        replica_dsn=$("$PGCLUSTER" "$tmp/replica" dsn)

        local admin referee
        admin=$(ARBITER_DSN=$DSN ARBITER_MIGRATIONS=$ROOT/migrations ARBITER_BUS=none \
                "$daemon" --create-token admin bench-admin 2>>"$tmp/tokens.log") || die "no admin token"
        referee=$(ARBITER_DSN=$DSN ARBITER_MIGRATIONS=$ROOT/migrations ARBITER_BUS=none \
                "$daemon" --create-token referee bench-referee 2>>"$tmp/tokens.log") || die "no referee token"

        for v in "${VENUES[@]}"; do
                port=$(free_port)
                before_p=$(sessions "$DSN")
                before_r=$(sessions "$replica_dsn")
                ARBITER_DSN=$DSN ARBITER_REPLICA_DSN=$replica_dsn ARBITER_VENUE=$v ARBITER_BUS=none \
                        ARBITER_LISTEN=127.0.0.1:$port ARBITER_SPOOL=$tmp/spool-$v \
                        ARBITER_MIGRATIONS=$ROOT/migrations ARBITER_LOG_LEVEL=info \
                        "$daemon" >"$tmp/$v.log" 2>&1 &
                started $! "arbiterd $v"
                daemon_pids+=($!)
                wait_ready "$port" "$v"
                # the read replica's connection comes with its first probe
                for ((i = 0; i < START_TIMEOUT_S * 20; i++)); do
                        (($(sessions "$replica_dsn") > before_r)) && break
                        sleep 0.05
                done
                conn_p+=($(($(sessions "$DSN") - before_p)))
                conn_r+=($(($(sessions "$replica_dsn") - before_r)))
                ports+=("$port")
        done
        log "daemons up: ${VENUES[*]} on ports ${ports[*]}; playing $ROUNDS rounds of $PLAYERS players" \
            "at $TABLES_PER_VENUE tables a venue"

        out=$tmp/drive.out
        "$drive" --ports "$(IFS=,; echo "${ports[*]}")" --admin "$admin" --referee "$referee" --dsn "$DSN" \
                --tables-per-venue "$TABLES_PER_VENUE" --players "$PLAYERS" --rounds "$ROUNDS" \
                --inputs-per-table "$INPUTS_PER_TABLE" \
                --pids "$(IFS=,; echo "${daemon_pids[*]}"),$(head -n 1 "$tmp/pg/data/postmaster.pid")" \
                --samples "$tmp/samples.txt" >"$out" 2>"$tmp/drive.log" ||
                { cat "$tmp/drive.log" >&2; die "league_drive failed"; }
        val() { awk -v k="$1" '$1 == k { print $2 }' "$out"; }
        local per_venue_stmt per_venue_xact
        per_venue_stmt=$(awk -v s="$(val statements_per_s)" 'BEGIN { printf "%.1f", s / 3 }')
        per_venue_xact=$(awk -v s="$(val write_xacts_per_s)" 'BEGIN { printf "%.1f", s / 3 }')

        echo
        echo "A league of three venues on one primary and a streaming replica ($(nproc) CPUs, everything on"
        echo "this machine): $(val results) results in $(val seconds) s, $TABLES_PER_VENUE tables a venue,"
        echo "each match called, started and won at its own venue as fast as the answers came."
        printf '  %-62s %10s\n' "results recorded per second, three venues" "$(val results_per_s)"
        printf '  %-62s %10s %10s\n' "result_recorded after the finishing input's answer (ms)" p50 p99
        printf '  %-62s %10s %10s\n' "  on the stream of the venue that ran it ($(val own_n))" \
                "$(val own_p50_ms)" "$(val own_p99_ms)"
        printf '  %-62s %10s %10s\n' "  on another venue's stream ($(val cross_n))" \
                "$(val cross_p50_ms)" "$(val cross_p99_ms)"
        printf '  %-62s %10s %10s %10s\n' "replica lag under that load (ms)" p50 p99 max
        printf '  %-62s %10s %10s %10s\n' "  the daemons' probe, /v1/status ($(val probe_lag_n) samples)" \
                "$(val probe_lag_p50_ms)" "$(val probe_lag_p99_ms)" "$(val probe_lag_max_ms)"
        printf '  %-62s %10s %10s %10s\n' "  pg_stat_replication replay_lag ($(val replay_lag_n) samples)" \
                "$(val replay_lag_p50_ms)" "$(val replay_lag_p99_ms)" "$(val replay_lag_max_ms)"
        echo "The primary's load over the play (a venue's share is a third: see the header):"
        printf '  %-62s %10s  (a venue: %s)\n' "statements the daemons sent per second" \
                "$(val statements_per_s)" "$per_venue_stmt"
        printf '  %-62s %10s  (a venue: %s)\n' "writing transactions per second" "$(val write_xacts_per_s)" \
                "$per_venue_xact"
        printf '  %-62s %10s\n' "statements per result" "$(val statements_per_result)"
        printf '  %-62s %10s\n' "writing transactions per result" "$(val write_xacts_per_result)"
        printf '  %-62s %10s\n' "WAL bytes per result" "$(val wal_bytes_per_result)"
        printf '  %-62s %10s\n' "NOTIFYs delivered to a listener per result" "$(val notifies_per_result)"
        printf '  %-62s %10s\n' "CPU ms per result, the three daemons together" "$(val daemons_cpu_ms_per_result)"
        printf '  %-62s %10s\n' "CPU ms per result, the primary (postmaster and sessions)" \
                "$(val primary_cpu_ms_per_result)"
        if [[ -n $(val inputs) ]]; then
                echo "Long matches apart: $(val inputs) inputs stored in $(val input_seconds) s," \
                     "$TABLES_PER_VENUE tables a venue, a referee's inputs as fast as the answers came:"
                printf '  %-62s %10s\n' "inputs stored per second, three venues" "$(val inputs_per_s)"
                printf '  %-62s %10s\n' "statements per input" "$(val input_statements_per_input)"
                printf '  %-62s %10s\n' "writing transactions per input" "$(val input_write_xacts_per_input)"
                printf '  %-62s %10s\n' "WAL bytes per input" "$(val input_wal_bytes_per_input)"
                printf '  %-62s %10s\n' "NOTIFYs delivered to a listener per input" "$(val input_notifies_per_input)"
                printf '  %-62s %10s\n' "CPU ms per input, the three daemons together" \
                        "$(val input_daemons_cpu_ms_per_input)"
                printf '  %-62s %10s\n' "CPU ms per input, the primary (postmaster and sessions)" \
                        "$(val input_primary_cpu_ms_per_input)"
        fi
        echo "Sessions:"
        printf '  %-62s %10s\n' "sessions per daemon on the primary (${VENUES[*]})" "${conn_p[*]}"
        printf '  %-62s %10s\n' "sessions per daemon on the replica" "${conn_r[*]}"
        [[ $(val unseen) == 0 ]] || log "$(val unseen) results never reached a stream (see $tmp/drive.log)"

        # The ceilings the arithmetic of docs/scaling.md compares the load
        # with, measured on the same clusters after the play: commits per
        # second with and without a NOTIFY (a notifying commit takes
        # PostgreSQL's one notify lock: they queue behind each other, all
        # databases of the cluster together), and reads per second of the
        # played tournament's standings document on the replica.
        log "measuring the primary's and the replica's ceilings (pgbench, $CEILING_CLIENTS clients,"             "$CEILING_S s each)"
        psql "$DSN" -X -q -c "CREATE TABLE bench_ceiling (id bigserial PRIMARY KEY, v int)" >/dev/null
        printf 'INSERT INTO bench_ceiling (v) VALUES (1);\n' >"$tmp/commit.sql"
        printf 'BEGIN;\nINSERT INTO bench_ceiling (v) VALUES (1);\nSELECT pg_notify(%s, %s);\nCOMMIT;\n' \
                "'bench_ceiling'" "'1'" >"$tmp/notify.sql"
        printf 'SELECT standings FROM stages WHERE standings IS NOT NULL ORDER BY id DESC LIMIT 1;\n' \
                >"$tmp/standings.sql"
        local commits notifies reads doc
        commits=$(ceiling "$DSN" "$tmp/commit.sql")
        notifies=$(ceiling "$DSN" "$tmp/notify.sql")
        doc=$(psql "$replica_dsn" -X -A -t -c "SELECT length(standings::text) FROM stages
                                               WHERE standings IS NOT NULL ORDER BY id DESC LIMIT 1")
        reads=$(ceiling "$replica_dsn" "$tmp/standings.sql")
        echo "Ceilings on this machine (pgbench, $CEILING_CLIENTS clients, after the play, the daemons idle):"
        printf '  %-62s %10s\n' "commits per second on the primary, plain" "$commits"
        printf '  %-62s %10s\n' "commits per second on the primary, each with a NOTIFY" "$notifies"
        printf '  %-62s %10s\n' "reads per second on the replica, a standings document ($doc B)" "$reads"

        report_row "league.results_per_s" "results recorded per second across three venues (one primary)" \
                "results/s" "$(val results_per_s)" - "-" none
        report_row "league.cross_venue_p50_ms" \
                "result_recorded on another venue's stream after the finishing input's answer, p50" \
                ms "$(val cross_p50_ms)" "$(val own_p50_ms)" "the same event on its own venue's stream" \
                diff_max "$CROSS_VENUE_MAX_EXTRA_MS"
        report_row "league.cross_venue_p99_ms" \
                "result_recorded on another venue's stream after the finishing input's answer, p99" \
                ms "$(val cross_p99_ms)" "$(val own_p99_ms)" "the same event on its own venue's stream" \
                diff_max "$CROSS_VENUE_MAX_EXTRA_MS"
        report_row "league.replica_lag_p99_ms" "the replica's lag under that load, the daemons' probe, p99" \
                ms "$(val probe_lag_p99_ms)" "$(val replay_lag_p99_ms)" "pg_stat_replication replay_lag p99" none
        report_row "league.replica_lag_max_ms" "the replica's lag under that load, the daemons' probe, max" \
                ms "$(val probe_lag_max_ms)" "$(val replay_lag_max_ms)" "pg_stat_replication replay_lag max" none
}

main "$@"
