#!/bin/bash
# Runs in the Soft-RoCE VM for `make bench` (started by bench/run.sh): every
# round runs ibv_bench and perftest against Debian's libibverbs and against
# ours, the order of the two alternating from round to round. Raw results go
# to $OUTDIR/raw.tsv, one line per measurement:
#   LIB<TAB>ROUND<TAB>ROW<TAB>VALUE|n/a<TAB>UNIT<TAB>DESCRIPTION<TAB>NOTE
# and facts about the guest to $OUTDIR/guest-info.
set -u
OURDIR=${BENCH_OURS_LIBDIR:-$REPO/build/lib}
BENCH=$OUTDIR/ibv_bench
ROUNDS=${BENCH_ROUNDS:-5}
SCALE=${BENCH_SCALE:-1}
RAW=$OUTDIR/raw.tsv
LOG=$OUTDIR/logs
SRV=10.0.0.1
PORT=21000
T=${BENCH_TIMEOUT:-300}
: > "$RAW"
mkdir -p "$LOG"

{
  echo "guest_kernel=$(uname -r)"
  echo "guest_cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "guest_cpus=$(nproc)"
  echo "guest_mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
} > "$OUTDIR/guest-info"

libenv() {
  case $1 in
    debian) echo "IBV_BENCH_LIB=debian" ;;
    ours) echo "LD_LIBRARY_PATH=$OURDIR" ;;
  esac
}

# bench LIB ROUND ARGS...: one ibv_bench process; its R lines into raw.tsv
bench() {
  local lib=$1 r=$2 tag; shift 2
  tag=$LOG/$lib.$r.ibv_bench.${1:-all}
  timeout -k 5 "$T" env $(libenv "$lib") "$BENCH" -s "$SCALE" "$@" > "$tag.out" 2> "$tag.err"
  echo "exit $?" >> "$tag.err"
  awk -F'\t' -v lib="$lib" -v r="$r" 'BEGIN {OFS="\t"} $1 == "R" {print lib, r, $2, $3, $4, $5, $6}' "$tag.out" >> "$RAW"
}

# first line of a log that says why a program failed
why() {
  { grep -m1 -iE 'error|not found|cannot|couldn|failed|fatal|unable|not supported' "$@" || grep -m1 -hv '^\s*$' "$@"; } 2>/dev/null |
    sed 's/^[^:]*: *//' | tr '\t' ' ' | cut -c1-120
}

# perf LIB ROUND ROW UNIT DESC FIELD PROG ARGS...: perftest server + client,
# both on LIB; the value is column FIELD of the client's result line.
perf() {
  local lib=$1 r=$2 row=$3 unit=$4 desc=$5 field=$6; shift 6
  local tag=$LOG/$lib.$r.$row spid i v
  PORT=$((PORT + 1))
  timeout -k 5 "$T" env $(libenv "$lib") "$@" -p $PORT > "$tag.server.out" 2> "$tag.server.err" < /dev/null &
  spid=$!
  for i in $(seq 1 400); do
    ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q . && break
    kill -0 $spid 2>/dev/null || break
    sleep 0.1
  done
  timeout -k 5 "$T" env $(libenv "$lib") "$@" -p $PORT $SRV > "$tag.client.out" 2> "$tag.client.err" < /dev/null
  local rc=$?
  for i in $(seq 1 100); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
  kill $spid 2>/dev/null; wait $spid 2>/dev/null
  # the result line: the one after the "#bytes" header that starts with a number
  v=$(awk -v f="$field" '/^ *#bytes/ {h=1; next} h && $1 ~ /^[0-9]+$/ {print $f; exit}' "$tag.client.out")
  if [ "$rc" = 0 ] && [[ $v =~ ^[0-9.]+$ ]]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t\n' "$lib" "$r" "$row" "$v" "$unit" "$desc" >> "$RAW"
  else
    printf '%s\t%s\t%s\tn/a\t%s\t%s\terror: %s\n' "$lib" "$r" "$row" "$unit" "$desc" \
      "$(why "$tag.client.err" "$tag.client.out" "$tag.server.err" || echo "exit $rc")" >> "$RAW"
  fi
}

echo "bench: guest $(uname -r), $ROUNDS rounds, scale $SCALE"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="debian ours"; else order="ours debian"; fi
  for lib in $order; do
    t0=$(date +%s)
    bench "$lib" "$r" data control memory
    bench "$lib" "$r" peak
    perf "$lib" "$r" perftest_write_bw Mpps "ib_write_bw -s 64 message rate" 5 \
      ib_write_bw -d rxe0 -x 1 -F -s 64 -n "${BENCH_PERF_N:-2000}"
    perf "$lib" "$r" perftest_send_lat us "ib_send_lat -s 2 typical latency" 5 \
      ib_send_lat -d rxe0 -x 1 -F -s 2 -n "${BENCH_PERF_N:-2000}"
    echo "bench: round $r/$ROUNDS $lib done in $(( $(date +%s) - t0 )) s ($(grep -c "^$lib	$r	" "$RAW") rows, $(grep "^$lib	$r	" "$RAW" | grep -c '	n/a	') n/a)"
  done
done
exit 0
