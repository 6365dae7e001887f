# tests/integration/doc-commands.bash — running the commands of a document
# as written (sourced by tests/integration/docs.sh; not a test itself).
#
# doc_run_blocks DOC LISTEN runs every ```sh block of the Markdown file DOC,
# in order, in one bash (so that a variable a block sets is there for the
# next, as in a person's terminal), in the current directory, with "8080"
# addresses (localhost:8080, 127.0.0.1:8080) pointed at LISTEN, and so
# arbiterctl's default address too (ARBITER_URL).
# doc_run_line does the same for one command line.  Each prints one result
# line per block, "PASS<TAB>what" or "FAIL<TAB>what", and "# " lines saying
# why a block failed; the caller numbers them as TAP.
#
# What counts as failing, besides a command's non-zero status (bash runs with
# errexit, nounset and pipefail):
#   - curl gets --fail-with-body: an HTTP error status is exit status 22,
#     with the problem the daemon sent in the output shown;
#   - a live stream (curl -N) must open — arbiterd's first line is "retry:"
#     — and is then stopped, as a person stops watching with Ctrl-C;
#   - every curl has a hang guard (--max-time).
# The failing command is named with its line in DOC.

DOC_CURL_MAX_S=30
DOC_STREAM_OPEN_S=10

# The shell every block runs in: the options and the curl above.
doc_prelude() {
    cat <<EOF
set -euo pipefail -T
__doc=\$1
__log=\$2
__blk=
__line=0
__cmd=
exec 3>&1 >>"\$__log" 2>&1
curl() {
    local a live=
    for a in "\$@"; do
        case \$a in --no-buffer) live=1 ;; --*) ;; -*N*) live=1 ;; esac
    done
    if [[ -z \$live ]]; then
        command curl --fail-with-body --max-time $DOC_CURL_MAX_S "\$@"
        return
    fi
    local fd pid line rc=0 deadline=\$((SECONDS + $DOC_STREAM_OPEN_S))
    exec {fd}< <(exec curl --fail-with-body "\$@")
    pid=\$!
    while ((SECONDS <= deadline)) && IFS= read -r -t $DOC_STREAM_OPEN_S -u "\$fd" line; do
        printf '%s\n' "\$line"
        if [[ \$line == retry:* ]]; then
            kill "\$pid" 2>/dev/null || true
            exec {fd}<&-
            wait "\$pid" 2>/dev/null || true
            return 0
        fi
    done
    exec {fd}<&-
    if kill -0 "\$pid" 2>/dev/null; then
        echo "the stream did not open within $DOC_STREAM_OPEN_S s"
        kill "\$pid" 2>/dev/null || true
        wait "\$pid" 2>/dev/null || true
        return 1
    fi
    wait "\$pid" || rc=\$?
    return \$((rc ? rc : 1))
}
# the top-level command that runs (not those inside functions)
trap '[[ \${FUNCNAME[0]:-} == "" ]] && [[ \$BASH_COMMAND != __* ]] && __line=\$LINENO && __cmd=\$BASH_COMMAND' DEBUG
__begin() { __blk=\$1; __from=\$2; __title=\$3; }
# "doc lines 12-20", or the doc's own name for a line without a number
__where() { if ((__from)); then printf '%s lines %d-%s' "\$__doc" "\$__from" "\$1"; else printf '%s' "\$__doc"; fi; }
__end() { printf 'PASS\t%s: %s\n' "\$(__where "\$1")" "\$__title" >&3; __blk=; }
__on_exit() {
    local rc=\$?
    [[ -n \$__blk ]] || return 0
    printf 'FAIL\t%s: %s\n' "\$(__where "")" "\$__title" >&3
    printf '# line %d: %s\n# exit status %d%s; its output, last lines:\n' "\$__line" "\$__cmd" "\$rc" \\
        "\$( ((rc == 22)) && echo ' (curl: an HTTP error status)')" >&3
    tail -n 15 "\$__log" | sed 's/^/#   /' >&3
}
trap __on_exit EXIT
EOF
}

# doc_script DOC LISTEN: DOC with every line outside ```sh blocks blank, so
# that line numbers stay DOC's, and each block between __begin and __end.
doc_script() {
    local doc=$1 listen=$2 line n=0 in=0 blk=0 heading=""
    while IFS= read -r line || [[ -n $line ]]; do
        n=$((n + 1))
        if ((!in)) && [[ $line =~ ^\`\`\`sh[[:space:]]*$ ]]; then
            in=1
            blk=$((blk + 1))
            printf '__begin %d %d %q\n' "$blk" "$n" "$heading"
        elif ((in)) && [[ $line =~ ^\`\`\`[[:space:]]*$ ]]; then
            in=0
            printf '__end %d\n' "$n"
        elif ((in)); then
            line=${line//localhost:8080/$listen}
            printf '%s\n' "${line//127.0.0.1:8080/$listen}"
        else
            [[ $line =~ ^#+[[:space:]]+(.*)$ ]] && heading=${BASH_REMATCH[1]}
            printf '\n'
        fi
    done <"$doc"
}

# doc_run_blocks DOC LISTEN: as the header says.
doc_run_blocks() {
    local doc=$1 listen=$2 tmp
    tmp=$(mktemp -d "${ARBITER_TEST_TMP:-/tmp}/doc.XXXXXX")
    doc_prelude >"$tmp/prelude.sh"
    doc_script "$doc" "$listen" >"$tmp/doc.sh"
    ARBITER_URL="http://$listen" bash -c 'source "$1" "$2" "$3"; source "$4"' doc "$tmp/prelude.sh" \
        "$(basename "$doc")" "$tmp/log" "$tmp/doc.sh" </dev/null || true
    rm -rf "$tmp"
}

# doc_run_line WHAT COMMAND LISTEN: one command line, in a bash of its own.
doc_run_line() {
    local what=$1 cmd=$2 listen=$3 tmp
    tmp=$(mktemp -d "${ARBITER_TEST_TMP:-/tmp}/doc.XXXXXX")
    doc_prelude >"$tmp/prelude.sh"
    cmd=${cmd//localhost:8080/$listen}
    printf '__begin 1 0 %q\n%s\n__end 0\n' "$cmd" "${cmd//127.0.0.1:8080/$listen}" >"$tmp/line.sh"
    ARBITER_URL="http://$listen" bash -c 'source "$1" "$2" "$3"; source "$4"' doc "$tmp/prelude.sh" "$what" \
        "$tmp/log" "$tmp/line.sh" </dev/null || true
    rm -rf "$tmp"
}
