#!/usr/bin/env bash
# tests/integration/make-run.sh — what `make run` does (tools/run-local.sh),
# against the suite's PostgreSQL with the test build:
#
#   1. it creates the venue's tables, table-a, table-b and table-c, with the
#      simulated pads at their seats (table-b's seats a button pad and a slap
#      pad each, table-c a referee keypad), and a Pitch Fleet match waits at
#      table-c for its referee: started over REST, paused from its keypad
#      through the FIFO make run prints;
#   2. at table-a the bots host a Crash Pilot match and play it to its end,
#      and at table-b others a Crazy Pilot match;
#   3. arbiterd killed with SIGKILL is restarted, with a message saying how it
#      ended, while the venue (padsims, bots) stays up;
#   4. the bots play on after the restart: another match ends at each table;
#   5. Ctrl-C (SIGINT) stops arbiterd gracefully, then every other process the
#      script started, and the script exits 0.
#
# The bots are fast (ARBITER_BOTS_OPTIONS) so that a match takes seconds.
# Each step waits for a line the script, the daemon or the bots print.  The
# venue is stopped by pid on exit, also on failure (venue.bash).

set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/venue.bash"

FAST_BOTS='--reaction-ms 150 --reaction-min-ms 80 --between-ms 300 --match-config {"reveal":{"pause_ms":200}}'

