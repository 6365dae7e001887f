#!/usr/bin/env bash
# tests/integration/bench-report.sh — `make bench`'s report machinery
# (tests/bench/report.h's row, report_row in tests/bench/lib.sh,
# tests/bench/report.sh): rows written, ratios and differences computed,
# each goal met or not, a figure that could not be measured never met, and a
# bad goal refused.  TAP.  The figures themselves are make bench's, not this.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=$(mktemp -d "${ARBITER_TEST_TMP:-/tmp}/bench-report.XXXXXX")
trap 'rm -rf "$dir"' EXIT
n=0

check() {       # check NAME COMMAND...
        n=$((n + 1))
        if "${@:2}" >"$dir/out" 2>&1; then
                echo "ok $n - $1"
        else
                echo "not ok $n - $1"
                sed 's/^/# /' "$dir/out"
        fi
}

rows=$dir/rows.jsonl
(
        export BENCH_ROWS=$rows
        BENCH_NAME=bench-report
        . "$root/tests/bench/lib.sh"
        report_row a.latency "a latency, p99" ms 1.5 3 "nginx" ratio_max 1
        report_row b.latency "a slower latency, p99" ms 4.5 3 "nginx" ratio_max 1
        report_row c.rate "a rate" /s 2000 1000 "naive" ratio_min 1
        report_row d.share "a share over a floor" ms 2.25 2 "psql" diff_max 0.5
        report_row e.share "a larger share" ms 3 2 "psql" diff_max 0.5
        report_row f.missing "not measured" ms - 2 "psql" ratio_max 1
        report_row g.info "for information" KiB 3 4 "nginx" none
)
mkdir "$dir/unset"
(cd "$dir/unset" && unset BENCH_ROWS && BENCH_NAME=bench-report && . "$root/tests/bench/lib.sh" &&
 report_row x "no file" ms 1 1 ref ratio_max 1)
unset_status=$?

check "report_row writes one JSON line a row" test "$(jq -c . "$rows" | wc -l)" = 7
check "report_row writes nothing without BENCH_ROWS, and succeeds" \
        bash -c "[[ $unset_status == 0 && -z \$(ls -A '$dir/unset') ]]"
check "report_row refuses an unknown goal kind" \
        bash -c '! (BENCH_ROWS='"$dir"'/bad.jsonl; BENCH_NAME=t; . '"$root"'/tests/bench/lib.sh;
                    report_row z z ms 1 1 ref faster 1) && [[ ! -s '"$dir"'/bad.jsonl ]]'
check "report.sh prints the table and exits 0 whatever the figures" \
        bash -c "'$root/tests/bench/report.sh' '$rows' '$dir/report.json' >'$dir/table' &&
                 grep -q '7 figures, 3 of 6 goals met' '$dir/table' && grep -q 'a latency, p99' '$dir/table'"

met() { jq -e --arg id "$1" --argjson m "$2" '.rows[] | select(.id == $id) | .met == $m' "$dir/report.json" >/dev/null; }
ratio() { jq -e --arg id "$1" --argjson r "$2" '.rows[] | select(.id == $id) | (.ratio - $r | fabs) < 1e-9' \
                "$dir/report.json" >/dev/null; }
check "ratio_max: 1.5 against 3 is 0.5, met" bash -c "$(declare -f met ratio); dir='$dir'; ratio a.latency 0.5 && met a.latency true"
check "ratio_max: 4.5 against 3 is 1.5, not met" bash -c "$(declare -f met ratio); dir='$dir'; ratio b.latency 1.5 && met b.latency false"
check "ratio_min: 2000 against 1000 is 2, met" bash -c "$(declare -f met ratio); dir='$dir'; ratio c.rate 2 && met c.rate true"
check "diff_max: 2.25 over 2 is 0.25, met" bash -c "$(declare -f met ratio); dir='$dir'; ratio d.share 0.25 && met d.share true"
check "diff_max: 3 over 2 is 1, not met" bash -c "$(declare -f met ratio); dir='$dir'; ratio e.share 1 && met e.share false"
check "a figure not measured has no ratio and is not met" \
        jq -e '.rows[] | select(.id == "f.missing") | .arbiter == null and .ratio == null and .met == false' "$dir/report.json"
check "a row without a goal is neither met nor not" \
        jq -e '.rows[] | select(.id == "g.info") | .met == null and .ratio == 0.75' "$dir/report.json"
check "report.json says the run: version, commit, date, machine and the summary" \
        jq -e '.version == 1 and (.commit | length) > 0 and (.date | test("^[0-9]{4}-")) and .machine.cores >= 1
               and .summary == {rows: 7, goals: 6, met: 3}' "$dir/report.json"
