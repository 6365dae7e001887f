#!/usr/bin/env bash
# tests/bench/bench_e2e.sh [BUILD_DIR] — the end-to-end benchmark of issue 4
# (`make bench`): a pad's press → CallJudged on D-Bus and call_judged on SSE.
#
# Starts a throwaway PostgreSQL (tools/pgcluster), a private dbus-daemon,
# arbiter-padsim (three pads on a pty, --events, script on stdin) and
# arbiterd on that pty with a known [pads] settle_window, creates a table and
# Crash Pilot matches over REST, and plays ROUNDS rounds: read the face-up
# card (GET /v1/matches/{id}), press a legal row (or "doesn't fit") on one
# pad, wait for the verdict.  Pads take turns so that no seat presses within
# the judge's 250 ms cooldown; a finished match is followed by a new one.
#
# Measured per round, all on CLOCK_MONOTONIC µs (daemon, padsim and this
# script share the machine's clock):
#   press   padsim's PRESS record: host_us, the press's true time.  padsim
#           sends the frame at once (no transport delay configured), so this
#           is when the frame is written, give or take padsim's timer lag,
#           which counts against us (the record's sent_us says how much: the
#           lag is reported apart).
#   D-Bus   when `busctl --user monitor` printed the CallJudged signal
#   SSE     when `curl -N /v1/events` printed the call_judged event
# each arrival line stamped by bench_stamp as it is read.  Reported: p50/p99
# of arrival − press − settle window, for D-Bus and SSE; once idle and once
# while wrk loads the REST API with GET /v1/matches/{id} (the match being
# played: its row from the database and its view), wrk pinned to CPU
# $WRK_CPU with taskset, the rest unpinned.  Next to them, in the same run,
# the database's own floor: psql's INSERT+COMMIT of a judged call's input
# into match_inputs of the same cluster (for a match not played), one every
# 200 ms on a connection of its own, measured while the rounds run (ref_start).  The daemon's share is
# e2e p99 − settle window (both screens: the later of D-Bus and SSE per
# round) against that commit p99 — report rows e2e.daemon_share_p99_ms.idle
# (goal: at most 0.5 ms more) and .wrk (at most 1 ms more).  Benchmarks
# report, they do not assert: the exit status is non-zero only when the
# bench could not run.
#
# Environment (defaults in brackets):
#   ROUNDS     rounds per phase [200]          SETTLE_US   [pads] settle_window [2000]
#   WRK_ARGS   the load [-t1 -c16]             WRK_CPU     the CPU wrk is pinned to [last]
#   KEEP_LOGS  when 1, keep the directory
#   PGCLUSTER  the cluster helper [tools/pgcluster]
#   LOG_LEVEL  arbiterd's [debug]: at debug it logs how late each window was
#              decided and how long each input took to become durable, which
#              the breakdown below the figures reports

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROUNDS=${ROUNDS:-200}
SETTLE_US=${SETTLE_US:-2000}
WRK_ARGS=${WRK_ARGS:--t1 -c16}
WRK_CPU=${WRK_CPU:-$(($(nproc) - 1))}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}
LOG_LEVEL=${LOG_LEVEL:-debug}        # the breakdown reads arbiterd's debug lines

SHARE_IDLE_MS=0.5               # the daemon's share over the commit, idle (issue 15)
SHARE_WRK_MS=1                  # and while wrk loads the REST API
N_PADS=3
UID_BASE=0x7e00                 # padsim --uid-base: pads 0000000000007e00..02
PAUSE_MS=100                    # reveal.pause_ms: verdict → next card
ROUND_TIMEOUT_S=5
START_TIMEOUT_S=30
STOP_TIMEOUT_S=15

tmp=""
wrk_pid=""
ref_pid=""

BENCH_NAME=bench_e2e
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        exec 7>&-                       # padsim's script (its end does not stop padsim)
        [[ -n $wrk_pid ]] && stop_pid "$wrk_pid" wrk 5
        [[ -n $ref_pid ]] && { touch "$tmp/ref-stop"; stop_pid "$ref_pid" psql 5; }
        bench_teardown "$status"
}


