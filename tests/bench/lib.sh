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
