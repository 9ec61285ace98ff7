#!/usr/bin/env bash
# Runs device-needing C tests (default: cq qp srq datapath wr_api mt_post_poll) in ONE boot of the rxe VM,
# against Debian's libibverbs and ours, and diffs their untagged output lines.
#   c-tests/vm-diff.sh [TEST...]      results in build/vm-diff/
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/vm-diff
tests=("${@:-cq qp srq datapath wr_api mt_post_poll}")
# shellcheck disable=SC2206
tests=(${tests[*]})
rm -rf "$OUT"; mkdir -p "$OUT"
for t in "${tests[@]}"; do
  cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$ROOT/c-tests" -o "$OUT/$t" "c-tests/$t.c" -libverbs
done
# The host file system is read-only in the guest: results come back on stdout.
cat > "$OUT/run.sh" <<EOS
#!/bin/bash
cd "$OUT"
for t in ${tests[*]}; do
  echo "### BEGIN \$t system"
  CTEST_EXPECT_LIB=/usr/lib/x86_64-linux-gnu/libibverbs.so.1 CTEST_IMPL=system ./\$t 2>&1; echo "### RC \$t system \$?"
  echo "### BEGIN \$t ours"
  CTEST_EXPECT_LIB=$ROOT/build/lib/libibverbs.so.1 CTEST_IMPL=ours LD_LIBRARY_PATH=$ROOT/build/lib ./\$t 2>&1; echo "### RC \$t ours \$?"
done
EOS
chmod +x "$OUT/run.sh"
vm/run.sh --lib debian -- "$OUT/run.sh" > "$OUT/vm.log" 2>&1 || { echo "vm-diff: VM run failed (see $OUT/vm.log)"; exit 1; }
awk -v out="$OUT" '/^### BEGIN /{f=out "/" $3 "." $4 ".out"; printf "" > f; next}
  /^### RC /{print $5 > (out "/" $3 "." $4 ".rc"); f=""; next}
  f!=""{print >> f}' "$OUT/vm.log"
rc=0
for t in "${tests[@]}"; do
  s=$(cat "$OUT/$t.system.rc" 2>/dev/null || echo none); o=$(cat "$OUT/$t.ours.rc" 2>/dev/null || echo none)
  if diff <(grep -v '^\[' "$OUT/$t.system.out") <(grep -v '^\[' "$OUT/$t.ours.out") > "$OUT/$t.diff" && [ "$s" = 0 ] && [ "$o" = 0 ]; then
    echo "PASS $t ($(wc -l < "$OUT/$t.system.out") lines identical to Debian's)"
  else
    echo "FAIL $t (exit system=$s ours=$o)"; head -40 "$OUT/$t.diff"; rc=1
  fi
done
exit $rc
