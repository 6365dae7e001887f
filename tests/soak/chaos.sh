#!/usr/bin/env bash
# tests/soak/chaos.sh BUILD_DIR — the chaos scenes of issue 11 in their long
# version (tests/integration/test_chaos.c; docs/testing.md, "Chaos"): the
# daemon killed (-9) at 100 random moments, PostgreSQL stopped and started 30
# times, the spool's fsync failing 10 times, while matches of every game are
# played by a referee and on pads; each of the three parts stops starting new
# rounds once a third of SOAK_SECONDS has passed.  It runs under tests/run.sh
# (its own PostgreSQL and dbus-daemon) and prints each part's figures and the
# seed that draws its moments again (ARBITER_CHAOS_SEED=N).  Any size may be
# given instead: ARBITER_CHAOS_KILLS, ARBITER_CHAOS_OUTAGES,
# ARBITER_CHAOS_FSYNC_FAILURES.
set -euo pipefail
build=${1:?usage: tests/soak/chaos.sh BUILD_DIR}
cd "$(dirname "$0")/../.."
seconds=${SOAK_SECONDS:-600}
export ARBITER_CHAOS_KILLS=${ARBITER_CHAOS_KILLS:-100}
export ARBITER_CHAOS_OUTAGES=${ARBITER_CHAOS_OUTAGES:-30}
export ARBITER_CHAOS_FSYNC_FAILURES=${ARBITER_CHAOS_FSYNC_FAILURES:-10}
export ARBITER_CHAOS_SECONDS=$((seconds >= 3 ? seconds / 3 : 1))
exec tests/run.sh "$build" test_chaos
