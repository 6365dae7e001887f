#!/usr/bin/env bash
# tests/soak/load.sh BUILD_DIR — the venue's load (tests/bench/load.sh) held
# for SOAK_SECONDS: loaded rounds one after the other, each reported next to
# the idle round of the same run, then the worst p99 over all of them; the
# memory line shows whether arbiterd grows over time.
set -euo pipefail
LOAD_S=${SOAK_SECONDS:-600} exec "$(dirname "$0")/../bench/load.sh" "$@"