dir=$(mktemp -d "$ARBITER_TEST_TMP/make-run.XXXXXX")
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# check NAME COMMAND...: one TAP line for the command's success.
check() {
    local name=$1; shift
    if "$@"; then ok "$name"; else not_ok "$name"; fi
}
on_exit() {
    venue_stop >/dev/null 2>&1 || true
    if ((failed > 0)); then
        echo "# run-local.sh's stderr (last lines):"
        tail -n 40 "$VENUE_ERR" 2>/dev/null | sed 's/^/# /'
        echo "# the bots' logs:"
        sed 's/^/# /' "$VENUE_RUN/pads/table-a.bots.log" "$VENUE_RUN/pads/table-b.bots.log" 2>/dev/null || true
    fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

FAST_BOTS_B='--reaction-ms 150 --reaction-min-ms 80 --slap-ms 100 --between-ms 300'

echo "1..7"
venue_start "$dir" "$FAST_BOTS" "$FAST_BOTS_B"
bots_log="$VENUE_RUN/pads/table-a.bots.log"
bots_b_log="$VENUE_RUN/pads/table-b.bots.log"

# 1. the tables, with make run's simulated pads at their seats
tables_are_there() {
    local tables
    tables=$(curl -sf "$VENUE_URL/v1/tables?limit=1000")
    jq -e '[.items[] | select(.name == "table-a") | .seats[].pads[].pad] ==
           ["000000000000a000", "000000000000a001", "000000000000a002", "000000000000a003"]' \
        <<<"$tables" >/dev/null &&
    jq -e '[.items[] | select(.name == "table-b") | .seats[] | .pads | sort_by(.role) | map(.role + " " + .pad)] ==
           [["buttons 000000000000b000", "slap 000000000000b003"], ["buttons 000000000000b001", "slap 000000000000b004"],
            ["buttons 000000000000b002", "slap 000000000000b005"]]' <<<"$tables" >/dev/null
}
check "make run creates table-a and table-b with the simulated pads" tables_are_there

# 1b. table-c's Pitch Fleet match, for a newcomer to referee; its keypad pauses it
pitch_fleet_at_table_c() {
    local id table auth state i
    venue_wait_line "$VENUE_ERR" "at table-c waits for its referee" || return 1
    id=$(sed -n 's/.*Pitch Fleet match \([0-9]*\) at table-c waits.*/\1/p' "$VENUE_ERR" | tail -n 1)
    table=$(curl -sf "$VENUE_URL/v1/tables?limit=1000" | jq '.items[] | select(.name == "table-c") | .id')
    curl -sf "$VENUE_URL/v1/tables/$table" | jq -e '.pads == [{"pad": "000000000000c000", "role": "keypad"}]' \
        >/dev/null || return 1
    curl -sf "$VENUE_URL/v1/matches/$id" |
        jq -e --argjson t "$table" '.state == "ready" and .game == "pitch-fleet" and .table == $t and
                                    (.seats | length) == 4' >/dev/null || return 1
    auth="Authorization: Bearer $(cat "$VENUE_RUN/admin.token")"
    curl -sf -X POST -H "$auth" -H 'Content-Type: application/json' -d '{}' "$VENUE_URL/v1/matches/$id/start" \
        >/dev/null || return 1
    echo '{"in_us":0,"pad":0,"button":14,"press":true}' >"$VENUE_RUN/pads/table-c.presses"
    for ((i = 0; i < VENUE_WAIT_S * 10; i++)); do
        state=$(curl -sf "$VENUE_URL/v1/matches/$id" | jq -r .state)
        [[ $state == paused ]] && return 0
        sleep 0.1
    done
    return 1
}
check "a Pitch Fleet match waits at table-c for its referee, and table-c's keypad pauses it" pitch_fleet_at_table_c

# 2. a match at table-a, hosted by the bots, played to its end
match_over_at_table_a() {   # the number of "is over" lines to wait for
    local id table
    venue_wait_line "$bots_log" "is over" "$1" || return 1
    id=$(grep -F "is over" "$bots_log" | sed -n "$1s/.*match \([0-9]*\) at.*/\1/p")
    table=$(curl -sf "$VENUE_URL/v1/tables?limit=1000" | jq '.items[] | select(.name == "table-a") | .id')
    curl -sf "$VENUE_URL/v1/matches/$id" |
        jq -e --argjson t "$table" '.state == "finished" and .table == $t and (.result.placements | length) == 4' \
        >/dev/null
}
check "the bots play a match at table-a to its end" match_over_at_table_a 1

# 2b. a Crazy Pilot match at table-b, hosted and played (slap pads and all) by its bots
crazy_match_over_at_table_b() {
    local id table
    venue_wait_line "$bots_b_log" "is over" || return 1
    id=$(grep -F "is over" "$bots_b_log" | sed -n "1s/.*match \([0-9]*\) at.*/\1/p")
    table=$(curl -sf "$VENUE_URL/v1/tables?limit=1000" | jq '.items[] | select(.name == "table-b") | .id')
    curl -sf "$VENUE_URL/v1/matches/$id" |
        jq -e --argjson t "$table" '.state == "finished" and .game == "crazy-pilot" and .table == $t and
                                    (.result.placements | length) == 3 and
                                    # slap races were run: a true call gives the last slapper a penalty
                                    ([.result.placements[].score.terms.penalties] | add) < 0' >/dev/null
}
check "the bots play a Crazy Pilot match at table-b to its end" crazy_match_over_at_table_b

# 3. kill -9 arbiterd: restarted, with a message; the venue stays up
daemon_pid=$(sed -n 's/^arbiterd\[\([0-9]*\)\]: notice: arbiterd .* ready: .*/\1/p' "$VENUE_ERR" | tail -n 1)
mapfile -t others < <(pgrep -P "$VENUE_PID" | grep -vx "$daemon_pid")
restarted() {
    local pid
    [[ -n $daemon_pid && ${#others[@]} -gt 0 ]] || return 1
    kill -KILL "$daemon_pid"
    venue_wait_line "$VENUE_ERR" "arbiterd (pid $daemon_pid) was killed by SIGKILL; restarting it in 2 s" &&
        venue_wait_line "$VENUE_ERR" "ready: Serving on $VENUE_LISTEN" 2 &&
        curl -sf "$VENUE_URL/v1/health" | jq -e '.status == "ok"' >/dev/null || return 1
    # the database, the padsims, the bots and the bus were not touched
    for pid in "${others[@]}"; do kill -0 "$pid" || return 1; done
}
check "arbiterd killed with SIGKILL is restarted with a message; the venue stays up" restarted

# 4. the bots reconnect and play on: another match ends at each table
over=$(grep -cF "is over" "$bots_log")
over_b=$(grep -cF "is over" "$bots_b_log")
play_on() {
    venue_wait_line "$bots_log" "connected to arbiterd" && match_over_at_table_a $((over + 1)) &&
        venue_wait_line "$bots_b_log" "connected to arbiterd" && venue_wait_line "$bots_b_log" "is over" $((over_b + 1))
}
check "the bots play on after the restart" play_on

# 5. Ctrl-C: arbiterd stops gracefully, then the rest, by pid
stops_cleanly() {
    local children rc=0 pid
    mapfile -t children < <(pgrep -P "$VENUE_PID")
    venue_stop || rc=$?
    ((rc == 0)) || return 1
    (($(grep -c "received: stopping gracefully" "$VENUE_ERR") == 1)) || return 1
    for pid in "${children[@]}"; do ! kill -0 "$pid" 2>/dev/null || return 1; done
}
check "Ctrl-C stops arbiterd gracefully, then every process make run started" stops_cleanly

((failed == 0))
