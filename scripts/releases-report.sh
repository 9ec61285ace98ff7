#!/usr/bin/env bash
# Writes the report of a vm/run-releases.sh run (its results.tsv, run
# directory RUN) as Markdown to OUT: per release, one row per case with each
# library's outcome, then the failures with their reasons.
#
#   scripts/releases-report.sh RUN OUT [SECONDS]
set -euo pipefail
run=$1 out=$2 secs=${3:-}
res=$run/results.tsv
[ -f "$res" ] || { echo "releases-report: no $res" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
{
  echo "# Release programs and tests on our library"
  echo
  echo "\`make vm-test-releases\` run of $(date -u -r "$res" '+%Y-%m-%d %H:%M UTC')${secs:+, ${secs} s}"
  echo "(results: ${run#"$PWD"/}/results.tsv; each case's output and LD_DEBUG trace under ${run#"$PWD"/}/SUITE/LIB/CASE/)."
  echo
  echo "Outcomes: pass; fail (own passed and this library did not, or own failed a case it must pass);"
  echo "own-fail (own failed where the release cannot run the case on rxe) and, then, same (this library"
  echo "failed with own's exit statuses) or differs (failed otherwise, counted as a failure); xfail"
  echo "(this library failed a case vm/releases-expected-failures.txt lists, with its reason) and xpass"
  echo "(listed but passed, counted as a failure)."
  for suite in $(cut -f1 "$res" | awk '!seen[$0]++'); do
    echo
    echo "## $suite"
    echo
    awk -F'\t' -v s="$suite" '
      $1 != s { next }
      $3 ~ /^pyverbs\// { next }
      { if (!($3 in row)) order[n++] = $3
        if (!($2 in col)) { cols[m++] = $2; col[$2] = 1 }
        row[$3] = 1; r[$3, $2] = $4 " (" $5 " s)" }
      END {
        h = "| case |"; l = "|---|"
        for (j = 0; j < m; j++) { h = h " " cols[j] " |"; l = l "---|" }
        print h; print l
        for (i = 0; i < n; i++) {
          line = "| " order[i] " |"
          for (j = 0; j < m; j++) line = line " " ((order[i], cols[j]) in r ? r[order[i], cols[j]] : "-") " |"
          print line
        }
      }' "$res"
    echo
    awk -F'\t' -v s="$suite" '$1 == s { c[$4]++ } END { for (k in c) printf "%s %d; ", k, c[k]; print "" }' "$res" |
      sed 's/; $//; s/^/Totals: /'
    awk -F'\t' -v s="$suite" '$1 == s && $3 == "pyverbs" { printf "\npyverbs on %s: %s\n", $2, $6 }' "$res"
    # the C tests built against the release's headers, per library
    awk -F'\t' -v s="$suite" '$1 == s && $3 ~ /^c-tests\// {
        if (!($2 in seen)) { seen[$2] = 1; libs[n++] = $2 } c[$2, $4]++; t[$2] += $5 }
      END { for (i = 0; i < n; i++) { l = ""
              for (k in c) { split(k, p, SUBSEP); if (p[1] == libs[i]) l = l (l ? ", " : "") c[k] " " p[2] }
              printf "\nC tests on %s: %s (%d s)\n", libs[i], l, t[libs[i]] } }' "$res"
    if awk -F'\t' -v s="$suite" '$1 == s && $4 != "pass" { f = 1 } END { exit !f }' "$res"; then
      echo
      echo "Not passed:"
      echo
      awk -F'\t' -v s="$suite" '$1 == s && $4 != "pass" { printf "- %s %s: %s — %s\n", $2, $3, $4, $6 }' "$res"
    fi
  done
} >"$out"
echo "releases-report: $out"
