#!/bin/bash
# Runs in the Soft-RoCE VM for `make bench` (started by bench/run.sh): every
# round runs ibv_bench and perftest against each library of BENCH_LIBS
# (default: Debian's libibverbs `debian`, ours `ours`, and ours hosting
# Debian's C rxe plugin `plugin`, IBV_PROVIDERS=plugin), the order rotating
# from round to round. Raw results go
# to $OUTDIR/raw.tsv, one line per measurement:
#   LIB<TAB>ROUND<TAB>ROW<TAB>VALUE|n/a<TAB>UNIT<TAB>DESCRIPTION<TAB>NOTE
# and facts about the guest to $OUTDIR/guest-info.
# After the rounds, one callgrind pass per library (ROUND "callgrind"): ibv_bench's
# data and control rows under valgrind --tool=callgrind, one batch at scale
# BENCH_CG_SCALE (default 0.05); each row's user-space instructions per
# operation go into raw.tsv as row ir:ROW, unit Ir/op.
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
CG_SCALE=${BENCH_CG_SCALE:-0.05}
read -r -a LIBS <<< "${BENCH_LIBS:-debian ours plugin}"
: > "$RAW"
mkdir -p "$LOG"

{
  echo "guest_kernel=$(uname -r)"
  echo "guest_cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  echo "guest_cpus=$(nproc)"
  echo "guest_mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
  echo "cg_scale=$CG_SCALE"
  echo "valgrind=$(valgrind --version 2>/dev/null || echo none)"
} > "$OUTDIR/guest-info"

libenv() {
  case $1 in
    debian) echo "IBV_BENCH_LIB=debian" ;;
    ours) echo "LD_LIBRARY_PATH=$OURDIR" ;;
    plugin) echo "LD_LIBRARY_PATH=$OURDIR IBV_PROVIDERS=plugin" ;;
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

# callgrind LIB: ibv_bench's data and control rows under callgrind, collecting
# only their timed batches (--collect-atstart=no; ibv_bench toggles collection
# around each timed region and dumps once per row, the dump named after the row);
# (Ir of a row's dump - its batches x the Ir of an empty timed region) / the
# operations of its O line (O ROW OPS BATCHES) = instructions per operation.
callgrind() {
  local lib=$1 d=$OUTDIR/callgrind/$lib tag=$LOG/$lib.callgrind rc
  rm -rf "$d"; mkdir -p "$d"
  timeout -k 5 "${BENCH_CG_TIMEOUT:-900}" env $(libenv "$lib") valgrind --tool=callgrind \
    --collect-atstart=no --callgrind-out-file="$d/cg.out" \
    "$BENCH" -b 1 -s "$CG_SCALE" data control > "$tag.out" 2> "$tag.err"
  rc=$?
  echo "exit $rc" >> "$tag.err"
  # dump files first (desc: Trigger: Client Request: ROW, totals: IR), then the R/O lines
  awk -F'\t' -v lib="$lib" -v rc="$rc" -v out="$tag.out" -v info="$d/info" -v why="$(why "$tag.err" | sed 's/^==[0-9]*== *//')" '
    BEGIN { OFS = "\t" }
    FILENAME != out {
      if (FNR == 1) name = ""
      if (sub(/^desc: Trigger: Client Request: /, "")) name = $0
      else if (name != "" && $0 ~ /^totals: [0-9]+/) { split($0, a, " "); ir[name] = a[2] }
      next
    }
    $1 == "R" { order[++n] = $2; desc[$2] = $5; note[$2] = $6 }
    $1 == "O" { ops[$2] = $3; nb[$2] = $4 }
    END {
      ovh = ("region_overhead" in ir) ? ir["region_overhead"] : 0
      print "cg_region_overhead_" lib "=" ovh > info
      for (i = 1; i <= n; i++) {
        r = order[i]
        if ((r in ops) && (r in ir) && ops[r] > 0)
          print lib, "callgrind", "ir:" r, sprintf("%.1f", (ir[r] - nb[r] * ovh) / ops[r]), "Ir/op", desc[r], ""
        else
          print lib, "callgrind", "ir:" r, "n/a", "Ir/op", desc[r],
            note[r] != "" ? note[r] : "error: no callgrind dump (exit " rc (why != "" ? ", " why : "") ")"
      }
    }' $(ls "$d"/cg.out* 2>/dev/null) "$tag.out" >> "$RAW"
  cat "$d/info" >> "$OUTDIR/guest-info" 2>/dev/null
}

echo "bench: guest $(uname -r), $ROUNDS rounds, scale $SCALE"
for r in $(seq 1 "$ROUNDS"); do
  # rotate the libraries by one each round, so none always runs first
  k=$(( (r - 1) % ${#LIBS[@]} ))
  order="${LIBS[*]:k} ${LIBS[*]:0:k}"
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
if command -v valgrind > /dev/null; then
  for lib in "${LIBS[@]}"; do
    t0=$(date +%s)
    callgrind "$lib"
    echo "bench: callgrind $lib done in $(( $(date +%s) - t0 )) s ($(grep -c "^$lib	callgrind	" "$RAW") rows, $(grep "^$lib	callgrind	" "$RAW" | grep -c '	n/a	') n/a)"
  done
else
  echo "bench: valgrind not found: no instruction counts (scripts/install-deps.sh installs it)"
fi
exit 0
