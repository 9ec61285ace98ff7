#!/usr/bin/env bash
# `make vm-test`: one boot of the Soft-RoCE VM runs the real client programs
# (ibverbs-utils, perftest, rdmacm-utils) and the project's C tests (c-tests/*.c)
# against Debian's libibverbs and against ours (LD_LIBRARY_PATH and LD_PRELOAD),
# then classifies every case:
#   PASS   passed                        FAIL   failed, not expected to
#   XFAIL  failed, listed in vm/expected-failures.txt (with the reason)
#   XPASS  passed but listed there: counts as a failure (keep the list honest)
# Exit status 0 when nothing FAILed or XPASSed. Logs: vm/out/vm-test/.
# Settings: VM_TEST_LIBS="debian ours preload plugin", VM_TEST_ONLY=REGEX (case names),
# VM_KERNEL=stable|backports, VM_TIMEOUT (whole boot, default 1800 s),
# VM_TEST_JOBS (1: one case at a time; default 2: the client programs and the
# C tests as two streams, see vm/guest/tests.sh).
set -euo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-1800}
. "$(dirname "$0")/lib.sh"
XF=$VM_DIR/expected-failures.txt

[ -e "$OUR_LIB" ] || vm_die "$OUR_LIB is missing: run 'make' first"
t_start=$(date +%s)
vm_prepare

run=$VM_OUT/${VM_RESULTS_NAME:-vm-test}; [ "$VM_KERNEL" = stable ] || run=$run-$VM_KERNEL
rm -rf "$run"; mkdir -p "$run/c-tests"; chmod 755 "$run"

