#!/bin/bash
# Runs in the guest (chrooted into the host root) for `make vm-test`: every
# program x library case, one line per case in $OUTDIR/results.tsv:
#   LIB<TAB>NAME<TAB>pass|fail<TAB>SECONDS<TAB>DETAIL
# LIB: debian (Debian's libibverbs), ours (LD_LIBRARY_PATH=<repo>/build/lib),
# preload (LD_PRELOAD=<repo>/build/lib/libibverbs.so.1), plugin (ours by
# LD_LIBRARY_PATH with IBV_PROVIDERS=plugin: Debian's own C rxe plugin hosted
# by our library instead of our Rust rxe provider), memcheck (ours under
# valgrind), installed (no variable:
# the system's libibverbs.so.1, which vm/guest/pkg-tests.sh has replaced with
# ours by installing the .deb and checked by checksum). Classification against
# vm/expected-failures.txt is done by vm/run-tests.sh on the host.
# LIB mixed: interop pairs (INTEROP=1 pair ...) run once with the server on
# Debian's library and the client on ours (NAME/s-debian.c-ours) and once the
# other way round (NAME/s-ours.c-debian); VM_TEST_MIXED=0 skips them.
# Each program runs under LD_DEBUG=libs (to a file): a case passes only if the
# dynamic linker initialised the intended libibverbs.so.1 in every process
# (for mixed cases: the server's library in the server, the client's in the client).
set -u
OURS=$REPO/build/lib/libibverbs.so.1
LIBS=${VM_TEST_LIBS:-debian ours preload plugin}
MIXED=${VM_TEST_MIXED:-1}       # run the interop (mixed) pairs
ONLY=${VM_TEST_ONLY:-}          # regex on case names, to run a subset
SKIP=${VM_TEST_SKIP:-}          # regex on case names to leave out
RES=$OUTDIR/results.tsv
CASES=$OUTDIR/cases
T=${VM_CASE_TIMEOUT:-60}        # per process
SRV=10.0.0.1
PORT=20000
: > "$RES"
mkdir -p "$CASES"
. "$REPO/vm/guest/common.sh"

# "memcheck" is "ours" under valgrind memcheck (make vm-memcheck): any error
# or a definite leak is exit 97, the report in DIR/vg.TAG.PID.
vg() {
  local lib=$1 d=$2 tag=$3
  [ "$lib" = memcheck ] || return 0
  echo valgrind --quiet --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite \
    --suppressions="$REPO/vm/memcheck.supp" --log-file="$d/vg.$tag.%p"
}

# run LIB DIR TAG CMD...: runs CMD with LIB, output in DIR/TAG.{out,err,rc}
run() {
  local lib=$1 d=$2 tag=$3; shift 3
  timeout -k 5 "$T" env $(libenv "$lib") LD_DEBUG=libs LD_DEBUG_OUTPUT="$d/ld.$tag" \
    $(vg "$lib" "$d" "$tag") "$@" > "$d/$tag.out" 2> "$d/$tag.err" < /dev/null
  echo $? > "$d/$tag.rc"
}

# Output lines both libraries must print alike: the C tests tag the lines that
# may differ with "[ours]" or "[system]"; other programs tag nothing. (Compared
# through files: the guest's devtmpfs has no /dev/fd for process substitution.)
untagged() { grep -v '^\[\(ours\|system\)\]' "$1" || true; }

record() { # LIB NAME RESULT START DETAIL
  local s=$(( $(date +%s%N) / 1000000 - $4 ))
  printf '%s\t%s\t%s\t%d.%01d\t%s\n' "$1" "$2" "$3" $((s / 1000)) $((s % 1000 / 100)) "$5" >> "$RES"
  printf '  %-8s %-28s %-4s %5ss\n' "$1" "$2" "$3" "$(tail -1 "$RES" | cut -f4)"
}
now() { echo $(( $(date +%s%N) / 1000000 )); }
want() { { [ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]; } && { [ -z "$SKIP" ] || ! [[ $1 =~ $SKIP ]]; }; }