# Lines in FILE matching PATTERN.
count() { grep -c -- "$2" "$1" 2>/dev/null || true; }

# Waits until FILE has more than N lines matching PATTERN; 1 on timeout.
wait_count() {  # wait_count FILE PATTERN N TIMEOUT_S
        local i
        for ((i = 0; i < $4 * 100; i++)); do
                (($(count "$1" "$2") > $3)) && return 0
                sleep 0.01
        done
        return 1
}

start_all() {   # start_all BUILD_DIR
        local build=$1 i
        log "starting PostgreSQL, dbus-daemon, padsim and arbiterd in $tmp"
        pg_up

        dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" 2>"$tmp/dbus.log" &
        started $! dbus-daemon
        for _ in $(seq 100); do [[ -S $tmp/bus ]] && break; sleep 0.05; done
        [[ -S $tmp/bus ]] || die "dbus-daemon did not start"
        export DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/bus"

        # padsim: script from a fifo held open on fd 7; stdout records stamped.
        mkfifo "$tmp/script"
        # (opened read-write first so that neither open waits for the other)
        exec 7<>"$tmp/script"
        "$build/arbiter-padsim" --pads "$N_PADS" --uid-base "$UID_BASE" --link "$tmp/pads" --events \
                --quiet --script - <"$tmp/script" 2>"$tmp/padsim.log" \
                > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/padsim.out") &
        started $! padsim       # bench_stamp ends with padsim's output
        for _ in $(seq 100); do [[ -L $tmp/pads ]] && break; sleep 0.05; done
        [[ -L $tmp/pads ]] || die "arbiter-padsim did not create its link (log: $tmp/padsim.log)"

        printf '[pads]\nsettle_window = %s\n' "$SETTLE_US" >"$tmp/arbiterd.conf"
        PORT=$(free_port)
        local env=(ARBITER_DSN="$DSN" ARBITER_MIGRATIONS="$ROOT/migrations" ARBITER_BUS=session
                   ARBITER_LISTEN="127.0.0.1:$PORT" ARBITER_SPOOL="$tmp/spool"
                   ARBITER_LOG_LEVEL="$LOG_LEVEL" ARBITER_PADS="$tmp/pads")
        env "${env[@]}" "$build/arbiterd" --config="$tmp/arbiterd.conf" >"$tmp/arbiterd.log" 2>&1 </dev/null &
        started $! arbiterd
        local daemon_pid=$!
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null && break
                kill -0 "$daemon_pid" 2>/dev/null || die "arbiterd exited (log: $tmp/arbiterd.log)"
                sleep 0.1
        done
        TOKEN=$(env "${env[@]}" ARBITER_BUS=none "$build/arbiterd" --create-token admin "bench-e2e" 2>>"$tmp/token.log") ||
                die "arbiterd --create-token failed (log: $tmp/token.log)"
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                api GET /v1/health | jq -e '.tokens.loaded' >/dev/null && break
                sleep 0.1
        done
        # every pad connected and its clock synced
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                (($(api GET /v1/pads | jq '[.items[] | select(.connected and .clock.synced)] | length')
                  >= N_PADS)) && break
                sleep 0.1
        done
        ((i < START_TIMEOUT_S * 10)) || die "the pads did not all connect and sync: $(api GET /v1/pads)"

        # the live streams, stamped on arrival
        stdbuf -oL busctl --user monitor --match "type='signal',member='CallJudged'" 2>"$tmp/busctl.log" \
                > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/dbus.out") &
        started $! busctl
        curl -sN -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/events" 2>"$tmp/curl.log" \
                > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/sse.out") &
        started $! curl
        sleep 0.5

        local seats
        seats=$(for ((i = 0; i < N_PADS; i++)); do
                        printf '{"seat": %d, "pad": "%016x"}' $((i + 1)) $((UID_BASE + i))
                done | jq -sc .)
        TABLE=$(api POST /v1/tables "{\"name\": \"bench-e2e\", \"seats\": $seats}" | jq -r .id) ||
                die "could not create the table"
}

