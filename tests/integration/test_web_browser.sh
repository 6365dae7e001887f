#!/usr/bin/env bash
# tests/integration/test_web_browser.sh — the browser tests of web/ (TAP),
# in headless Chromium driven by Debian's python3-selenium: tests/web/run.py.
# /usr/bin/python3 on purpose: a python3 earlier on PATH (pyenv) lacks
# Debian's selenium.  ARBITER_WEB_SCREENSHOTS=DIR (make screenshots) draws
# the README's pictures into DIR instead of testing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export PYTHONDONTWRITEBYTECODE=1     # leave no __pycache__ in the source tree
if [[ -n ${ARBITER_WEB_SCREENSHOTS:-} ]]; then
    exec /usr/bin/python3 "$root/tests/web/run.py" --screenshots "$ARBITER_WEB_SCREENSHOTS"
fi
exec /usr/bin/python3 "$root/tests/web/run.py"