# The project's C tests, built like any client program: against Debian's
# headers and -libverbs, so that at run time the library under test is chosen
# by LD_LIBRARY_PATH / LD_PRELOAD only. A test that does not build is a FAIL.
: > "$run/build-failures.tsv"
shopt -s nullglob
for c in "$REPO"/c-tests/*.c; do
  n=$(basename "$c" .c)
  [ -z "${VM_TEST_ONLY:-}" ] || [[ c-tests/$n =~ $VM_TEST_ONLY ]] || continue
  # shellcheck disable=SC2086
  if ! cc -std=gnu11 -O1 -g -Wall -I"$REPO/c-tests" ${VM_CTESTS_CFLAGS:-} -o "$run/c-tests/$n" "$c" -libverbs -lpthread > "$run/c-tests/$n.build.log" 2>&1; then
    printf 'build\tc-tests/%s\tfail\t0\tdoes not compile: %s\n' "$n" "$(grep -m1 error "$run/c-tests/$n.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
  fi
done
# rdma-core 64's API (c-tests/v64/*.c) and the seed-page test, against our
# header (the only one with 64's API), linked with our library's symbols.
mkdir -p "$run/c-tests-64"
for c in "$REPO"/c-tests/v64/*.c "$REPO"/c-tests/seeds.c; do
  n=$(basename "$c" .c); [ "$n" = seeds ] && n=seeds-64hdr
  [ -z "${VM_TEST_ONLY:-}" ] || [[ c-tests-64/$n =~ $VM_TEST_ONLY ]] || continue
  # shellcheck disable=SC2086
  if ! cc -std=gnu11 -O1 -g -Wall -DCTEST_OUR_HEADER -I"$REPO/c-tests" -I"$REPO/include" ${VM_CTESTS_CFLAGS:-} -o "$run/c-tests-64/$n" "$c" -L"$REPO/build/lib" -libverbs -lpthread > "$run/c-tests-64/$n.build.log" 2>&1; then
    printf 'build\tc-tests-64/%s\tfail\t0\tdoes not compile: %s\n' "$n" "$(grep -m1 error "$run/c-tests-64/$n.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
  fi
done
shopt -u nullglob
# bench/ibv_bench.c for the bench-smoke case (see vm/guest/tests.sh), built the same way.
if [ -z "${VM_TEST_ONLY:-}" ] || [[ bench-smoke =~ $VM_TEST_ONLY ]]; then
  cc -std=gnu11 -O2 -g -Wall -o "$run/ibv_bench" "$REPO/bench/ibv_bench.c" -libverbs > "$run/ibv_bench.build.log" 2>&1 ||
    printf 'build\tbench-smoke\tfail\t0\tdoes not compile: %s\n' "$(grep -m1 error "$run/ibv_bench.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
fi

{
  for v in VM_TEST_LIBS VM_TEST_ONLY VM_TEST_SKIP VM_TEST_MIXED VM_TEST_JOBS VM_CASE_TIMEOUT STRESS_THREADS STRESS_OPS STRESS_ROUNDS ONE_SLOT_ROUNDS ONE_SLOT_ITERS BADINPUT_ONLY BADINPUT_EVERY ASAN_OPTIONS LSAN_OPTIONS; do
    [ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
  done
  echo "exec bash '$REPO/vm/guest/tests.sh'"
} > "$run/cmd.sh"
echo "$REPO" > "$run/cwd"
echo "vm-test: booting the VM (kernel $VM_KVER, TCG, ${VM_SMP} CPUs); logs in ${run#$REPO/}/"
set +e
VM_QUIET=${VM_QUIET:-0} vm_boot "$run"; brc=$?
set -e
boot_secs=$VM_ELAPSED

cat "$run/build-failures.tsv" >> "$run/results.tsv" 2>/dev/null || true

# expected-failures.txt: "LIB/NAME-GLOB  reason" per line, # comments.
xf_reason() { # LIB NAME -> reason, or nothing
  local pat reason
  while read -r pat reason; do
    [ -z "$pat" ] || [[ $pat == \#* ]] && continue
    # shellcheck disable=SC2053
    if [[ "$1/$2" == $pat ]]; then echo "${reason:-listed}"; return 0; fi
  done < "$XF"
  return 0
}

pass=0 fail=0 xfail=0 xpass=0
: > "$run/summary.txt"
{
  printf '%-6s %-8s %-26s %6s  %s\n' RESULT LIB CASE SECS DETAIL
  while IFS=$'\t' read -r lib name raw secs detail; do
    reason=$(xf_reason "$lib" "$name")
    if [ "$raw" = pass ]; then
      if [ -n "$reason" ]; then res=XPASS; xpass=$((xpass + 1)); detail="passes but is listed as expected failure ($reason): remove it from vm/expected-failures.txt"
      else res=PASS; pass=$((pass + 1)); fi
    else
      if [ -n "$reason" ]; then res=XFAIL; xfail=$((xfail + 1))
      else res=FAIL; fail=$((fail + 1)); fi
    fi
    printf '%-6s %-8s %-26s %6s  %s\n' "$res" "$lib" "$name" "$secs" "$detail" | cut -c1-220
  done < "$run/results.tsv"
  if [ -n "$(awk '$1 ~ /^(ours|preload|build)\// {print}' "$XF")" ]; then
    echo; echo "Expected failures (vm/expected-failures.txt):"
    grep -v '^#' "$XF" | grep -v '^\s*$' | sed 's/^/  /'
  fi
  echo "$pass $fail $xfail $xpass" > "$run/counts"
} > "$run/summary.txt"
read -r pass fail xfail xpass < "$run/counts"
echo
cat "$run/summary.txt"
echo

if [ "$brc" != 0 ]; then
  echo "vm-test: the VM run did not complete (status $brc; see ${run#$REPO/}/console.log)"
  fail=$((fail + 1))
fi
# Debian's library must pass everything: that is what proves the harness.
if ! grep -q $'^debian\t' "$run/results.tsv" 2>/dev/null && [[ "${VM_TEST_LIBS:-debian}" == *debian* ]]; then
  echo "vm-test: no Debian reference results"; fail=$((fail + 1))
fi
total=$(( $(date +%s) - t_start ))
echo "vm-test: kernel $VM_KVER, VM up ${boot_secs}s, total ${total}s"
echo "vm-test: $xfail xfailed (expected failures), $xpass xpassed (listed but passing: counted as failed)"
echo "vm-test: $pass passed, $((fail + xpass)) failed"
[ $((fail + xpass)) = 0 ]
