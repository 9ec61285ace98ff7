#!/usr/bin/env bash
# `make bench`: benchmarks our libibverbs against Debian's rdma-core 44
# libibverbs in one boot of the Soft-RoCE VM, and writes BENCHMARKS.md.
#
#   bench/run.sh            (make bench)
#
# ibv_bench (bench/ibv_bench.c) is built once, against Debian's header and
# -libverbs; in the VM bench/guest.sh runs it and perftest's ib_write_bw and
# ib_send_lat round by round, alternating the libraries (Debian's, then ours
# by LD_LIBRARY_PATH=build/lib; the order flips every round), then once more per
# library under callgrind for instructions per operation. A third library,
# `plugin`, is ours hosting Debian's own C rxe plugin (IBV_PROVIDERS=plugin):
# its rows compare to rdma-core in a section of their own. bench/report.py
# turns the raw results (vm/out/bench/raw.tsv) into BENCHMARKS.md.
#
# Settings: BENCH_ROUNDS (default 5), BENCH_SCALE (iterations factor, default 1),
# BENCH_PERF_N (perftest iterations, default 2000), BENCH_CG_SCALE (iterations
# factor of the callgrind pass, default 0.05), BENCH_OUT (default
# BENCHMARKS.md), BENCH_OURS_LIBDIR (the directory of the libibverbs.so.1 to
# measure as ours, default build/lib; it must be under the repository, which
# the VM sees), BENCH_LIBS (default "debian ours plugin"), VM_TIMEOUT (whole
# boot, default 3600 s).
set -euo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-3600}
. "$(dirname "$0")/../vm/lib.sh"

[ -e "$OUR_LIB" ] || vm_die "$OUR_LIB is missing: run 'make' first"
vm_prepare
run=$VM_OUT/bench
rm -rf "$run"; mkdir -p "$run"; chmod 755 "$run"

cc -std=gnu11 -O2 -g -Wall -o "$run/ibv_bench" "$REPO/bench/ibv_bench.c" -libverbs

{
  for v in BENCH_LIBS BENCH_ROUNDS BENCH_SCALE BENCH_PERF_N BENCH_TIMEOUT BENCH_OURS_LIBDIR BENCH_CG_SCALE BENCH_CG_TIMEOUT; do
    [ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
  done
  echo "exec bash '$REPO/bench/guest.sh'"
} > "$run/cmd.sh"
echo "$REPO" > "$run/cwd"

{
  echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "host_cpus=$(nproc)"
  echo "host_kernel=$(uname -r)"
  echo "qemu=$(qemu-system-x86_64 --version | head -1)"
  echo "vm=qemu TCG (no KVM), ${VM_SMP} vCPUs, ${VM_MEM} memory"
  echo "debian_libibverbs=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null)"
  echo "perftest=$(dpkg-query -W -f '${Version}' perftest 2>/dev/null)"
  echo "ours=${BENCH_OURS_DESC:-$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)}"
  echo "date=$(date -u +%Y-%m-%d)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$run/host-info"

echo "bench: booting the VM (kernel $VM_KVER, TCG, ${VM_SMP} CPUs); raw results in ${run#$REPO/}/raw.tsv"
set +e
vm_boot "$run"; rc=$?
set -e
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$run/host-info"
echo "vm_seconds=$VM_ELAPSED" >> "$run/host-info"
[ "$rc" = 0 ] || vm_die "the VM run failed (status $rc); see ${run#$REPO/}/"
python3 "$REPO/bench/report.py" "$run" "${BENCH_OUT:-$REPO/BENCHMARKS.md}"
