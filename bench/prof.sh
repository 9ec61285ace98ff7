#!/usr/bin/env bash
# bench/prof.sh [ROWS...] (after `make`): callgrind Ir/op of
# ibv_bench rows for Debian's libibverbs, ours, and ours hosting Debian's
# rxe plugin (IBV_PROVIDERS=plugin), in ONE VM boot. Default rows: data control.
# Output: a table row lib Ir/op, and callgrind files kept in vm/out/prof/cg.<lib>.N
# (N = 1 for the empty-region overhead, then one per row in order) for
#   callgrind_annotate --inclusive=yes --threshold=100 vm/out/prof/cg.ours.2
# PROF_LIBS="debian ours plugin" (default), PROF_SCALE=0.05.
set -euo pipefail
R=$(cd "$(dirname "$0")/.." && pwd); P=$R/vm/out/prof; cd "$R"
rows=${*:-data control}; libs=${PROF_LIBS:-debian ours plugin}; sc=${PROF_SCALE:-0.05}
mkdir -p "$P"; rm -f "$P"/cg.* "$P"/log.*; chmod 777 "$P"
cc -std=gnu11 -O2 -g -Wall -o "$P/ibv_bench" "$R/bench/ibv_bench.c" -libverbs
cmd=""
for l in $libs; do
  case $l in
    debian) env="LD_LIBRARY_PATH=" ;;
    ours) env="LD_LIBRARY_PATH=$R/build/lib" ;;
    plugin) env="LD_LIBRARY_PATH=$R/build/lib IBV_PROVIDERS=plugin" ;;
  esac
  cmd+="env $env valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=\$OUTDIR/cg.$l $P/ibv_bench -b 1 -s $sc $rows > \$OUTDIR/log.$l 2>&1; "
done
out=$(VM_KEEP=1 VM_QUIET=1 vm/run.sh --lib debian -- sh -c "$cmd" 2>&1 | grep -o '/[^ ]*vm/out/run\.[A-Za-z0-9]*' | tail -1)
cp "$out"/cg.* "$out"/log.* "$P"/ 2>/dev/null || { echo "prof: no output in $out"; exit 1; }
rm -rf "$out"
for l in $libs; do
  declare -A ops=() bat=()
  while read -r _ row o b; do ops[$row]=$o; bat[$row]=$b; done < <(grep '^O' "$P/log.$l")
  ovh=$(grep -h '^totals' "$P/cg.$l.1" | awk '{print $2}')
  for f in $(ls "$P"/cg.$l.* | sort -t. -k3 -n); do
    row=$(grep -m1 '^desc: Trigger' "$f" | sed 's/.*Request: //'); t=$(grep -m1 '^totals' "$f" | awk '{print $2}')
    [ "$row" = region_overhead ] && continue
    awk -v l="$l" -v r="$row" -v t="$t" -v o="${ops[$row]:-0}" -v b="${bat[$row]:-0}" -v v="$ovh" \
      'BEGIN{ if (o>0) printf "%-8s %-18s %10.1f Ir/op\n", l, r, (t-b*v)/o; else printf "%-8s %-18s n/a\n", l, r }'
  done
  unset ops bat
done
