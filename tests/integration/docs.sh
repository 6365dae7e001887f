#!/usr/bin/env bash
# tests/integration/docs.sh — the commands the documents give a newcomer,
# run as written against `make run`'s venue (tools/run-local.sh with the test
# build, the suite's PostgreSQL, a port of its own: venue.bash):
#
#   - each `curl`, `busctl` and `build/arbiterctl` line of the README's blocks
#     (not `make run` and `make test` themselves), one test each;
#   - docs/running-a-tournament.md, every ```sh block in order in one shell,
#     one test per block, the ids captured from the replies as the page does;
#   - no command hides outside a block, where this test would not run it;
#   - and the check itself: a block whose command fails, or whose request
#     answers an HTTP error, fails.
#
# Commands run in the venue's directory (its var/ is make run's var/), with
# localhost:8080 and 127.0.0.1:8080 pointed at the venue; doc-commands.bash
# says what else counts as failing.  Nothing in the checkout is written.

set -euo pipefail

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/venue.bash"
. "$here/doc-commands.bash"

readme="$VENUE_ROOT/README.md"
walkthrough="$VENUE_ROOT/docs/running-a-tournament.md"
dir=$(mktemp -d "$ARBITER_TEST_TMP/docs.XXXXXX")
n=0
failed=0

trap 'venue_stop >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM

# Numbers the PASS/FAIL lines of doc-commands.bash as TAP.
tap() {
    local verdict what
    while IFS=$'\t' read -r verdict what; do
        case $verdict in
        PASS) n=$((n + 1)); echo "ok $n - $what" ;;
        FAIL) n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $what" ;;
        *) echo "$verdict${what:+	$what}" ;;
        esac
    done
}

# The lines of FILE's ```sh blocks that match PATTERN, as "LINE<TAB>text".
block_lines() {
    awk -v pat="$2" '/^```sh[[:space:]]*$/ { inb = 1; next } /^```/ { inb = 0; next }
                     inb && $0 ~ pat { print NR "\t" $0 }' "$1"
}

# Inline code outside the blocks that is a command (`curl …`, `api …`,
# `busctl …`, `build/arbiterctl …`): this test would not run it.  "LINE<TAB>text" for each.
hidden_commands() {
    awk '/^```/ { inb = !inb; next } !inb && /`(curl|api|busctl|build\/arbiterctl) / { print FILENAME ":" NR "\t" $0 }' "$1"
}

venue_start "$dir"
cd "$dir"
# The venue's directory stands for the checkout: its build/ is the test build.
ln -s "$ARBITER_TEST_BUILD" build

# The README's curl and busctl lines, each on its own.
while IFS=$'\t' read -r line cmd; do
    tap < <(doc_run_line "README.md:$line" "$cmd" "$VENUE_LISTEN")
done < <(block_lines "$readme" '^(curl|busctl|build/arbiterctl) ')

# The walkthrough, block after block in one shell.
tap < <(doc_run_blocks "$walkthrough" "$VENUE_LISTEN")

for doc in "$readme" "$walkthrough"; do
    hidden=$(hidden_commands "$doc")
    n=$((n + 1))
    if [[ -z $hidden ]]; then
        echo "ok $n - $(basename "$doc"): every command is in a block, where it runs"
    else
        failed=$((failed + 1))
        echo "not ok $n - $(basename "$doc"): commands outside the blocks, which this test cannot run"
        sed 's/^/# /' <<<"$hidden"
    fi
done

# The check itself: a failing command, an HTTP error.
cat >"$dir/broken.md" <<'EOF'
```sh
curl -s localhost:8080/v1/health
```

```sh
curl -s localhost:8080/v1/no-such-route
```

```sh
false
```
EOF
verdicts=$(doc_run_blocks "$dir/broken.md" "$VENUE_LISTEN" | cut -f1 | grep -v '^#' | tr '\n' ' ')
n=$((n + 1))
if [[ $verdicts == "PASS FAIL " ]]; then
    echo "ok $n - a block whose request answers an HTTP error fails, and the page stops there"
else
    failed=$((failed + 1))
    echo "not ok $n - a broken page gave \"$verdicts\", not \"PASS FAIL \""
fi
printf '%s\n' '```sh' 'false' '```' >"$dir/false.md"
n=$((n + 1))
if [[ $(doc_run_blocks "$dir/false.md" "$VENUE_LISTEN" | cut -f1 | grep -v '^#') == FAIL ]]; then
    echo "ok $n - a block whose command fails fails"
else
    failed=$((failed + 1))
    echo "not ok $n - a failing command did not fail its block"
fi

echo "1..$n"
venue_stop || { echo "# tools/run-local.sh did not stop cleanly"; exit 1; }
((failed == 0))
