#!/usr/bin/env bash
# `make bench-two-hosts`: rc_roundtrip (vm/guest/rc_bench.c) and perftest's
# ib_write_bw across the two guests (vm/run-two-hosts-tests.sh, suite bench),
# Debian's libibverbs and ours in the same pair of boots: timed rounds, then
# callgrind for instructions per operation (the reproducible figure). Writes
# BENCHMARKS-two-hosts.md (BENCH_TWO_HOSTS_OUT) with vm/two-hosts-bench.py.
# Settings: BENCH_ROUNDS, BENCH_RT_N, BENCH_WBW_N, BENCH_CG_RT_N,
# BENCH_CG_WBW_N (see the report's last section), VM_CASE_TIMEOUT (per
# process, default 900 s: perftest under callgrind starts slowly on TCG).
set -euo pipefail
cd "$(dirname "$0")/.."
run=vm/out/bench-two-hosts
info=$(mktemp)
{
  echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "host_cpus=$(nproc)"
  echo "qemu=$(qemu-system-x86_64 --version | head -1)"
  echo "debian_libibverbs=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null)"
  echo "perftest=$(dpkg-query -W -f '${Version}' perftest 2>/dev/null)"
  echo "valgrind=$(valgrind --version 2>/dev/null || echo 'no valgrind')"
  echo "ours=$(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "date=$(date -u +%Y-%m-%d)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$info"
set +e
# (5 rounds under load 7 to 33 ran past 3600 s before the last callgrind runs)
TWO_HOSTS_SUITE=bench VM_RESULTS_NAME=bench-two-hosts VM_CASE_TIMEOUT=${VM_CASE_TIMEOUT:-900} VM_TIMEOUT=${VM_TIMEOUT:-7200} \
  vm/run-two-hosts-tests.sh 2>&1 | tee "$info.log"
rc=${PIPESTATUS[0]}
set -e
{
  cat "$info"
  echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
  sed -n 's/^vm-test-two-hosts: kernel \([^,]*\), VMs up \([0-9.]*\)s.*/kernel=\1\nvm_seconds=\2/p' "$info.log"
} > "$run/host-info"
rm -f "$info" "$info.log"
python3 vm/two-hosts-bench.py "$run" "${BENCH_TWO_HOSTS_OUT:-BENCHMARKS-two-hosts.md}" && exit "$rc"
