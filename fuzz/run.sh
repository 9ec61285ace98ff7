#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets) for SECONDS each, in one process
# (no -jobs: no forks), memory capped, starting from and adding to the committed corpus.
#   fuzz/run.sh 10          the short run of `make test` (fuzz-smoke): new
#                           inputs go to a scratch dir, the tree stays clean
#   FUZZ_KEEP=1 fuzz/run.sh 600   `make fuzz`: new inputs join fuzz/corpus/
#   FUZZ_ONLY=cq_ring fuzz/run.sh 60
# A crash leaves its input in fuzz/artifacts/<target>/ and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
targets=${FUZZ_ONLY:-$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^ibverbs-fuzz$')}
export PATH="$HOME/.cargo/bin:$PATH"
# -O: release with debug assertions; the fuzz crate pins no toolchain, so
# ask for the nightly one (libFuzzer needs -Zsanitizer).
cargo +nightly fuzz build -O
runs=0
for t in $targets; do
  mkdir -p "fuzz/corpus/$t"
  log=$(mktemp)
  if [ "${FUZZ_KEEP:-0}" = 1 ]; then dirs=("fuzz/corpus/$t"); else
    scratch=$(mktemp -d); dirs=("$scratch" "fuzz/corpus/$t"); fi
  if ! cargo +nightly fuzz run -O "$t" "${dirs[@]}" -- \
       -max_total_time="$secs" -rss_limit_mb=2048 -max_len=4096 \
       -print_final_stats=1 >"$log" 2>&1; then
    tail -60 "$log"; rm -f "$log"
    echo "fuzz: $t FAILED (input in fuzz/artifacts/$t/)"; exit 1
  fi
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "fuzz: $t ok, ${n:-?} runs in ${secs}s, $cov, corpus $(ls "fuzz/corpus/$t" | wc -l) inputs"
  [ "${FUZZ_KEEP:-0}" = 1 ] || rm -rf "$scratch"
  runs=$((runs + ${n:-0}))
  rm -f "$log"
done
echo "fuzz: all targets ok, $runs runs"