new_match() {
        MATCH=$(api POST /v1/matches "{\"game\": \"crash-pilot\", \"table\": $TABLE,
                \"players\": [\"A\", \"B\", \"C\"], \"config\": {\"reveal\":
                {\"pause_ms\": $PAUSE_MS, \"timeout_ms\": 60000}}}" | jq -r .id) ||
                die "could not create a match"
        api POST "/v1/matches/$MATCH/start" >/dev/null || die "could not start match $MATCH"
        LAST_WINDOW=""
}

# Plays one round; appends "press_us dbus_us sse_us sent_us" to FILE, or nothing
# when the round did not yield exactly one verdict.
play_round() {  # play_round N FILE
        local n=$1 button pad
        cp_next_window
        button=$(cp_pick_button "$VIEW")
        pad=$((n % N_PADS))
        local np nd ns
        np=$(count "$tmp/padsim.out" ' PRESS ')
        nd=$(count "$tmp/dbus.out" 'Member=CallJudged')
        ns=$(count "$tmp/sse.out" 'event: call_judged')
        printf '{"pad": %d, "button": %d, "press": true, "hold_ms": 20}\n' "$pad" "$button" >&7
        # Arrival times are stamped by bench_stamp as the lines come in; the
        # script keeps its hands off the CPUs meanwhile (polling with grep
        # would compete with the daemon and the database it measures).
        sleep 0.05
        if ! wait_count "$tmp/sse.out" 'event: call_judged' "$ns" "$ROUND_TIMEOUT_S" ||
           ! wait_count "$tmp/dbus.out" 'Member=CallJudged' "$nd" "$ROUND_TIMEOUT_S" ||
           ! wait_count "$tmp/padsim.out" ' PRESS ' "$np" 1; then
                log "round $n: no verdict within $ROUND_TIMEOUT_S s; skipped"
                return 0
        fi
        local tp td ts tsent line
        line=$(grep ' PRESS ' "$tmp/padsim.out" | tail -n 1)
        tp=$(sed -n 's/.*host_us=\([0-9]*\).*/\1/p' <<<"$line")
        tsent=$(sed -n 's/.*sent_us=\([0-9]*\).*/\1/p' <<<"$line")
        td=$(grep 'Member=CallJudged' "$tmp/dbus.out" | tail -n 1 | cut -d' ' -f1)
        ts=$(grep 'event: call_judged' "$tmp/sse.out" | tail -n 1 | cut -d' ' -f1)
        echo "$tp $td $ts ${tsent:-$tp}" >>"$2"
}

# p50 and p99 in ms of (column − press − settle) over FILE; column "both"
# is the later of D-Bus and SSE, "lag" padsim's sent_us − host_us (no
# settle).
percentiles() { # percentiles FILE COLUMN
        awk -v c="$2" -v s="$SETTLE_US" '{
                if (c == "both") v = ($2 > $3 ? $2 : $3) - $1 - s
                else if (c == "lag") v = $4 - $1
                else v = $c - $1 - s
                print v / 1000 }' "$1" | sort -g |
                awk '{ v[NR] = $1 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }'
}

# The database's own floor, measured while the rounds run (so under the same
# load, and the same noise from anything else on the machine): psql, on a
# connection of its own, commits a judged call's INSERT — the same statement
# into match_inputs itself, foreign key to matches and all, for a match that
# is not played (REF_MATCH, aborted) — one every 200 ms (the pace of the
# rounds; the server idles in between).  psql's \timing is the client's
# round trip, commit included.
ref_start() {   # ref_start NAME
        rm -f "$tmp/ref-stop"
        {
                local i=0
                printf "%s\n" "\\timing on"
                while [[ ! -e $tmp/ref-stop ]]; do
                        sleep 0.2
                        i=$((i + 1))
                        echo "INSERT INTO match_inputs (match_id, seq, match_time_us, seat, kind, input, state_hash," \
                             "refusal, reaction_us, source, who, reason) VALUES ($REF_MATCH, $((REF_SEQ + i)), 123456, 2," \
                             "'call', '{\"call\":\"row 2\",\"seat\":2,\"window\":3,\"press_us\":123}'," \
                             "'abcdef0123456789', NULL, 4567, 'pad', 'pad 0000000000007e00', NULL) ON CONFLICT DO NOTHING;"
                done
        } | psql "$DSN" -X -q >"$tmp/ref-raw-$1.txt" 2>&1 &
        ref_pid=$!
        REF_SEQ=$((REF_SEQ + 1000000))
}

