#!/usr/bin/env bash
# tests/bench/avr.sh [BUILD_DIR] — the reference firmware on emulated pads
# next to arbiter-padsim, in one run of one arbiterd (`make bench`, issue 16).
#
# Starts a throwaway PostgreSQL (tools/pgcluster), arbiter-padsim (two pads
# on a pty, crystals +30 and −40 ppm, --events) and two emulated pads
# (tests/avr/avrpad: the firmware's machine code on an emulated ATmega328P,
# one pad a pty, crystals +30 and −40 ppm, each byte reaching the pty at the
# end of its stop bit).  Then, for each kind of pad, arbiterd on its ptys
# with [pads] baud = 1000000 (the firmware's speed) — for the emulated pads
# with pty_wire_time = yes, so that their line's air time is counted as a
# real one's; padsim writes a frame at once and takes none — and:
#
# Ordering.  PAIRS pairs of presses, one on each pad of the kind, GAPS µs
# apart (cycling; the first pad alternates), 100 ms between pairs.  The
# truth is each press's injected time as the simulator printed it
# (padsim's PRESS host_us, avrpad's "pressed host_us"), the same
# CLOCK_MONOTONIC arbiterd reports in; the claim is the press in
# GET /v1/presses: time_us ± uncertainty_us.  A pair is
#   right  when the claims do not overlap and are in the true order,
#   a tie  when they overlap (the judge calls that a tie: docs/judge.md),
#   wrong  when they do not overlap and are in the wrong order;
# and each press is "within" when |time_us − truth| ≤ uncertainty_us.
#
# Press to judged.  ROUNDS rounds of a two-player Crash Pilot match at a
# table of those pads: read the face-up card, press a legal row on one pad
# (the pads take turns), and stamp the call_judged event on
# GET /v1/events as it arrives (bench_stamp).  The figure is arrival −
# the press's true time − the settle window, p50 and p99, in ms.
#
# Rows (report_row, tests/bench/lib.sh), the emulated firmware against
# arbiter-padsim in the same run:
#   avr.ordering.wrong_pct     pairs in the wrong order: diff_max 0 (a pad's
#       clock model may call a tie, never the wrong order)
#   avr.ordering.right_pct     pairs ordered: information (an emulated pad's
#       uncertainty is its real UART's and timer's, wider than padsim's)
#   avr.ordering.tie_pct       information
#   avr.within_pct             presses within their stated uncertainty:
#       ratio_min 1 (the uncertainty must be honest)
#   avr.error_p99_us           |time_us − truth|, p99: information
#   avr.judged_p50_ms, avr.judged_p99_ms  press → call_judged − settle:
#       diff_max 0.5 ms (a PRESS frame's 150 µs of air at 1 Mbaud and the
#       firmware's own reaction; padsim writes its frame at once)
# Benchmarks report, they do not assert: the exit status is non-zero only
# when the bench could not run.
#
# Environment (defaults in brackets):
#   PAIRS     pairs of presses per kind of pad [60]
#   GAPS      µs between the presses of a pair, cycled [20 100 300 1000]
#   ROUNDS    judged calls per kind of pad [60]
#   SETTLE_US [pads] settle_window [2000]
#   KEEP_LOGS when 1, keep the directory    PGCLUSTER  [tools/pgcluster]

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PAIRS=${PAIRS:-60}
GAPS=${GAPS:-20 100 300 1000}
ROUNDS=${ROUNDS:-60}
SETTLE_US=${SETTLE_US:-2000}
PGCLUSTER=${PGCLUSTER:-$ROOT/tools/pgcluster}
KEEP_LOGS=${KEEP_LOGS:-0}

