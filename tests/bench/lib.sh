# tests/bench/lib.sh — helpers the benchmark scripts share; source it after
# setting BENCH_NAME (the prefix of log lines).

log() { printf '%s: %s\n' "${BENCH_NAME:-bench}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Stops PID with SIGTERM, then SIGKILL after TIMEOUT_S, and reaps it.
stop_pid() {    # stop_pid PID NAME TIMEOUT_S
        local pid=$1 name=$2 i
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < $3 * 10; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
                log "$name (pid $pid) ignored SIGTERM for $3 s; killing it"
                kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
}

need() {        # need TOOL PACKAGE
        command -v "$1" >/dev/null 2>&1 || die "$1 not found: apt-get install $2 (or make deps)"
}

# A TCP port on 127.0.0.1 that nothing uses now (a small race is acceptable
# for a benchmark: a clash fails loudly at bind time).
free_port() {
        local p i
        for i in $(seq 200); do
                p=$((20000 + RANDOM % 40000))
                if ! ss -Htan "sport = :$p" | grep -q .; then
                        echo "$p"
                        return 0
                fi
        done
        die "no free TCP port found"
}

# "REQ/S P50_MS P99_MS ERRORS" of a `wrk --latency` report.  wrk prints
# latencies as 123.45us, 1.23ms, 1.02s or 1.5m; errors are non-2xx answers
# plus socket errors.
parse_wrk() {   # parse_wrk FILE
        awk '
        function ms(v) {
                if (v ~ /us$/) return v / 1000
                if (v ~ /ms$/) return v + 0
                if (v ~ /m$/)  return v * 60000
                if (v ~ /s$/)  return v * 1000
                return -1
        }
        /Latency Distribution/ { dist = 1 }
        dist && $1 == "50%" { p50 = ms($2) }
        dist && $1 == "99%" { p99 = ms($2) }
        $1 == "Requests/sec:" { rps = $2 }
        /Non-2xx or 3xx responses:/ { errors += $NF }
        /Socket errors:/ { for (i = 4; i <= NF; i += 2) errors += $i }
        END {
                if (rps == "" || p50 == "" || p99 == "") exit 1
                printf "%s %.3f %.3f %d\n", rps, p50, p99, errors
        }' "$1" || die "could not parse wrk output in $1"
}

# p50 p99 n in ms of the database's own floor for a durable input, measured
# in the run that reports next to it: the same INSERT as a match input,
# committed by psql against the cluster at DSN, one every 200 ms (the pace
# of a match's inputs), into a logged table like match_inputs.
db_reference() {        # db_reference DSN
        local i
        {
                # a logged table as match_inputs (a temporary one commits
                # without flushing the WAL), and the pause on the client's
                # side, so that the server idles between inserts as it does
                # between a match's inputs
                echo "CREATE TABLE bench_ref (LIKE match_inputs INCLUDING ALL);"
                echo "\\timing on"
                for ((i = 1; i <= 50; i++)); do
                        echo "\\! sleep 0.2"
                        echo "INSERT INTO bench_ref (match_id, seq, match_time_us, seat, kind, input, state_hash, reaction_us, source, who)" \
                             "VALUES (1, $i, 123456, 2, 'call', '{\"window\":3,\"call\":2,\"press_us\":123}', 'abcdef0123456789'," \
                             "4567, 'pad', 'pad 0000000000007e00') ON CONFLICT DO NOTHING;"
                done
        } | psql "$1" -X -q 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' |
                awk '{ print $1 * 1000 }' | sort -g |
                awk '{ v[NR] = $1 / 1000 } END {
                        if (NR == 0) { print "- - 0"; exit }
                        i50 = int(0.50 * NR + 0.999); i99 = int(0.99 * NR + 0.999)
                        printf "%.3f %.3f %d\n", v[i50], v[i99], NR }'
}

# One row of `make bench`'s report (tests/bench/report.h says what a row is
# and what the goals mean): appended as a JSON line to $BENCH_ROWS when
# tests/bench/run.sh set it, nothing otherwise.  ARBITER and REFERENCE are
# numbers, or "-" for a figure that could not be measured; GOAL_KIND is none,
# ratio_max, ratio_min or diff_max, GOAL_VALUE a number (ignored for none).
report_row() {  # report_row ID FIGURE UNIT ARBITER REFERENCE REFERENCE_NAME GOAL_KIND [GOAL_VALUE]
        [[ -n ${BENCH_ROWS:-} ]] || return 0
        local num='^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$' a=$4 r=$5 g=${8:-}
        [[ $a =~ $num ]] || a=null
        [[ $r =~ $num ]] || r=null
        [[ $7 != none && $g =~ $num ]] || g=null
        case $7 in none|ratio_max|ratio_min|diff_max) ;; *) die "report_row $1: unknown goal kind $7" ;; esac
        jq -cn --arg id "$1" --arg figure "$2" --arg unit "$3" --argjson arbiter "$a" \
                --argjson reference "$r" --arg reference_name "$6" --arg kind "$7" --argjson value "$g" \
                '{id: $id, figure: $figure, unit: $unit, arbiter: $arbiter, reference: $reference,
                  reference_name: $reference_name, goal: {kind: $kind, value: $value}}' >>"$BENCH_ROWS"
}