ref_stop() {    # ref_stop NAME → "p50 p99 n" in $tmp/ref-NAME.txt
        touch "$tmp/ref-stop"
        wait "$ref_pid" || true
        ref_pid=""
        sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$tmp/ref-raw-$1.txt" | sort -g |
                awk '{ v[NR] = $1 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }' >"$tmp/ref-$1.txt"
}

# Plays ROUNDS rounds with the database's floor measured meanwhile: "p50 p99
# n" of psql's INSERT+COMMIT in $tmp/ref-NAME.txt.
run_phase() {   # run_phase NAME
        local file=$tmp/rounds-$1.txt n from
        : >"$file"
        from=$(wc -l <"$tmp/arbiterd.log")
        curl -fsS --max-time 5 -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/status" |
                jq -c .loop >"$tmp/loop-$1-before.json" || echo '{}' >"$tmp/loop-$1-before.json"
        ref_start "$1"
        for ((n = 0; n < ROUNDS; n++)); do
                play_round "$n" "$file"
        done
        ref_stop "$1"
        curl -fsS --max-time 5 -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/status" |
                jq -c .loop >"$tmp/loop-$1-after.json" || echo '{}' >"$tmp/loop-$1-after.json"
        tail -n +"$((from + 1))" "$tmp/arbiterd.log" >"$tmp/arbiterd-$1.log"
        # each judged call's µs from made to durable: its input is the one
        # logged after its decision (the breakdown and own_share read it)
        awk '/ decided / { want = 1; next }
             / durable / { if (want) { sub(/.* durable /, ""); sub(/ .*/, ""); print } want = 0 }' \
                "$tmp/arbiterd-$1.log" >"$tmp/stored-$1.txt"
}

# p50 p99 n in ms of the numbers a sed expression pulls out of FILE's lines.
log_percentiles() { # log_percentiles FILE SED
        sed -n "$2" "$1" | sort -g |
                awk '{ v[NR] = $1 / 1000 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }'
}

# Where the time goes: how late after its decision time the judge ran (the
# loop's wake-up), and how long an input took to commit, from arbiterd's
# debug lines.  The reference, measured in the same run: the same INSERT
# committed by psql against the same cluster, one every 200 ms (the pace of
# the rounds), i.e. the database's own floor for a durable input.
breakdown() {
        local p50 p99 n phase
        echo
        echo "Breakdown (arbiterd's debug log), ms:"
        printf '%-6s %-34s %6s %9s %9s\n' load step n "p50 ms" "p99 ms"
        for phase in idle wrk; do
                [[ -s $tmp/arbiterd-$phase.log ]] || continue
                read -r p50 p99 n < <(log_percentiles "$tmp/arbiterd-$phase.log" \
                        's/.*polled \(-\{0,1\}[0-9]*\) µs after it.*/\1/p')
                printf '%-6s %-34s %6s %9s %9s\n' "$phase" "judge ran after its decision time" "$n" "$p50" "$p99"
                read -r p50 p99 n < <(log_percentiles "$tmp/stored-$phase.txt" 's/^\([0-9]*\)$/\1/p')
                printf '%-6s %-34s %6s %9s %9s\n' "$phase" "judged call stored (INSERT+COMMIT)" "$n" "$p50" "$p99"
                awk '/ decided / { want = 1; next }
                     / durable / { if (want && sub(/.* published in /, "")) { sub(/ .*/, ""); print } want = 0 }' \
                        "$tmp/arbiterd-$phase.log" >"$tmp/published-$phase.txt"
                read -r p50 p99 n < <(log_percentiles "$tmp/published-$phase.txt" 's/^\([0-9]*\)$/\1/p')
                printf '%-6s %-34s %6s %9s %9s\n' "$phase" "its events published (SSE, D-Bus)" "$n" "$p50" "$p99"
        done
        for phase in idle wrk; do
                read -r p50 p99 n <"$tmp/ref-$phase.txt"
                printf '%-6s %-34s %6s %9s %9s\n' "$phase" "psql INSERT+COMMIT meanwhile" "$n" "$p50" "$p99"
                read -r p50 p99 n < <(percentiles "$tmp/rounds-$phase.txt" lag)
                printf '%-6s %-34s %6s %9s %9s\n' "$phase" "padsim's timer lag (in e2e)" "$n" "$p50" "$p99"
        done
        # the loop's turns of 1 ms or more of CPU (/v1/status), per phase:
        # while a turn runs, a press, a judge's wake-up or a commit waits
        for phase in idle wrk; do
                jq -rn --slurpfile a "$tmp/loop-$phase-before.json" --slurpfile b "$tmp/loop-$phase-after.json" \
                        --arg p "$phase" '$a[0] as $a | $b[0] as $b |
                        "\($p)   loop: \($b.turns - $a.turns) turns, \($b.turns_over_ms["1"] - $a.turns_over_ms["1"]) of >= 1 ms CPU, \($b.turns_over_ms["5"] - $a.turns_over_ms["5"]) of >= 5 ms; longest since start \($b.longest_turn_ms) ms"' \
                        2>/dev/null || true
        done
}

