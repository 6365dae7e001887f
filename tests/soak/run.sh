#!/usr/bin/env bash
# tests/soak/run.sh BUILD_DIR — every long scene, as `make soak` runs them:
# each tests/soak/*.sh but this one, in name order, given BUILD_DIR and
# SOAK_SECONDS (how long its loaded part lasts; default 600).  A scene is a
# script of its own, so scenes are added without touching the others.
# Scenes report as benchmarks do; the exit status says which could not run.
set -uo pipefail
build=${1:?usage: tests/soak/run.sh BUILD_DIR}
cd "$(dirname "$0")/../.."
export SOAK_SECONDS=${SOAK_SECONDS:-600}

failed=()
for scene in tests/soak/*.sh; do
    [[ $(basename "$scene") == run.sh ]] && continue
    [[ -x $scene ]] || continue
    echo "== $(basename "$scene" .sh) ($SOAK_SECONDS s)"
    "$scene" "$build" || failed+=("$scene")
    echo
done
if ((${#failed[@]} > 0)); then
    echo "could not run: ${failed[*]}"
    exit 1
fi