# What a benchmark starts, and how it ends.  A script sets tmp (its
# temporary directory), PGCLUSTER, STOP_TIMEOUT_S and KEEP_LOGS, records
# each background process with started, and ends its EXIT trap with
# bench_teardown.
pids=()                         # started, stopped newest first
names=()
pg_started=0

started() {     # started PID NAME
        pids+=("$1")
        names+=("$2")
}

# A throwaway PostgreSQL in $tmp/pg (tools/pgcluster); sets DSN.
pg_up() {
        "$PGCLUSTER" "$tmp/pg" init >"$tmp/pg-init.log" 2>&1 ||
                { cat "$tmp/pg-init.log" >&2; die "tools/pgcluster init failed"; }
        pg_started=1
        "$PGCLUSTER" "$tmp/pg" start >"$tmp/pg-start.log" 2>&1 ||
                { cat "$tmp/pg-start.log" >&2; die "tools/pgcluster start failed"; }
        DSN=$("$PGCLUSTER" "$tmp/pg" dsn 2>>"$tmp/pg-start.log") || die "tools/pgcluster dsn failed"
}

# Stops what started recorded (newest first), then the cluster, and removes
# $tmp — kept, its path printed, when KEEP_LOGS is 1 or STATUS (the exit
# status the trap found) is not 0.
bench_teardown() {      # bench_teardown STATUS
        local i
        for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
                stop_pid "${pids[i]}" "${names[i]}" "$STOP_TIMEOUT_S"
        done
        if [[ $pg_started == 1 ]]; then
                "$PGCLUSTER" "$tmp/pg" stop >/dev/null 2>&1 || log "tools/pgcluster stop failed"
        fi
        if [[ -n $tmp ]]; then
                if [[ ${KEEP_LOGS:-0} == 1 || $1 != 0 ]]; then
                        log "logs kept in $tmp"
                else
                        rm -rf "$tmp"
                fi
        fi
}

# arbiterd's REST API at 127.0.0.1:$PORT with $TOKEN.
api() {         # api METHOD PATH [JSON] → body on stdout
        local url="http://127.0.0.1:$PORT$2"
        if [[ $1 == GET ]]; then
                curl -fsS --max-time 5 -H "Authorization: Bearer $TOKEN" "$url"
        else
                curl -fsS --max-time 5 -X "$1" -H "Authorization: Bearer $TOKEN" \
                        -H 'Content-Type: application/json' --data "${3:-{\}}" "$url"
        fi
}

# Crash Pilot rounds (bench_e2e.sh, avr.sh).  Waits for a new window of
# match $MATCH with a face-up card, starting another match with the
# script's own `new_match ARGS...` when it is over; sets VIEW (the match's
# view) and LAST_WINDOW.  Dies after ROUND_TIMEOUT_S without one.
cp_next_window() {      # cp_next_window [NEW_MATCH_ARGS...]
        local m state window i
        for ((i = 0; ; i++)); do
                m=$(api GET "/v1/matches/$MATCH") || die "GET /v1/matches/$MATCH failed"
                state=$(jq -r .state <<<"$m")
                if [[ $state != running ]]; then
                        new_match "$@"
                        continue
                fi
                VIEW=$(jq -c .view <<<"$m")
                window=$(jq -r '.window.id // empty' <<<"$VIEW")
                if [[ -n $window && $window != "$LAST_WINDOW" ]] &&
                   jq -e '.face_up | type == "object"' <<<"$VIEW" >/dev/null; then
                        break
                fi
                ((i < ROUND_TIMEOUT_S * 200)) || die "no new window in match $MATCH"
                sleep 0.005
        done
        LAST_WINDOW=$window
}

# The pad button for a legal call on the face-up card of VIEW (rows 1–6 are
# buttons 0–5, "doesn't fit" is button 6).
cp_pick_button() {      # cp_pick_button VIEW
        jq -r '.face_up as $f
               | [.rows | to_entries[] | select(all(.value[]; .object != $f.object and .colour != $f.colour))
                 | .key] | if length > 0 then .[0] else 6 end' <<<"$1"
}