# "p50 p99" in ms of each round's (later of D-Bus and SSE) − press − settle −
# its judged call's own commit (arbiterd's "durable N µs" line after the
# call's "decided" line), pairing rounds and lines in order; "- -" when their
# counts differ.
own_share() {   # own_share PHASE
        if [[ $(wc -l <"$tmp/stored-$1.txt") != "$(wc -l <"$tmp/rounds-$1.txt")" ]]; then
                echo "- -"
                return 0
        fi
        paste -d' ' "$tmp/rounds-$1.txt" "$tmp/stored-$1.txt" |
                awk -v s="$SETTLE_US" '{ e = ($2 > $3 ? $2 : $3) - $1 - s; print (e - $5) / 1000 }' | sort -g |
                awk '{ v[NR] = $1 } END {
                        if (NR == 0) { print "- -"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f\n", v[i50], v[i99] }'
}

# The figures of PHASE, printed and as report rows; the reference is the
# same phase's commit (psql INSERT+COMMIT, same cluster, same pace).
report_line() { # report_line PHASE SHARE_GOAL_MS
        local file=$tmp/rounds-$1.txt what p50 p99 n col id r50 r99 share load
        read -r r50 r99 _ <"$tmp/ref-$1.txt"
        [[ $1 == idle ]] && load="idle" || load="wrk $WRK_ARGS on GET /v1/matches/{id}, CPU $WRK_CPU"
        for col in 2 3 both; do
                case $col in 2) what=D-Bus id=dbus ;; 3) what=SSE id=sse ;; both) what=both id=both ;; esac
                read -r p50 p99 n < <(percentiles "$file" "$col")
                printf '%-6s %-6s %6s %9s %9s\n' "$1" "$what" "$n" "$p50" "$p99"
                [[ $col == both ]] && continue
                report_row "e2e.p50_ms.$1.$id" "judged call, pad press → $what − settle window, p50 ($load)" ms \
                        "$p50" "$r50" "psql INSERT+COMMIT p50" none
                report_row "e2e.p99_ms.$1.$id" "judged call, pad press → $what − settle window, p99 ($load)" ms \
                        "$p99" "$r99" "psql INSERT+COMMIT p99" none
        done
        read -r p50 p99 n < <(percentiles "$file" both)
        share=$(awk -v a="$p99" -v r="$r99" 'BEGIN { if (a == "-" || r == "-") print "-"; else printf "%.3f", a - r }')
        printf '%-6s daemon'"'"'s share: e2e p99 − settle %s ms − commit p99 %s ms = %s ms (goal <= %s ms)\n' \
                "$1" "$p99" "$r99" "$share" "$2"
        report_row "e2e.daemon_share_p99_ms.$1" \
                "judged call, pad press → D-Bus and SSE − settle window, p99, over the commit's p99 ($load)" ms \
                "$p99" "$r99" "psql INSERT+COMMIT p99" diff_max "$2"
        # The same share round by round: each round's own commit (the judged
        # call's INSERT on the lane, from made to committed, arbiterd's debug
        # line) taken from that round's e2e, so that a disk stall in one
        # round is not set against another's.  Only when every round has its
        # line (a skipped round or a tiebreaker would misalign them: "-").
        share=$(own_share "$1")
        printf '%-6s daemon'"'"'s share round by round: p50 %s ms, p99 %s ms (e2e − settle − that call'"'"'s own commit)\n' \
                "$1" "${share% *}" "${share#* }"
        report_row "e2e.daemon_share_own_commit_p99_ms.$1" \
                "judged call, pad press → D-Bus and SSE − settle window − that call's own commit, p99 over rounds ($load)" \
                ms "${share#* }" 0 "each round's own commit subtracted (arbiterd's log, same run)" diff_max "$2"
        read -r p50 p99 n < <(percentiles "$file" lag)
        report_row "e2e.padsim_lag_p99_ms.$1" "padsim's own timer lag (press time → frame written), p99, \
counted in the figures above ($load)" ms "$p99" "$(awk -v s="$SETTLE_US" 'BEGIN { print s / 1000 }')" \
                "the settle window" none
}