# single NAME CMD...: passes on exit status 0 (and the proof). With CMP=1,
# non-Debian libraries must also match Debian's stdout and status byte for byte
# (Debian's run of case REF if set, else of NAME).
single() {
  local name=$1; shift
  want "$name" || return 0
  local lib d t0 r detail
  for lib in $LIBS; do
    d=$CASES/$lib/$name; mkdir -p "$d"; t0=$(now)
    run "$lib" "$d" main "$@"
    r=$(cat "$d/main.rc"); detail=""
    if [ "$r" = 97 ] && [ "$lib" = memcheck ]; then
      detail="memcheck: $(cat "$d"/vg.main.* | grep -m1 -E 'Invalid|uninitialised|definitely lost|Mismatched|overlap' | sed 's/^==[0-9]*== //' | cut -c1-150)"
    elif [ "$r" != 0 ] && { [ "${CMP:-0}" != 1 ] || [ "$lib" = debian ]; }; then
      detail="exit $r: $(why "$d/main.err")"
    elif ! detail=$(proof "$lib" "$d" main); then
      detail=$(echo "$detail" | head -1); [ "$r" != 0 ] && detail="exit $r: $(why "$d/main.err")"
    elif [ "${CMP:-0}" = 1 ] && [ "$lib" != debian ]; then
      local ref=$CASES/debian/${REF:-$name}
      if [ ! -e "$ref/main.rc" ]; then detail="no Debian reference run (VM_TEST_LIBS must include debian)"
      elif [ "$r" != "$(cat "$ref/main.rc")" ]; then detail="exit $r, Debian's $(cat "$ref/main.rc"): $(why "$d/main.err")"
      elif untagged "$ref/main.out" > "$d/ref.cmp"; untagged "$d/main.out" > "$d/out.cmp"
           ! cmp -s "$d/ref.cmp" "$d/out.cmp"; then
        detail="stdout differs from Debian's: $(diff "$d/ref.cmp" "$d/out.cmp" | grep -m1 '^[<>]' | cut -c1-150)"
      fi
    fi
    if [ -z "$detail" ]; then record "$lib" "$name" pass "$t0" "$([ "${CMP:-0}" = 1 ] && [ "$lib" != debian ] && echo "output identical to Debian")"
    else record "$lib" "$name" fail "$t0" "$detail"; fi
  done
}

# pair NAME WAIT 'SERVER CMD' 'CLIENT CMD': server in the background, client
# once it listens (WAIT: tcp = a TCP listener on the case's port; cm = an
# RDMA-CM listener on it, as `rdma resource show cm_id` shows; cm:PORT = on PORT).
# Both must exit 0. @PORT@ in the commands becomes a fresh port per run.
# CHECK=FN: FN DIR must also succeed (it checks the outputs; prints why not).
# INTEROP=1: also the mixed runs (server on one library, client on the other).
pair() {
  local name=$1 wait=$2 scmd=$3 ccmd=$4
  want "$name" || return 0
  local mode slib clib col cname d t0 spid rs rc detail i p modes=$LIBS
  if [ "${INTEROP:-0}" = 1 ] && [ "$MIXED" = 1 ]; then
    modes="$modes debian:ours ours:debian"
    [[ " $LIBS " == *" plugin "* ]] && modes="$modes debian:plugin plugin:debian"
  fi
  for mode in $modes; do
    if [[ $mode == *:* ]]; then
      slib=${mode%:*} clib=${mode#*:} col=mixed cname="$name/s-$slib.c-$clib"
    else
      slib=$mode clib=$mode col=$mode cname=$name
    fi
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now)
    PORT=$((PORT + 1)); p=$PORT
    run "$slib" "$d" server ${scmd//@PORT@/$p} &
    spid=$!
    # wait (up to 40 s: TCG on a busy host is slow) until the server listens
    for i in $(seq 1 400); do
      case $wait in
        tcp) ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break ;;
        cm)  rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$p " && break ;;
        cm:*) rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":${wait#cm:} " && break ;;
      esac
      kill -0 $spid 2>/dev/null || break
      sleep 0.1
    done
    run "$clib" "$d" client ${ccmd//@PORT@/$p}
    # the server ends by itself once the client is done; give it a moment
    for i in $(seq 1 100); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
    kill $spid 2>/dev/null; wait $spid 2>/dev/null
    rs=$(cat "$d/server.rc"); rc=$(cat "$d/client.rc"); detail=""
    if [ "$rc" != 0 ]; then detail="client exit $rc: $(why "$d/client.err")"
    elif [ "$rs" != 0 ]; then detail="server exit $rs: $(why "$d/server.err")"
    elif ! detail=$(proof "$slib" "$d" server) || ! detail=$(proof "$clib" "$d" client); then detail=$(echo "$detail" | head -1)
    elif [ -n "${CHECK:-}" ] && ! detail=$($CHECK "$d"); then detail=$(echo "$detail" | head -1)
    else detail=""
    fi
    if [ -z "$detail" ]; then record "$col" "$cname" pass "$t0" ""
    else record "$col" "$cname" fail "$t0" "${detail:-check $CHECK failed}"; fi
  done
}