SIM_UID_BASE=0x7f00             # padsim's pads 0000000000007f00, ..01
AVR_UIDS=(0x7f10 0x7f11)        # the emulated pads, one on each line
BUS_UID=0x7f20                  # two emulated pads on one RS-485 bus: ..7f20, ..7f21
PPMS=(30 -40)                   # both kinds' crystals
PAIR_SPACING_US=100000
MATCH_US=20000                  # a claim this close to a true press is its claim
MIN_SAMPLES=12                  # clock samples per pad before measuring
BATCH=25                        # pairs scheduled at once (avrpad keeps 64 edges)
GOAL_JUDGED_MS=0.5
PAUSE_MS=100                    # reveal.pause_ms
COOLDOWN_S=0.3                  # a seat's next press after the judge's 250 ms cooldown
ROUND_TIMEOUT_S=5
START_TIMEOUT_S=60
STOP_TIMEOUT_S=15

tmp=""
BENCH_NAME=avr
# shellcheck source=tests/bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
        local status=$?
        exec 6>&- 7>&- 8>&- 9>&-        # the simulators' scripts
        bench_teardown "$status"
}

count() { grep -c -- "$2" "$1" 2>/dev/null || true; }

wait_count() {  # wait_count FILE PATTERN N TIMEOUT_S: more than N lines match
        local i
        for ((i = 0; i < $4 * 100; i++)); do
                (($(count "$1" "$2") > $3)) && return 0
                sleep 0.01
        done
        return 1
}

# ---- start ------------------------------------------------------------------

start_sims() {  # start_sims BUILD_DIR
        local build=$1 k
        log "starting PostgreSQL, padsim and two emulated pads in $tmp"
        pg_up
        mkfifo "$tmp/sim.in" "$tmp/avr0.in" "$tmp/avr1.in" "$tmp/bus.in"
        exec 7<>"$tmp/sim.in" 8<>"$tmp/avr0.in" 9<>"$tmp/avr1.in" 6<>"$tmp/bus.in"
        "$build/arbiter-padsim" --pads 2 --uid-base "$SIM_UID_BASE" --drift-ppm "${PPMS[0]},${PPMS[1]}" \
                --offset-us 1200,-800 --link "$tmp/sim" --events --quiet --script - \
                <"$tmp/sim.in" >"$tmp/sim.out" 2>"$tmp/sim.log" &
        started $! padsim
        "$build/tests/avr/avrpad" --uid "${AVR_UIDS[0]}" --ppm "${PPMS[0]}" --link "$tmp/avr0" \
                "$build/firmware/pad.elf" <"$tmp/avr0.in" >"$tmp/avr0.out" 2>"$tmp/avr0.log" &
        started $! avrpad0
        "$build/tests/avr/avrpad" --uid "${AVR_UIDS[1]}" --ppm "${PPMS[1]}" --link "$tmp/avr1" \
                "$build/firmware/pad.elf" <"$tmp/avr1.in" >"$tmp/avr1.out" 2>"$tmp/avr1.log" &
        started $! avrpad1
        "$build/tests/avr/avrpad" --pads 2 --rs485 --uid "$BUS_UID" --ppm "${PPMS[0]},${PPMS[1]}" --link "$tmp/bus" \
                "$build/firmware/pad.elf" <"$tmp/bus.in" >"$tmp/bus.out" 2>"$tmp/bus.log" &
        started $! "avrpad (bus)"
        for k in sim avr0 avr1 bus; do
                for _ in $(seq 100); do [[ -L $tmp/$k ]] && break; sleep 0.05; done
                [[ -L $tmp/$k ]] || die "$k did not create its link (log: $tmp/$k.log)"
        done
}