main() {
        local build=${1:-build}
        [[ $build == /* ]] || build=$ROOT/$build
        need wrk wrk
        need curl curl
        need jq jq
        need psql postgresql-client-15
        need busctl systemd
        need dbus-daemon dbus
        need ss iproute2
        need taskset util-linux
        for f in arbiterd arbiter-padsim tests/bench/bench_stamp; do
                [[ -x $build/$f ]] || die "$build/$f not found: build it first (make build-tests)"
        done
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-bench-e2e.XXXXXX")
        chmod 0755 "$tmp"
        trap cleanup EXIT
        trap 'exit 130' INT TERM

        start_all "$build"
        new_match
        REF_MATCH=$MATCH                # the reference's inserts go to a match that is not played
        api POST "/v1/matches/$REF_MATCH/abort" >/dev/null || die "could not abort match $REF_MATCH"
        REF_SEQ=1000000
        new_match
        log "$ROUNDS rounds idle"
        run_phase idle
        log "$ROUNDS rounds while wrk $WRK_ARGS (pinned to CPU $WRK_CPU) loads GET /v1/matches/$MATCH"
        # shellcheck disable=SC2086
        taskset -c "$WRK_CPU" wrk $WRK_ARGS --latency -d600s "http://127.0.0.1:$PORT/v1/matches/$MATCH" \
                >"$tmp/wrk.txt" 2>&1 &
        wrk_pid=$!
        sleep 1
        run_phase wrk
        kill -INT "$wrk_pid" 2>/dev/null || true       # wrk prints its report on SIGINT
        for _ in $(seq 50); do kill -0 "$wrk_pid" 2>/dev/null || break; sleep 0.1; done
        stop_pid "$wrk_pid" wrk 5
        wrk_pid=""

        echo
        echo "End to end: pad press (padsim PRESS host_us) → CallJudged (busctl monitor) / call_judged (SSE)"
        echo "minus the settle window ($SETTLE_US µs), ms; $(nproc) CPUs; wrk $WRK_ARGS on GET /v1/matches/{id}"
        echo "pinned to CPU $WRK_CPU (taskset), arbiterd, PostgreSQL, padsim unpinned;" \
             "wrk: $(parse_wrk "$tmp/wrk.txt" 2>/dev/null | awk '{ printf "%s req/s, p99 %s ms", $1, $3 }')"
        printf '%-6s %-6s %6s %9s %9s\n' load path rounds "p50 ms" "p99 ms"
        report_line idle "$SHARE_IDLE_MS"
        report_line wrk "$SHARE_WRK_MS"
        breakdown
}

main "$@"
