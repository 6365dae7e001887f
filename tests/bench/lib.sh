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
