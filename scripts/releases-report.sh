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
  echo
  echo "## Summary"
  echo
  # rows of results.tsv per release and library, by outcome ("-": the
  # C tests that did not build); each count is
  #   awk -F'\t' '\$1 == SUITE && \$2 == LIB { print \$4 }' results.tsv | sort | uniq -c
  awk -F'\t' '
    { if (!(($1, $2) in seen)) { seen[$1, $2] = 1; key[n++] = $1 SUBSEP $2 }
      c[$1, $2, $4]++; rows[$1, $2]++; o[$4] = 1 }
    END {
      split("pass fail own-fail same differs xfail xpass n/a", order, " ")
      h = "| release | library | rows |"; l = "|---|---|---|"
      for (i = 1; i <= 8; i++) { h = h " " order[i] " |"; l = l "---|" }
      print h; print l
      for (k = 0; k < n; k++) {
        split(key[k], p, SUBSEP); line = "| " p[1] " | " p[2] " | " rows[p[1], p[2]] " |"
        for (i = 1; i <= 8; i++) line = line " " ((p[1], p[2], order[i]) in c ? c[p[1], p[2], order[i]] : 0) " |"
        print line
      }
    }' "$res"
  echo
  echo "A failure is a row fail, differs or xpass; the run passes with none."
  echo "pyverbs (one row per library; tests own passes that another library"
  echo "fails are rows pyverbs/ID):"
  echo
  awk -F'\t' '$3 == "pyverbs" { printf "- %s %s: %s: %s\n", $1, $2, $4, $6 }' "$res"
  if [ -f "$run/stages.tsv" ]; then
    echo
    echo "Stage times (\"-\": on the host; the rest in the VM; stages.tsv):"
    echo
    echo "| release | stage | seconds |"
    echo "|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$run/stages.tsv"
  fi
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