# arbiterd on KIND's ptys: padsim's with no wire time (padsim writes a frame
# at once), the emulated pads' with pty_wire_time (their bytes take their
# air time, as on a wire).  One daemon at a time: the database has one.
start_daemon() {        # start_daemon BUILD_DIR KIND
        local build=$1 kind=$2 i ports wire
        case $kind in
        sim) ports="$tmp/sim" wire=no ;;
        avr) ports="$tmp/avr0 $tmp/avr1" wire=yes ;;
        bus) ports="$tmp/bus" wire=yes ;;
        esac
        printf '[pads]\nbaud = 1000000\npty_wire_time = %s\nsettle_window = %s\n' "$wire" "$SETTLE_US" \
                >"$tmp/arbiterd-$kind.conf"
        [[ $kind == bus ]] && echo "rs485_ports = $ports" >>"$tmp/arbiterd-$kind.conf"
        PORT=$(free_port)
        local env=(ARBITER_DSN="$DSN" ARBITER_MIGRATIONS="$ROOT/migrations" ARBITER_BUS=none
                   ARBITER_LISTEN="127.0.0.1:$PORT" ARBITER_SPOOL="$tmp/spool-$kind" ARBITER_LOG_LEVEL=debug
                   ARBITER_PADS="$ports")
        env "${env[@]}" "$build/arbiterd" --config="$tmp/arbiterd-$kind.conf" >"$tmp/arbiterd-$kind.log" 2>&1 </dev/null &
        started $! "arbiterd ($kind)"
        DAEMON_PID=$!
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null && break
                kill -0 "$DAEMON_PID" 2>/dev/null || die "arbiterd exited (log: $tmp/arbiterd-$kind.log)"
                sleep 0.1
        done
        TOKEN=$(env "${env[@]}" "$build/arbiterd" --create-token admin "bench-avr-$kind" 2>>"$tmp/token.log") ||
                die "arbiterd --create-token failed (log: $tmp/token.log)"
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                api GET /v1/health | jq -e '.tokens.loaded' >/dev/null && break
                sleep 0.1
        done
        # both pads connected, their clocks synced, and a few samples in
        # each model past the eight of the first sync (the drift's fit
        # settles over the first seconds at one sample a second)
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                (($(api GET /v1/pads | jq --argjson n "$MIN_SAMPLES" \
                     '[.items[] | select(.connected and .clock.synced and .clock.samples >= $n)] | length') >= 2)) && break
                sleep 0.1
        done
        ((i < START_TIMEOUT_S * 10)) || die "the $kind pads did not both connect and sync: $(api GET /v1/pads)"
        curl -sN -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/events" 2>"$tmp/curl-$kind.log" \
                > >("$build/tests/bench/bench_stamp" --stamp >"$tmp/sse-$kind.out") &
        CURL_PID=$!
        started $CURL_PID "curl ($kind)"
        for ((i = 0; i < START_TIMEOUT_S * 10; i++)); do
                [[ -s $tmp/sse-$kind.out ]] && break
                sleep 0.1
        done
        SSE=$tmp/sse-$kind.out
}

stop_daemon() {
        stop_pid "$CURL_PID" curl "$STOP_TIMEOUT_S"
        stop_pid "$DAEMON_PID" arbiterd "$STOP_TIMEOUT_S"
}

pad_id() { printf '%016x' "$1"; }

# A command line to emulated pad PAD (0, 1) of KIND: avr, one avrpad each;
# bus, the two pads of one avrpad (@K).
to_pad() {      # to_pad KIND PAD LINE
        if [[ $1 == bus ]]; then echo "@$2 $3" >&6; else echo "$3" >&$((8 + $2)); fi
}

# The file where emulated pad PAD of KIND prints, and what its lines say
# before TEXT there (on the bus both pads print to one file, "pad K TEXT").
pad_file() {    # pad_file KIND PAD
        if [[ $1 == bus ]]; then echo "$tmp/bus.out"; else echo "$tmp/avr$2.out"; fi
}
pad_says() {    # pad_says KIND PAD TEXT
        if [[ $1 == bus ]]; then echo "pad $2 $3"; else echo "$3"; fi
}

# ---- ordering -----------------------------------------------------------------

# The host time now (CLOCK_MONOTONIC µs), as emulated pad 0 tells it.
avr_now() {
        local n
        n=$(count "$tmp/avr0.out" '^.*time host_us')
        echo time >&8
        wait_count "$tmp/avr0.out" 'time host_us' "$n" 5 || die "avrpad 0 did not answer 'time'"
        grep 'time host_us' "$tmp/avr0.out" | tail -n 1 | sed 's/.*time host_us \([0-9]*\).*/\1/'
}