echo "vm-test: guest $(uname -r), $(ls /sys/class/infiniband | tr '\n' ' ')libraries: $LIBS"

# --- the client programs ---------------------------------------------------------
programs() {
  # --- ibverbs-utils: deterministic output, compared byte for byte ---------------
  CMP=1 single ibv_devices ibv_devices
  CMP=1 single ibv_devinfo ibv_devinfo
  CMP=1 single ibv_devinfo-v ibv_devinfo -v
  CMP=1 single ibv_devinfo-d-rxe1 ibv_devinfo -d rxe1 -i 1 -v
  # SYSFS_PATH naming a missing directory, or empty: the devices still come from
  # netlink (rdma-core asks netlink first); ours must list and open them alike.
  CMP=1 single sysfs-missing-ibv_devices env SYSFS_PATH=/nonexistent ibv_devices
  CMP=1 single sysfs-missing-ibv_devinfo env SYSFS_PATH=/nonexistent ibv_devinfo
  CMP=1 single sysfs-empty-ibv_devinfo env SYSFS_PATH= ibv_devinfo -d rxe0

  # --- ibverbs-utils: ping-pongs over rxe0 (client and server on one device) ---
  INTEROP=1 pair ibv_rc_pingpong tcp "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  INTEROP=1 pair ibv_uc_pingpong tcp "ibv_uc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_uc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  INTEROP=1 pair ibv_ud_pingpong tcp "ibv_ud_pingpong -d rxe0 -g 1 -n 100 -s 512 -p @PORT@" "ibv_ud_pingpong -d rxe0 -g 1 -n 100 -s 512 -p @PORT@ $SRV"
  INTEROP=1 pair ibv_srq_pingpong tcp "ibv_srq_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_srq_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  # -e: sleep on completion events (ibv_req_notify_cq, ibv_get_cq_event, ibv_ack_cq_events)
  pair ibv_rc_pingpong-e  tcp "ibv_rc_pingpong -d rxe0 -g 1 -n 50 -e -p @PORT@" "ibv_rc_pingpong -d rxe0 -g 1 -n 50 -e -p @PORT@ $SRV"
  pair ibv_srq_pingpong-e tcp "ibv_srq_pingpong -d rxe0 -g 1 -n 50 -e -p @PORT@" "ibv_srq_pingpong -d rxe0 -g 1 -n 50 -e -p @PORT@ $SRV"

  # --- perftest: small iteration counts (TCG) -----------------------------------
  # perftest 4.5 posts through the new send API (ibv_wr_start/ibv_wr_*/
  # ibv_wr_complete on an ibv_qp_ex) by default; --use_old_post_send makes it use
  # ibv_post_send: both flows are run for ib_send_lat and ib_write_bw.
  for t in send write read atomic; do
    for k in lat bw; do
      INTEROP=1 pair "ib_${t}_${k}" tcp "ib_${t}_${k} -d rxe0 -x 1 -F -n 100 -p @PORT@" "ib_${t}_${k} -d rxe0 -x 1 -F -n 100 -p @PORT@ $SRV"
    done
  done
  for t in ib_send_lat ib_write_bw; do
    pair "$t-old_post_send" tcp "$t -d rxe0 -x 1 -F -n 100 --use_old_post_send -p @PORT@" "$t -d rxe0 -x 1 -F -n 100 --use_old_post_send -p @PORT@ $SRV"
  done
}

