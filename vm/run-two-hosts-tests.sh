#!/usr/bin/env bash
# `make vm-test-two-hosts-short` / `make vm-test-two-hosts`: two guests joined
# by a link (vm/lib.sh's vm_boot_two) run the client programs across it, the
# server on guest a (192.168.77.1) and the client on guest b (192.168.77.2),
# as ours<->ours, debian<->debian and both mixed pairs, and the link-down case
# (vm/guest/rc_linkdown.c). Every process proves which library it loaded
# (LD_DEBUG=libs); Debian's pairs must pass, and so must ours: a case Debian's
# passes and ours fails is a failure. Exit status 0 when every case passed.
# Results: vm/out/vm-test-two-hosts[-short]/ (summary.txt, results.tsv,
# shared/cases/LIB/CASE/, a/console.log and b/console.log).
# Settings: TWO_HOSTS_SUITE=short|full|bench (vm/run-two-hosts-bench.sh),
# TWO_HOSTS_MODES ("SERVER:CLIENT ..."),
# VM_TEST_ONLY=REGEX, VM_CASE_TIMEOUT (per process, default 120 s),
# VM_TIMEOUT (each boot, default 1200 s short, 3600 s full), VM_KERNEL,
# VM_RESULTS_NAME (results directory name under vm/out/), TWO_HOSTS_TRACE
# (vm/guest/two-hosts.sh: the kernel's CM trace events of each case),
# TWO_HOSTS_STALL_N (rc_stall's messages), TWO_HOSTS_UP_LIMIT and
# VM_PEER_GRACE (giving up on a guest gone), VM_APPEND_A / VM_APPEND_B
# (vm/lib.sh: kernel arguments of one guest; rdinit=/none fails its boot).
# KDEF results (rc_stall: the known kernel defect) are counted apart.
# (one block, read whole before it runs: editing the script meanwhile is safe)
{
set -euo pipefail
SUITE=${TWO_HOSTS_SUITE:-short}
VM_TIMEOUT=${VM_TIMEOUT:-$([ "$SUITE" = short ] && echo 1200 || echo 3600)}
. "$(dirname "$0")/lib.sh"

[ -e "$OUR_LIB" ] || vm_die "$OUR_LIB is missing: run 'make' first"
t_start=$(date +%s)
vm_prepare
run=$VM_OUT/${VM_RESULTS_NAME:-vm-test-two-hosts}; [ "$SUITE" = short ] && run=$run-short
[ "$VM_KERNEL" = stable ] || run=$run-$VM_KERNEL
rm -rf "$run"; mkdir -p "$run/shared/bin"; chmod 755 "$run"
: > "$run/build-failures.tsv"
cc -std=gnu11 -O1 -g -Wall -o "$run/shared/bin/rc_linkdown" "$VM_DIR/guest/rc_linkdown.c" -libverbs \
   > "$run/rc_linkdown.build.log" 2>&1 ||
  printf 'build\trc_linkdown\tfail\t0\tdoes not compile: %s\n' "$(grep -m1 error "$run/rc_linkdown.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
cc -std=gnu11 -O2 -g -Wall -o "$run/shared/bin/rc_bench" "$VM_DIR/guest/rc_bench.c" -libverbs \
   > "$run/rc_bench.build.log" 2>&1 ||
  printf 'build\trc_bench\tfail\t0\tdoes not compile: %s\n' "$(grep -m1 error "$run/rc_bench.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
cc -std=gnu11 -O1 -g -Wall -o "$run/shared/bin/rc_peerkill" "$VM_DIR/guest/rc_peerkill.c" -libverbs -lrdmacm \
   > "$run/rc_peerkill.build.log" 2>&1 ||
  printf 'build\trc_peerkill\tfail\t0\tdoes not compile: %s\n' "$(grep -m1 error "$run/rc_peerkill.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
# the MPI job (vm/guest/mpi_pingpong.c), with Debian's Open MPI wrapper
if command -v mpicc >/dev/null; then
  mpicc -O1 -g -Wall -o "$run/shared/bin/mpi_pingpong" "$VM_DIR/guest/mpi_pingpong.c" > "$run/mpi_pingpong.build.log" 2>&1 ||
    printf 'build\tmpi_pingpong\tfail\t0\tdoes not compile: %s\n' "$(grep -m1 error "$run/mpi_pingpong.build.log" | cut -c1-150)" >> "$run/build-failures.tsv"
fi
# (a copy: bash reads its script as it goes, and the tree may change meanwhile)
cp "$VM_DIR/guest/two-hosts.sh" "$run/two-hosts.sh"
for side in a b; do
  mkdir -p "$run/$side"; echo "$REPO" > "$run/$side/cwd"
  {
    for v in TWO_HOSTS_SUITE TWO_HOSTS_MODES VM_TEST_ONLY VM_CASE_TIMEOUT MPI_LIBS TWO_HOSTS_NETEM TWO_HOSTS_MTU TWO_HOSTS_TRACE TWO_HOSTS_TRACE_EVENTS TWO_HOSTS_TRACE_COMM TWO_HOSTS_STALL_N TWO_HOSTS_UP_LIMIT \
             BENCH_ROUNDS BENCH_RT_N BENCH_WBW_N BENCH_CG_RT_N BENCH_CG_WBW_N; do
      [ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
    done
    echo "exec bash '$run/two-hosts.sh'"
  } > "$run/$side/cmd.sh"
done
echo "vm-test-two-hosts: booting two VMs (kernel $VM_KVER, TCG, ${VM_SMP_TWO:-1} CPU each), suite $SUITE; logs in ${run#$REPO/}/"
set +e
vm_stall_b "$run" & stall_pid=$!   # (case rc_stall)
VM_STREAM_A=1 vm_boot_two "$run"
kill "$stall_pid" 2>/dev/null; wait "$stall_pid" 2>/dev/null
set -e

cat "$run/build-failures.tsv" "$run/shared/results.tsv" > "$run/results.tsv" 2>/dev/null || true
pass=$(awk -F'\t' '$3 == "pass"' "$run/results.tsv" | wc -l)
kdef=$(awk -F'\t' '$3 == "kdefect"' "$run/results.tsv" | wc -l)
fail=$(awk -F'\t' '$3 != "pass" && $3 != "kdefect"' "$run/results.tsv" | wc -l)
{
  printf '%-6s %-8s %-40s %6s  %s\n' RESULT LIB CASE SECS DETAIL
  awk -F'\t' '{ printf "%-6s %-8s %-40s %6s  %s\n", ($3 == "pass" ? "PASS" : $3 == "kdefect" ? "KDEF" : "FAIL"), $1, $2, $4, $5 }' "$run/results.tsv" | cut -c1-220
  echo
  for f in "$run"/shared/cases/*/rc_linkdown*/server.out "$run"/shared/cases/*/rc_linkdown/*/server.out \
           "$run"/shared/cases/*/rc_mtu_retry*/server.out "$run"/shared/cases/*/rc_mtu_retry/*/server.out; do
    [ -e "$f" ] || continue
    echo "${f#$run/shared/cases/}:"; grep -E '^(phase|FAIL|ibv_post_send)' "$f" | sed 's/^/  /'
  done
  for f in "$run"/shared/cases/*/rc_peer*/server.out "$run"/shared/cases/*/rc_peer*/*/server.out \
           "$run"/shared/cases/*/rc_netem*/server.out "$run"/shared/cases/*/rc_netem/*/server.out \
           "$run"/shared/cases/*/rc_stall/server.out; do
    [ -e "$f" ] || continue
    echo "${f#$run/shared/cases/}:"; grep -E '^(stream|events|TIMEWAIT|rdma_disconnect|FAIL|ibv_post_send)' "$f" | sed 's/^/  /'
  done
  for f in "$run"/shared/cases/*/qperf/held.a "$run"/shared/cases/*/qperf/*/held.a; do
    [ -e "$f" ] || continue
    echo "${f#$run/shared/cases/}: qperf's early REQs (no-listener rejects held on a): $(cat "$f")"
  done
  for f in "$run"/shared/cases/*/rc_mtu*/outcome "$run"/shared/cases/*/rc_mtu/*/outcome; do
    [ -e "$f" ] || continue
    echo "${f#$run/shared/cases/}: $(cat "$f"); b: $(tr '\n' ' ' < "${f%/outcome}/mtu.b")"
  done
} > "$run/summary.txt"
echo; cat "$run/summary.txt"; echo
if [ "$VM_RC_A" != 0 ] || [ "$VM_RC_B" != 0 ]; then
  echo "vm-test-two-hosts: a VM run did not complete (a: $VM_RC_A, b: $VM_RC_B; see ${run#$REPO/}/{a,b}/console.log)"
  for s in a b; do
    case $(cat "$run/$s/boot.rc" 2>/dev/null) in
      124) echo "vm-test-two-hosts: guest $s timed out (VM_TIMEOUT ${VM_TIMEOUT}s)" ;;
      125) echo "vm-test-two-hosts: guest $s never ran its script (did not boot, or its setup failed): $(grep -m1 -E 'Kernel panic|vm-init:' "$run/$s/console.log" "$run/$s/output" 2>/dev/null | cut -d: -f2- | cut -c1-120)" ;;
      3) echo "vm-test-two-hosts: guest $s gave up: $(grep -m1 'giving up' "$run/$s/output" | cut -c12-200)" ;;
      130) echo "vm-test-two-hosts: guest $s was stopped by the host, its peer gone" ;;
    esac
  done
  fail=$((fail + 1))
fi
if [ "$VM_RC_A$VM_RC_B" = 00 ] && ! grep -q $'^debian\t' "$run/results.tsv" 2>/dev/null &&
   [[ "${TWO_HOSTS_MODES:-debian:debian}" == *debian:debian* ]]; then
  echo "vm-test-two-hosts: no Debian reference results"; fail=$((fail + 1))
fi
total=$(( $(date +%s) - t_start ))
echo "vm-test-two-hosts: kernel $VM_KVER, VMs up ${VM_ELAPSED}s, total ${total}s"
[ "$kdef" = 0 ] || echo "vm-test-two-hosts: $kdef showed the known kernel defect (KDEF: vm/README.md, rc_stall)"
echo "vm-test-two-hosts: $pass passed, $fail failed"
[ "$fail" = 0 ]; exit
}
