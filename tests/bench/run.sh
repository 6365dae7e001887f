#!/usr/bin/env bash
# tests/bench/run.sh BUILD_DIR — every benchmark, as `make bench` runs it.
# Each prints its figures next to a reference measured in the same run;
# benchmarks report, they do not pass or fail on a figure.
set -euo pipefail
build=${1:?usage: tests/bench/run.sh BUILD_DIR}
cd "$(dirname "$0")/../.."

# Every benchmark appends its rows here (tests/bench/report.h); the table
# at the end and build/bench/report.json are made from them.
mkdir -p "$build/bench"
export BENCH_ROWS=$PWD/$build/bench/rows.jsonl
[[ $build == /* ]] && BENCH_ROWS=$build/bench/rows.jsonl
: >"$BENCH_ROWS"

for b in "$build"/tests/bench/bench_*; do
    [[ -x $b ]] || continue
    [[ $(basename "$b") == bench_stamp ]] && continue   # a helper of bench_e2e.sh
    [[ $(basename "$b") == bench_ratings_live ]] && continue    # a helper of ratings.sh
    echo "== $(basename "$b")"
    "$b"
    echo
done
echo "== REST (wrk against arbiterd and nginx)"
tests/bench/rest.sh "$build"
echo
echo "== end to end (pad press → CallJudged on D-Bus and SSE)"
tests/bench/bench_e2e.sh "$build"
echo
echo "== the input lane: inputs stored per second with 8 tables pressing at once (pipeline mode; issue 15)"
tests/bench/lane.sh "$build"
echo
echo "== Crazy Pilot's slap race (the last slap on the pty → PenaltyGiven on D-Bus and SSE; issue 13)"
tests/bench/bench_crazy_race.sh "$build"
echo
echo "== Pitch Fleet's referee reports (a report over REST → its first event on SSE; issue 14)"
tests/bench/bench_pitch_fleet.sh "$build"
echo
echo "== a venue's load (2,000 event streams and slow clients; issue 11)"
tests/bench/load.sh "$build"
echo
echo "== ratings at a million results: a new result's step, a full recompute, the loop meanwhile (issue 12)"
tests/bench/ratings.sh "$build"
echo
echo "== the reference firmware on emulated pads next to arbiter-padsim (issue 16)"
tests/bench/avr.sh "$build"
echo
echo "== a league: three venues on one primary and a streaming replica (issue 17)"
tests/bench/league.sh "$build"
echo
echo "== live fan-out against nginx + nchan (issue 15)"
tests/bench/fanout.sh "$build"
echo
echo "== the report (build/bench/report.json; docs/performance.md says what each figure means)"
tests/bench/report.sh "$BENCH_ROWS" "$(dirname "$BENCH_ROWS")/report.json"