# --- rdmacm-utils: librdmacm over the library under test ----------------------
rdmacm() {
  INTEROP=1 pair rping cm "rping -s -v -C 10 -a $SRV -p @PORT@" "rping -c -v -C 10 -a $SRV -p @PORT@"
  # -V: the client validates the data read back; both sides' printed data is checked
  CHECK=rping_data pair rping-V cm "rping -s -v -V -C 10 -a $SRV -p @PORT@" "rping -c -v -V -C 10 -a $SRV -p @PORT@"
  INTEROP=1 pair ucmatose cm "ucmatose -b $SRV -p @PORT@ -C 10" "ucmatose -s $SRV -p @PORT@ -C 10"
  INTEROP=1 pair udaddy cm:7174 "udaddy -b $SRV -C 10" "udaddy -s $SRV -C 10"
  INTEROP=1 pair rdma_server cm "rdma_server -s $SRV -p @PORT@" "rdma_client -s $SRV -p @PORT@"
}

# --- the project's own C tests (built by vm/run-tests.sh into $OUTDIR/c-tests) --
# Each must exit 0 and print, untagged, exactly what it prints on Debian's library.
# ctest NAME PATH: one C test, on the libraries of $LIBS it runs on.
ctest() {
  local n=$1 t=$2 libs=$LIBS
  # The long ones (the bad-input tables, stress, device removal, fork) skip
  # preload, the same library loaded another way, to keep make test under its
  # budget; fork's logic is the library's own, so it skips plugin too.
  case $n in badinput|badinput_qp|stress|removal) libs=${LIBS//preload/} ;; fork) libs=${LIBS//preload/}; libs=${libs//plugin/} ;; esac
  # removal deletes and re-adds the rxe devices, and mt_post_poll runs to its own
  # 120 s deadline (about 47 s idle, near 60 s under load): 3x the per-process limit
  LIBS=$libs T=$(case $n in removal|mt_post_poll) echo $((T * 3)) ;; *) echo "$T" ;; esac) CMP=1 single "c-tests/$n" "$t"
}