# Schedules pairs FROM..TO−1 on KIND (sim or avr).  Pair k: gap GAPS[k mod
# n]; pad k mod 2 first.
schedule() {    # schedule KIND FROM TO
        local kind=$1 k gaps t0 first second gap base
        read -ra gaps <<<"$GAPS"
        [[ $kind != sim ]] && base=$(($(avr_now) + 300000))
        for ((k = $2; k < $3; k++)); do
                gap=${gaps[k % ${#gaps[@]}]}
                first=$((k % 2))
                second=$((1 - first))
                if [[ $kind == sim ]]; then
                        t0=$((300000 + (k - $2) * PAIR_SPACING_US))
                        printf '{"in_us": %d, "pad": %d, "button": 0, "press": true, "hold_ms": 30}\n' \
                                "$t0" "$first" >&7
                        printf '{"in_us": %d, "pad": %d, "button": 0, "press": true, "hold_ms": 30}\n' \
                                "$((t0 + gap))" "$second" >&7
                else
                        t0=$((base + (k - $2) * PAIR_SPACING_US))
                        to_pad "$kind" "$first" "press 0 h$t0"
                        to_pad "$kind" "$first" "release 0 h$((t0 + 30000))"
                        to_pad "$kind" "$second" "press 0 h$((t0 + gap))"
                        to_pad "$kind" "$second" "release 0 h$((t0 + gap + 30000))"
                fi
        done
}

# The true press times of PAD (0, 1) of KIND, one a line, in order.
truths() {      # truths KIND PAD
        if [[ $1 == sim ]]; then
                sed -n "s/.*PRESS pad=$2 .*host_us=\([0-9]*\).*/\1/p" "$tmp/sim.out"
        else
                sed -n "s/.*$(pad_says "$1" "$2" "button 0 pressed host_us") \([0-9]*\).*/\1/p" "$(pad_file "$1" "$2")"
        fi
}

ordering() {    # ordering KIND ID0 ID1 → $tmp/ordering-KIND.txt "t0 t1 r0 u0 r1 u1" per pair
        local kind=$1 k after n want
        after=$(api GET "/v1/presses?limit=1000" | jq .next)
        for ((k = 0; k < PAIRS; k += BATCH)); do
                schedule "$kind" "$k" $((k + BATCH < PAIRS ? k + BATCH : PAIRS))
                want=$(((k + BATCH < PAIRS ? k + BATCH : PAIRS) * 2))
                for ((n = 0; n < (BATCH * PAIR_SPACING_US / 1000000 + 20) * 10; n++)); do
                        (($(api GET "/v1/presses?after=$after&limit=1000" |
                             jq --arg a "$2" --arg b "$3" '[.items[] | select(.pad == $a or .pad == $b)] | length')
                          >= want)) && break
                        sleep 0.1
                done
        done
        api GET "/v1/presses?after=$after&limit=1000" >"$tmp/presses-$kind.json"
        local p
        for p in 0 1; do
                truths "$kind" "$p" >"$tmp/truth-$kind-$p.txt"
                jq -r --arg id "$([[ $p == 0 ]] && echo "$2" || echo "$3")" \
                        '[.items[] | select(.pad == $id)] | sort_by(.event_no) | .[] | "\(.time_us) \(.uncertainty_us)"' \
                        "$tmp/presses-$kind.json" >"$tmp/claim-$kind-$p.txt"
        done
        # Each press matched with its claim (the claim within MATCH_US of
        # it; a press a lagging simulator refused or a claim of nothing is
        # left out), then the two pads' presses paired (within 10 ms).
        for p in 0 1; do
                matched "$tmp/truth-$kind-$p.txt" "$tmp/claim-$kind-$p.txt" >"$tmp/matched-$kind-$p.txt"
        done
        awk 'NR == FNR { t[NR] = $1; c[NR] = $2 " " $3; n = NR; next }
             { while (i < n && t[i + 1] < $1 - 10000) i++
               if (i < n && t[i + 1] - $1 < 10000 && $1 - t[i + 1] < 10000) { i++; print t[i], $1, c[i], $2, $3 } }' \
                "$tmp/matched-$kind-0.txt" "$tmp/matched-$kind-1.txt" >"$tmp/ordering-$kind.txt"
        local lost=$((PAIRS - $(wc -l <"$tmp/ordering-$kind.txt")))
        ((lost == 0)) || log "$kind: $lost of $PAIRS pairs not measured (a press not injected or not reported)"
}

# "truth claim uncertainty" for each true time of TRUTHS with a claim of
# CLAIMS ("time uncertainty", both in time order) within MATCH_US of it.
matched() {     # matched TRUTHS CLAIMS
        awk -v m="$MATCH_US" 'NR == FNR { t[NR] = $1; n = NR; next }
             { while (i < n && t[i + 1] < $1 - m) i++
               if (i < n && t[i + 1] - $1 <= m) { i++; print t[i], $1, $2 } }' "$1" "$2"
}

# The value at quantile Q of the numbers on stdin, "-" when there are none.
quantile() {    # quantile Q
        sort -g | awk -v q="$1" '{ v[NR] = $1 } END {
                if (NR == 0) { print "-"; exit }
                i = int(q * NR + 0.999); if (i < 1) i = 1
                print v[i] }'
}

# "pairs right% tie% wrong% within% err_p50_us err_p99_us u_p50_us" of KIND.
ordering_figures() {
        local f=$tmp/ordering-$1.txt
        awk 'function abs(x) { return x < 0 ? -x : x }
        {
                t0 = $1; t1 = $2; r0 = $3; u0 = $4; r1 = $5; u1 = $6
                if (abs(r1 - r0) <= u0 + u1) tie++
                else if ((r1 - r0 > 0) == (t1 - t0 > 0)) right++
                else wrong++
                within += (abs(r0 - t0) <= u0) + (abs(r1 - t1) <= u1)
        }
        function pct(a, n) { return n ? sprintf("%.2f", 100 * a / n) : "-" }
        END { printf "%d %s %s %s %s", NR, pct(right, NR), pct(tie, NR), pct(wrong, NR), pct(within, 2 * NR) }' "$f"
        awk 'function abs(x) { return x < 0 ? -x : x } { print abs($3 - $1); print abs($5 - $2) }' "$f" >"$f.err"
        printf ' %s %s %s\n' "$(quantile 0.5 <"$f.err")" "$(quantile 0.99 <"$f.err")" \
                "$(awk '{ print $4; print $6 }' "$f" | quantile 0.5)"
}

# ---- press to judged ------------------------------------------------------------

new_match() {   # new_match TABLE → MATCH
        MATCH=$(api POST /v1/matches "{\"game\": \"crash-pilot\", \"table\": $1,
                \"players\": [\"A\", \"B\"], \"config\": {\"reveal\":
                {\"pause_ms\": $PAUSE_MS, \"timeout_ms\": 60000}}}" | jq -r .id) ||
                die "could not create a match"
        api POST "/v1/matches/$MATCH/start" >/dev/null || die "could not start match $MATCH"
        LAST_WINDOW=""
}

# One round on KIND at TABLE; appends "press_us sse_us" to FILE.
play_round() {  # play_round KIND TABLE N FILE
        local kind=$1 n=$3 button pad ns np line tp ts said
        cp_next_window "$2"
        button=$(cp_pick_button "$VIEW")
        pad=$((n % 2))
        ns=$(count "$SSE" 'event: call_judged')
        if [[ $kind == sim ]]; then
                np=$(count "$tmp/sim.out" "PRESS pad=$pad ")
                printf '{"pad": %d, "button": %d, "press": true, "hold_ms": 20}\n' "$pad" "$button" >&7
        else
                said=$(pad_says "$kind" "$pad" "button $button pressed host_us")
                np=$(count "$(pad_file "$kind" "$pad")" "$said")
                to_pad "$kind" "$pad" "press $button"
        fi
        sleep 0.05
        if ! wait_count "$SSE" 'event: call_judged' "$ns" "$ROUND_TIMEOUT_S"; then
                log "$kind round $n: no verdict within $ROUND_TIMEOUT_S s; skipped"
                [[ $kind != sim ]] && to_pad "$kind" "$pad" "release $button"
                return 0
        fi
        if [[ $kind == sim ]]; then
                wait_count "$tmp/sim.out" "PRESS pad=$pad " "$np" 1 || return 0
                line=$(grep "PRESS pad=$pad " "$tmp/sim.out" | tail -n 1)
                tp=$(sed -n 's/.*host_us=\([0-9]*\).*/\1/p' <<<"$line")
        else
                to_pad "$kind" "$pad" "release $button"
                wait_count "$(pad_file "$kind" "$pad")" "$said" "$np" 1 || return 0
                tp=$(grep "$said" "$(pad_file "$kind" "$pad")" | tail -n 1 |
                     sed 's/.*pressed host_us \([0-9]*\).*/\1/')
        fi
        ts=$(grep 'event: call_judged' "$SSE" | tail -n 1 | cut -d' ' -f1)
        echo "$tp $ts" >>"$4"
        sleep "$COOLDOWN_S"
}

judged() {      # judged KIND ID0 ID1 → $tmp/judged-KIND.txt
        local table n
        table=$(api POST /v1/tables "{\"name\": \"bench-avr-$1\", \"seats\":
                [{\"seat\": 1, \"pad\": \"$2\"}, {\"seat\": 2, \"pad\": \"$3\"}]}" | jq -r .id) ||
                die "could not create table $1"
        new_match "$table"
        : >"$tmp/judged-$1.txt"
        for ((n = 0; n < ROUNDS; n++)); do
                play_round "$1" "$table" "$n" "$tmp/judged-$1.txt"
        done
        api POST "/v1/matches/$MATCH/abort" >/dev/null || true
}

# The settle window KIND's daemon used (its debug line for each window the
# judge decided; the configured one on a full-duplex line, wider on a bus).
settle_of() {   # settle_of KIND
        local w
        w=$(grep -m1 -o 'settle window [0-9]* µs' "$tmp/arbiterd-$1.log" | grep -o '[0-9]*' || true)
        echo "${w:-$SETTLE_US}"
}

# "p50 p99 n" in ms of arrival − press − settle over KIND's rounds.
judged_figures() {
        awk -v s="$(settle_of "$1")" '{ print ($2 - $1 - s) / 1000 }' "$tmp/judged-$1.txt" | sort -g |
                awk '{ v[NR] = $1 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }'
}

main() {
        local build=${1:-build}
        [[ $build == /* ]] || build=$ROOT/$build
        need curl curl
        need jq jq
        need ss iproute2
        for f in arbiterd arbiter-padsim tests/bench/bench_stamp tests/avr/avrpad firmware/pad.elf; do
                [[ -e $build/$f ]] || die "$build/$f not found: build it first (make build-tests)"
        done
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-bench-avr.XXXXXX")
        chmod 0755 "$tmp"
        trap cleanup EXIT
        trap 'exit 130' INT TERM

        start_sims "$build"
        local sim0 sim1 avr0 avr1 bus0 bus1
        sim0=$(pad_id $((SIM_UID_BASE))) sim1=$(pad_id $((SIM_UID_BASE + 1)))
        avr0=$(pad_id $((AVR_UIDS[0]))) avr1=$(pad_id $((AVR_UIDS[1])))
        log "arbiter-padsim: $PAIRS pairs of presses ($GAPS µs apart), then $ROUNDS Crash Pilot calls"
        start_daemon "$build" sim
        ordering sim "$sim0" "$sim1"
        judged sim "$sim0" "$sim1"
        stop_daemon
        log "the emulated pads: the same"
        start_daemon "$build" avr
        ordering avr "$avr0" "$avr1"
        judged avr "$avr0" "$avr1"
        stop_daemon
        log "two emulated pads on one RS-485 bus, polled: the same"
        bus0=$(pad_id $((BUS_UID))) bus1=$(pad_id $((BUS_UID + 1)))
        start_daemon "$build" bus
        ordering bus "$bus0" "$bus1"
        judged bus "$bus0" "$bus1"
        stop_daemon

        local s a r
        echo
        echo "Ordering: pairs of presses on two pads ($GAPS µs apart, cycled), the claim (GET /v1/presses"
        echo "time_us ± uncertainty_us) against the injected time; 1 Mbaud, crystals ${PPMS[*]} ppm"
        printf '%-22s %6s %7s %7s %7s %8s %9s %9s %9s\n' pads pairs right% tie% wrong% within% \
                "|err| p50" "|err| p99" "u p50 µs"
        read -ra s < <(ordering_figures sim)
        read -ra a < <(ordering_figures avr)
        read -ra r < <(ordering_figures bus)
        printf '%-22s %6s %7s %7s %7s %8s %9s %9s %9s\n' "arbiter-padsim" "${s[@]}"
        printf '%-22s %6s %7s %7s %7s %8s %9s %9s %9s\n' "firmware on simavr" "${a[@]}"
        printf '%-22s %6s %7s %7s %7s %8s %9s %9s %9s\n' "firmware, RS-485 bus" "${r[@]}"
        report_row avr.ordering.wrong_pct "pairs of presses in the wrong order, emulated firmware (gaps $GAPS µs)" % \
                "${a[3]}" "${s[3]}" "arbiter-padsim, same run" diff_max 0
        report_row avr.ordering.right_pct "pairs of presses ordered (not tied), emulated firmware" % \
                "${a[1]}" "${s[1]}" "arbiter-padsim, same run" none
        report_row avr.ordering.tie_pct "pairs of presses tied (claims overlap), emulated firmware" % \
                "${a[2]}" "${s[2]}" "arbiter-padsim, same run" none
        report_row avr.within_pct "presses whose true time is within the stated uncertainty, emulated firmware" % \
                "${a[4]}" "${s[4]}" "arbiter-padsim, same run" ratio_min 1
        report_row avr.error_p99_us "|reported − true press time|, p99, emulated firmware" µs \
                "${a[6]}" "${s[6]}" "arbiter-padsim, same run" none
        report_row avr.bus.ordering.wrong_pct "pairs of presses in the wrong order, emulated firmware on an RS-485 bus" % \
                "${r[3]}" "${s[3]}" "arbiter-padsim, same run" diff_max 0
        report_row avr.bus.within_pct "presses within the stated uncertainty, emulated firmware on an RS-485 bus" % \
                "${r[4]}" "${s[4]}" "arbiter-padsim, same run" ratio_min 1
        report_row avr.bus.ordering.tie_pct "pairs of presses tied, emulated firmware on an RS-485 bus" % \
                "${r[2]}" "${s[2]}" "arbiter-padsim, same run" none

        echo
        echo "Press to judged: a Crash Pilot call, the press's true time → call_judged on SSE − the settle window"
        echo "the daemon used, ms"
        printf '%-22s %9s %9s %6s %10s\n' pads "p50 ms" "p99 ms" rounds "settle µs"
        read -ra s < <(judged_figures sim)
        read -ra a < <(judged_figures avr)
        read -ra r < <(judged_figures bus)
        printf '%-22s %9s %9s %6s %10s\n' "arbiter-padsim" "${s[@]}" "$(settle_of sim)"
        printf '%-22s %9s %9s %6s %10s\n' "firmware on simavr" "${a[@]}" "$(settle_of avr)"
        printf '%-22s %9s %9s %6s %10s\n' "firmware, RS-485 bus" "${r[@]}" "$(settle_of bus)"
        report_row avr.bus.judged_p99_ms "pad press → call_judged on SSE − settle window (a poll round's), p99, \
emulated firmware on an RS-485 bus" ms "${r[1]}" "${s[1]}" "arbiter-padsim, same run" none
        report_row avr.judged_p50_ms "pad press → call_judged on SSE − settle window, p50, emulated firmware" ms \
                "${a[0]}" "${s[0]}" "arbiter-padsim, same run" diff_max "$GOAL_JUDGED_MS"
        report_row avr.judged_p99_ms "pad press → call_judged on SSE − settle window, p99, emulated firmware" ms \
                "${a[1]}" "${s[1]}" "arbiter-padsim, same run" diff_max "$GOAL_JUDGED_MS"
}

main "$@"
