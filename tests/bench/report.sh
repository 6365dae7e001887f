#!/usr/bin/env bash
# tests/bench/report.sh ROWS OUT — `make bench`'s report: reads the rows the
# benchmarks wrote (one JSON object a line, tests/bench/report.h), computes
# each ratio and whether its goal is met, writes OUT (build/bench/report.json:
# the run's commit, date and machine, then the rows) and prints the table.
# Exit status 0 whatever the figures: benchmarks report, they do not fail.
set -euo pipefail
rows=${1:?usage: tests/bench/report.sh ROWS OUT}
out=${2:?usage: tests/bench/report.sh ROWS OUT}
cd "$(dirname "$0")/../.."

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=false
[[ -z $(git status --porcelain --untracked-files=no 2>/dev/null) ]] || dirty=true
cpu=$(awk -F': ' '$1 ~ /^model name/ { print $2; exit }' /proc/cpuinfo)

jq -s --arg commit "$commit" --argjson dirty "$dirty" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        --arg cpu "$cpu" --argjson cores "$(nproc)" --arg kernel "$(uname -r)" '
  def ratio: if .arbiter == null or .reference == null then null
             elif .goal.kind == "diff_max" then .arbiter - .reference
             elif .reference == 0 then null
             else .arbiter / .reference end;
  def met: if .goal.kind == "none" then null
           elif .ratio == null then false
           elif .goal.kind == "ratio_max" or .goal.kind == "diff_max" then .ratio <= .goal.value
           else .ratio >= .goal.value end;
  { version: 1, commit: $commit, dirty: $dirty, date: $date,
    machine: { cpu: $cpu, cores: $cores, kernel: $kernel },
    rows: [ .[] | . + { ratio: ratio } | . + { met: met } ],
  } | .summary = { rows: (.rows | length),
                   goals: ([.rows[] | select(.met != null)] | length),
                   met: ([.rows[] | select(.met == true)] | length) }
' "$rows" >"$out.tmp"
mv "$out.tmp" "$out"

# The table: figure | arbiter | reference | ratio | goal | met.  A diff_max
# row's "ratio" column is the difference (arbiter − reference, in its unit).
jq -r '
  def n: if . == null then "-" elif (. | fabs) >= 100 then (. * 10 | round / 10 | tostring)
         elif (. | fabs) >= 1 then (. * 1000 | round / 1000 | tostring)
         else (. * 100000 | round / 100000 | tostring) end;
  def goal: if .goal.kind == "ratio_max" then "ratio <= \(.goal.value)"
            elif .goal.kind == "ratio_min" then "ratio >= \(.goal.value)"
            elif .goal.kind == "diff_max" then "diff <= \(.goal.value) \(.unit)"
            else "-" end;
  ["figure", "unit", "arbiter", "reference", "ratio", "goal", "met"],
  (.rows[] | [.figure, .unit, (.arbiter | n), "\(.reference | n) (\(.reference_name))",
              (if .goal.kind == "diff_max" and .ratio != null then "\(if .ratio >= 0 then "+" else "" end)\(.ratio | n) \(.unit)" else (.ratio | n) end), goal, (if .met == null then "-" elif .met then "yes" else "NO" end)])
  | @tsv' "$out" | column -t -s $'\t'
jq -r '"\(.summary.rows) figures, \(.summary.met) of \(.summary.goals) goals met; commit \(.commit)\(if .dirty then " (with changes)" else "" end); written to '"$out"'"' "$out"