ctests() {
  local t n
  for t in "$OUTDIR"/c-tests/*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    [ "$n" = removal ] || ctest "$n" "$t"   # removal runs alone, at the end
  done

  # --- rdma-core 64's API: c-tests/v64/*.c (self-checking) and the seed-page test
  # c-tests/seeds.c, built against our header (vm/run-tests.sh: $OUTDIR/c-tests-64).
  # Debian's 44 cannot run them (no IBVERBS_1.15-1.17): ours and preload only;
  # seeds-64hdr must print, untagged, what Debian printed for c-tests/seeds.
  for t in "$OUTDIR"/c-tests-64/*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    if [ "$n" = seeds-64hdr ]; then
      LIBS=${LIBS//debian/} CMP=1 REF=c-tests/seeds single "c-tests-64/$n" "$t"
    else
      LIBS=${LIBS//debian/} single "c-tests-64/$n" "$t"
    fi
  done

  bench_smoke
}

# --- bench-smoke: bench/ibv_bench runs briefly (-q) and prints every row, each
# a non-negative number, or n/a with the error (ours only; Debian's must measure
# every row). No timing is checked: benchmarks are `make bench`.
bench_smoke() {
  want bench-smoke || return 0
  [ -x "$OUTDIR/ibv_bench" ] || return 0
  local lib d t0 detail nrows
  nrows=$("$OUTDIR/ibv_bench" -l | wc -l)
  for lib in $LIBS; do
    d=$CASES/$lib/bench-smoke; mkdir -p "$d"; t0=$(now)
    run "$lib" "$d" main "$OUTDIR/ibv_bench" -q all
    detail=$(awk -F'\t' -v strict="$([ "$lib" = debian ] && echo 1 || echo 0)" -v want="$nrows" '
      $1 == "R" { n++
        if (NF < 5) bad = bad ? bad : "short line: " $0
        else if ($3 == "n/a") {
          if ($6 !~ /^error: /) bad = bad ? bad : $2 ": n/a without its error"
          else if (strict) bad = bad ? bad : $2 ": n/a on Debian (" $6 ")"
        } else if ($3 !~ /^[0-9]+(\.[0-9]+)?$/) bad = bad ? bad : $2 ": not a non-negative number: " $3
      }
      END { if (!bad && n != want) bad = "printed " n " rows, not " want; print bad }' "$d/main.out")
    [ "$(cat "$d/main.rc")" = 0 ] || detail="exit $(cat "$d/main.rc"): $(why "$d/main.err")"
    if [ -z "$detail" ] && ! detail=$(proof "$lib" "$d" main); then detail=$(echo "$detail" | head -1); fi
    if [ -z "$detail" ]; then record "$lib" bench-smoke pass "$t0" "$(grep -c '	n/a	' "$d/main.out") rows n/a"
    else record "$lib" bench-smoke fail "$t0" "$detail"; fi
  done
}

# --- ibv_asyncwatch: port events on rxe1 when veth1 goes down and up -----------
asyncwatch() {
  want ibv_asyncwatch || return 0
  local lib d t0 pid detail
  for lib in $LIBS; do
    d=$CASES/$lib/ibv_asyncwatch; mkdir -p "$d"; t0=$(now)
    T=20 run "$lib" "$d" main stdbuf -oL ibv_asyncwatch -d rxe1 &
    pid=$!
    for i in $(seq 1 50); do grep -q 'async event FD' "$d/main.out" 2>/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    ip link set veth1 down; sleep 0.5; ip link set veth1 up
    for i in $(seq 1 50); do grep -q 'IBV_EVENT_PORT_ACTIVE' "$d/main.out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    sleep 0.2
    # stop ibv_asyncwatch itself (SIGINT: no "Terminated" from the shell) (the child of timeout, the child of run's subshell)
    local tpid apid
    tpid=$(pgrep -P $pid 2>/dev/null | head -1)
    apid=${tpid:+$(pgrep -P "$tpid" 2>/dev/null | head -1)}
    [ -n "$apid" ] && kill -INT "$apid" 2>/dev/null
    wait $pid 2>/dev/null
    detail=""
    if ! grep -q 'IBV_EVENT_PORT_ERR' "$d/main.out" || ! grep -q 'IBV_EVENT_PORT_ACTIVE' "$d/main.out"; then
      detail="no PORT_ERR/PORT_ACTIVE event seen: $(why "$d/main.err")"
    elif ! detail=$(proof "$lib" "$d" main); then detail=$(echo "$detail" | head -1)
    fi
    if [ -z "$detail" ]; then record "$lib" ibv_asyncwatch pass "$t0" ""
    else record "$lib" ibv_asyncwatch fail "$t0" "$detail"; fi
    # let rxe1 come back before the next run
    sleep 1
  done
}

# Two streams at once (VM_TEST_JOBS=2, the default; the guest has $VM_SMP CPUs,
# one each under multi-threaded TCG): ibverbs-utils and perftest, and the C
# tests then rdmacm-utils (about as long), each stream with ports of its own
# (udaddy's fixed one is in the second only); a C test stays in its own
# process and objects. What changes the devices for everyone runs after
# both, alone: c-tests/removal deletes and re-adds rxe0, and ibv_asyncwatch
# takes veth1 down and up.
if [ "${VM_TEST_JOBS:-2}" -gt 1 ]; then
  programs & p1=$!
  { ctests; PORT=30000; rdmacm; } & p2=$!
  wait $p1 $p2
else
  programs
  ctests
  rdmacm
fi
[ -x "$OUTDIR/c-tests/removal" ] && ctest removal "$OUTDIR/c-tests/removal"
asyncwatch
exit 0
