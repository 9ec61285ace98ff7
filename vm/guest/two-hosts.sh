#!/bin/bash
# Runs in both guests of the two-host mode (vm/run-two-hosts-tests.sh), chrooted
# into the host root: guest a (ROLE=a, 192.168.77.1) runs the servers, guest b
# (192.168.77.2) the clients, across the link. Both walk the same case list in
# the same order and hand off through files in $SHARED/sync (case K: K.ready
# when a's server listens, K.done when b's client has exited, K.end when the
# case is over on both). Each process's output, status and LD_DEBUG trace go to
# $SHARED/cases/COL/CASE/; guest a judges each case and writes
# $SHARED/results.tsv (LIB NAME pass|fail SECONDS DETAIL), as vm/guest/tests.sh.
# Library pairs (TWO_HOSTS_MODES, "SERVER:CLIENT"): ours:ours and debian:debian
# are recorded under ours and debian; the mixed ones as mixed, NAME/s-X.c-Y.
# TWO_HOSTS_SUITE: short (make test) or full.
set -u
OURS=$REPO/build/lib/libibverbs.so.1
. "$REPO/vm/guest/common.sh"
SUITE=${TWO_HOSTS_SUITE:-short}
MODES=${TWO_HOSTS_MODES:-ours:ours debian:debian ours:debian debian:ours}
ONLY=${VM_TEST_ONLY:-}
T=${VM_CASE_TIMEOUT:-120}      # per process: two TCG guests share 2 cores
SRV=192.168.77.1 CLI=192.168.77.2
RES=$SHARED/results.tsv CASES=$SHARED/cases SYNC=$SHARED/sync
BIN=$SHARED/bin
PORT=20000 K=0
UCX_ENV="UCX_NET_DEVICES=rxe0:1 UCX_UD_ETH_DGID_CHECK=n"   # (+ UCX_IB_GID_INDEX below)
mkdir -p "$CASES" "$SYNC"
# the other guest: its script touches $SYNC/OTHER.up, the host writes
# $SYNC/OTHER.exit when its VM ends (vm/lib.sh, vm_boot_two)
OTHER=$([ "$ROLE" = a ] && echo b || echo a)
UP_LIMIT=${TWO_HOSTS_UP_LIMIT:-600}
touch "$SYNC/$ROLE.up"

# the GID index of this guest's IPv4 address (::ffff:a.b.c.d)
gid_index() {
  local want f
  want=$(echo "$ADDR" | awk -F. '{printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4}')
  for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
    [ "$(cat "$f" 2>/dev/null)" = "$want" ] && { basename "$f"; return; }
  done
  echo 1
}
G=$(gid_index)
UCX_ENV="$UCX_ENV UCX_IB_GID_INDEX=$G"

run() { # LIB DIR TAG CMD...
  local lib=$1 d=$2 tag=$3 tr=""; shift 3
  [ "${TWO_HOSTS_TRACE:-}" = 2 ] && tr="IBV_TRACE=2 IBV_TRACE_FILE=$d/ibv.$tag"
  timeout -k 5 "$T" env $(libenv "$lib") $tr LD_DEBUG=libs LD_DEBUG_OUTPUT="$d/ld.$tag" \
    "$@" > "$d/$tag.out" 2> "$d/$tag.err" < /dev/null
  echo $? > "$d/$tag.rc"
}
# kill_tree PID: PID's descendants, then PID (SIGTERM)
kill_tree() {
  local c
  for c in $(pgrep -P "$1"); do kill_tree "$c"; done
  kill "$1" 2>/dev/null
}
# TWO_HOSTS_TRACE=1: the kernel's ib_cm and rdma_cm trace events of each
# case (reject reasons; trace.a, trace.b); =2 adds our verbs (IBV_TRACE=2,
# ibv.*), slow enough to change a case's timing; TWO_HOSTS_TRACE_EVENTS adds
# more (e.g. sched/sched_switch); TWO_HOSTS_TRACE_COMM=NAME keeps NAME's
# events only (the CM's, from kworkers, are then left out too).
ktrace_on() {
  [ -n "${TWO_HOSTS_TRACE:-}" ] || return 0
  local t=/sys/kernel/tracing e
  [ -d $t/events ] || mount -t tracefs tracefs $t 2>/dev/null
  echo 0 > $t/tracing_on; : > $t/trace
  for e in ib_cma rdma_cma ${TWO_HOSTS_TRACE_EVENTS:-}; do
    [ -d $t/events/$e ] || continue
    [ -n "${TWO_HOSTS_TRACE_COMM:-}" ] && [ -e $t/events/$e/filter ] &&
      echo "common_pid != 0 && comm == \"$TWO_HOSTS_TRACE_COMM\"" > $t/events/$e/filter 2>/dev/null
    echo 1 > $t/events/$e/enable
  done
  [ -n "${TWO_HOSTS_TRACE_EVENTS:-}" ] && echo 16384 > $t/buffer_size_kb
  echo 1 > $t/tracing_on
}
ktrace_dump() { # DIR
  [ -n "${TWO_HOSTS_TRACE:-}" ] || return 0
  cat /sys/kernel/tracing/trace > "$1/trace.$ROLE" 2>&1
}
# nap SECONDS: a sleep without fork and exec. Guest a has one TCG CPU, and
# each sleep(1) started from the 9p root keeps it for milliseconds: enough to
# stall a server between two of its steps (qperf 0.4.11 sends its RDMA CM port
# before rdma_listen, and a client quicker than that gets a reject)
NAPF=$(mktemp -u /tmp/nap.XXXXXX); mkfifo "$NAPF"; exec {NAPFD}<>"$NAPF"; rm -f "$NAPF"
nap() { read -rt "$1" -u "$NAPFD" _ || :; }
now() { echo $(( $(date +%s%N) / 1000000 )); }
want() { [ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]; }
# waitf FILE SECONDS: until FILE exists; 1 if it did not in time. Gives up
# the whole run (peer_gone) once the other guest's VM has ended, or if its
# script has not started UP_LIMIT seconds after ours.
waitf() {
  local i
  for i in $(seq 1 $(($2 * 5))); do
    [ -e "$1" ] && return 0
    if [ $((i % 5)) = 0 ]; then
      [ -e "$SYNC/$OTHER.exit" ] && peer_gone "$1" "guest $OTHER's VM ended (status $(cat "$SYNC/$OTHER.exit"))"
      [ "$SECONDS" -gt "$UP_LIMIT" ] && [ ! -e "$SYNC/$OTHER.up" ] &&
        peer_gone "$1" "guest $OTHER's script has not started ${SECONDS}s after ours"
    fi
    nap 0.2
  done
  return 1
}
# peer_gone FILE WHY: a records the case it was in as failed; either ends
peer_gone() {
  echo "two-hosts: $2 while guest $ROLE waited for ${1##*/} (case $K): giving up"
  [ "$ROLE" = a ] && record "${col:-harness}" "${cname:-peer}" fail "${t0:-$(now)}" "$2: the run stopped at case $K"
  [ "$BASHPID" = "$$" ] || kill -TERM $$
  exit 3
}
record() { # LIB NAME RESULT START DETAIL
  local s=$(( $(now) - $4 ))
  printf '%s\t%s\t%s\t%d.%01d\t%s\n' "$1" "$2" "$3" $((s / 1000)) $((s % 1000 / 100)) "$5" >> "$RES"
  printf '  %-8s %-40s %-4s %5ss\n' "$1" "$2" "$3" "$(tail -1 "$RES" | cut -f4)"
}
# names MODE NAME: sets slib, clib, col, cname
names() {
  slib=${1%:*} clib=${1#*:}
  if [ "$slib" = "$clib" ]; then col=$slib cname=$2; else col=mixed cname="$2/s-$slib.c-$clib"; fi
}
# judge D T0 [CHECK]: guest a's verdict on case D, once both sides are done
# (VG_PROOF=1: processes run under valgrind, whose launcher loads no library)
judge() {
  local d=$1 t0=$2 check=${3:-} rs rc detail="" pf=proof
  [ -n "${VG_PROOF:-}" ] && pf=vg_proof
  rs=$(cat "$d/server.rc" 2>/dev/null || echo none); rc=$(cat "$d/client.rc" 2>/dev/null || echo none)
  if [ "$rc" != 0 ]; then detail="client (b) exit $rc: $(why "$d/client.err")"
  elif [ "$rs" != 0 ]; then detail="server (a) exit $rs: $(why "$d/server.err")"
  elif ! detail=$($pf "$slib" "$d" server) || ! detail=$($pf "$clib" "$d" client); then detail=$(echo "$detail" | head -1)
  elif [ -n "$check" ] && ! detail=$($check "$d"); then detail=$(echo "${detail:-check $check failed}" | head -1)
  else detail=""
  fi
  if [ -z "$detail" ]; then record "$col" "$cname" pass "$t0" ""
  else record "$col" "$cname" fail "$t0" "$detail"; fi
}

# pair NAME WAIT 'SERVER CMD' 'CLIENT CMD': the server on a, the client on b
# (@PORT@: a fresh port per run, @DIR@ the case's directory; WAIT: tcp or cm,
# how a sees its server listen).
# Both must exit 0, with the proof on each side. CHECK=FN: FN DIR must pass too.
# ON_A=FN: a runs FN start DIR before its server, FN stop DIR once it stopped.
pair() {
  local name=$1 wait=$2 scmd=$3 ccmd=$4 mode d t0 spid i p slib clib col cname c
  want "$name" || return 0
  for mode in ${PAIR_MODES:-$MODES}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    case $wait in cm:*) p=${wait#cm:} ;; esac
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now); ktrace_on
    if [ "$ROLE" = a ]; then
      [ -n "${ON_A:-}" ] && $ON_A start "$d"
      c=${scmd//@DIR@/$d}
      run "$slib" "$d" server ${c//@PORT@/$p} &
      spid=$!
      for i in $(seq 1 $((T * 10))); do
        case $wait in
          tcp) ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break ;;
          cm*) rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$p " && break ;;
          sleep) [ $i -gt 20 ] && break ;;
        esac
        kill -0 $spid 2>/dev/null || break
        nap 0.1
      done
      touch "$SYNC/$K.ready"
      waitf "$SYNC/$K.done" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      # a daemon (KILL_SERVER=1) is stopped here: its status then counts as 0
      if [ -n "${KILL_SERVER:-}" ]; then
        sleep 1; for i in $(pgrep -P $spid); do kill_tree "$i"; done; wait $spid 2>/dev/null
        case $(cat "$d/server.rc" 2>/dev/null) in 124|143) echo 0 > "$d/server.rc" ;; esac
      fi
      for i in $(seq 1 100); do kill -0 $spid 2>/dev/null || break; nap 0.1; done
      kill $spid 2>/dev/null; wait $spid 2>/dev/null
      [ -n "${ON_A:-}" ] && $ON_A stop "$d"
      ktrace_dump "$d"
      judge "$d" "$t0" "${CHECK:-}"
      touch "$SYNC/$K.end"
    else
      if waitf "$SYNC/$K.ready" $((T + 60)); then
        c=${ccmd//@DIR@/$d}
        run "$clib" "$d" client ${c//@PORT@/$p}
      else
        echo "a's server never got ready" > "$d/client.err"; echo 125 > "$d/client.rc"
      fi
      touch "$SYNC/$K.done"; ktrace_dump "$d"
      waitf "$SYNC/$K.end" $((T + 60))
    fi
  done
}

# hold_nolistener_rej start|stop DIR: a's kernel sends no CM reject with
# reason 8 (no listener for the service ID), so a client's REQ that came too
# early is resent by its CM after the response timeout (about 4 s) instead of
# failing. For qperf 0.4.11 (Debian's): its server sends the client its RDMA
# CM port before it calls rdma_listen (fixed upstream after 0.4.11), and a
# client quicker than that got RDMA_CM_EVENT_REJECTED (status 8). Matched in
# RoCEv2 over IPv4: UDP 4791, then BTH (12) and DETH (8) bytes, the MAD:
# class 0x07 (CM) at 49, attribute 0x0012 (REJ) at 64, reason at 82.
# Other rejects still go out. DIR/held.a: how many were held (matched, with
# HOLD_ACTION=ok: counted and sent). late_listener below proves it.
hold_nolistener_rej() {
  local out act=${HOLD_ACTION:-drop}
  case $1 in
    start)
      { tc qdisc add dev eth0 root handle 1: prio &&
        tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
          match ip protocol 17 0xff match ip dport 4791 0xffff \
          match u8 0x07 0xff at 49 match u16 0x0012 0xffff at 64 \
          match u16 0x0008 0xffff at 82 action $act; } 2> "$2/tc.a.err" ||
        echo "hold_nolistener_rej: tc failed: $(cat "$2/tc.a.err")" >> "$2/server.err" ;;
    stop)
      out=$(tc -s filter show dev eth0 parent 1: 2>&1)
      echo "$out" | sed -n 's/.*(rule hit [0-9]* success \([0-9]*\)).*/\1/p' | head -1 > "$2/held.a"
      echo "$out" > "$2/tc.a.stats"
      tc qdisc del dev eth0 root 2>/dev/null ;;
  esac
}

# late_listener: the proof of hold_nolistener_rej, qperf's race made certain.
# b's rdma_client connects to a port of a with no listener yet. Sent
# (HOLD_ACTION=ok: matched, counted, sent), the reject must fail the client
# (rdma_connect: REJECTED). Held, a starts rdma_server only once its filter
# has matched that reject; b's CM must resend the REQ and the pair must pass.
late_listener() {
  local name=late_listener lib act d t0 i n rs rc detail
  want "$name" || return 0
  for lib in ${LATE_LIBS:-debian ours}; do
    for act in ok drop; do
      K=$((K + 1)); PORT=$((PORT + 1))
      slib=$lib clib=$lib col=$lib cname=$name-$([ $act = ok ] && echo sent || echo held)
      d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now)
      if [ "$ROLE" = a ]; then
        HOLD_ACTION=$act hold_nolistener_rej start "$d"
        touch "$SYNC/$K.ready"
        n=0
        for i in $(seq 1 $((T * 10))); do
          n=$(tc -s filter show dev eth0 parent 1: 2>/dev/null | sed -n 's/.*(rule hit [0-9]* success \([0-9]*\)).*/\1/p' | head -1)
          [ "${n:-0}" -gt 0 ] && break
          [ -e "$SYNC/$K.done" ] && break
          nap 0.1
        done
        [ $act = drop ] && [ "${n:-0}" -gt 0 ] && run "$slib" "$d" server rdma_server -p $PORT
        waitf "$SYNC/$K.done" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
        hold_nolistener_rej stop "$d"
        rs=$(cat "$d/server.rc" 2>/dev/null || echo none); rc=$(cat "$d/client.rc" 2>/dev/null || echo none)
        if [ "${n:-0}" -eq 0 ]; then
          record "$col" "$cname" fail "$t0" "no reject of b's early REQ matched on a; client exit $rc: $(why "$d/client.err")"
        elif [ $act = drop ]; then
          judge "$d" "$t0"
        elif [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q rdma_connect "$d/client.out" "$d/client.err" &&
             detail=$(proof "$clib" "$d" client); then
          record "$col" "$cname" pass "$t0" ""
        else
          record "$col" "$cname" fail "$t0" "want rdma_connect to fail on the reject; client exit $rc: $(why "$d/client.err") $(head -c 100 "$d/client.out")"
        fi
        touch "$SYNC/$K.end"
      else
        waitf "$SYNC/$K.ready" $((T + 60))
        run "$clib" "$d" client rdma_client -s $SRV -p $PORT
        touch "$SYNC/$K.done"
        waitf "$SYNC/$K.end" $((T + 60))
      fi
    done
  done
}

# rc_linkdown (vm/guest/rc_linkdown.c, its expected outcome at its top): the
# sender on a streams RC SENDs to the receiver on b; when the sender asks
# (cut), b takes eth0 down; once the sender has drained its CQ (drained), b
# brings eth0 up, waits for the port and the GID, and says so (up).
linkdown() {
  local name=rc_linkdown mode d t0 i p slib clib col cname s
  want "$name" || return 0
  for mode in ${LINKDOWN_MODES:-ours:ours debian:debian}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now); s=$SYNC/$K.ld
    if [ "$ROLE" = a ]; then
      waitf "$SYNC/$K.ready" $((T + 60))
      T=$((T * 2)) run "$slib" "$d" server "$BIN/rc_linkdown" -g "$G" -p "$p" -s "$s" "$CLI"
      touch "$SYNC/$K.done"
      waitf "$SYNC/$K.end" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      judge "$d" "$t0"
    else
      mkdir -p "$s"
      T=$((T * 2)) run "$clib" "$d" client "$BIN/rc_linkdown" -g "$G" -p "$p" &
      local rpid=$!
      for i in $(seq 1 $((T * 10))); do ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break; nap 0.1; done
      touch "$SYNC/$K.ready"
      for i in $(seq 1 $((T * 5))); do [ -e "$s/cut" ] || [ -e "$SYNC/$K.done" ] && break; nap 0.2; done
      ip link set eth0 down
      echo "b: eth0 down at $(date +%T.%N | cut -c1-12)" >> "$d/link.log"
      for i in $(seq 1 $((T * 5))); do [ -e "$s/drained" ] || [ -e "$SYNC/$K.done" ] && break; nap 0.2; done
      ip link set eth0 up
      for i in $(seq 1 300); do
        grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && [ -e "/sys/class/infiniband/rxe0/ports/1/gids/$G" ] &&
          [ "$(gid_index)" = "$G" ] && break
        nap 0.1
      done
      echo "b: eth0 up, rxe0 $(cat /sys/class/infiniband/rxe0/ports/1/state) at $(date +%T.%N | cut -c1-12)" >> "$d/link.log"
      touch "$s/up"
      wait $rpid
      waitf "$SYNC/$K.done" $((T + 60))
      touch "$SYNC/$K.end"
    fi
  done
}

# wait_rxe_up: eth0 is up again and rxe0's port ACTIVE with this guest's GID
wait_rxe_up() {
  local i
  for i in $(seq 1 300); do
    grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && [ -e "/sys/class/infiniband/rxe0/ports/1/gids/$G" ] &&
      [ "$(gid_index)" = "$G" ] && return 0
    nap 0.1
  done
  return 1
}

# rc_peerkill, rc_peercut (vm/guest/rc_peerkill.c, its expected outcome at
# its top): the survivor on a streams RC SENDs over an rdma_cm connection to
# the victim on b; when the survivor asks (cut), b SIGKILLs the victim
# (kill) or takes eth0 down (cut) until the survivor has exited. The survivor
# must end on its own, with exit 0; PEER_VG=1 runs it under valgrind
# memcheck (as make vm-memcheck: definite leaks are errors), and then its
# summary must show 0 bytes definitely and indirectly lost and no error.
# The victim is killed in both (exit 137) and must have printed no FAIL.
peer_judge() { # DIR
  local d=$1 f lost
  grep -q '^FAIL' "$d/client.out" && { grep -m1 '^FAIL' "$d/client.out"; return 1; }
  grep -q '^connected' "$d/client.out" || { echo "the victim never connected"; return 1; }
  for f in "$d"/vg.server.*; do
    [ -e "$f" ] || continue
    lost=$(grep -E 'definitely lost:|indirectly lost:|ERROR SUMMARY:' "$f" | sed 's/^==[0-9]*== *//' | tr '\n' ' ')
    grep -qE 'definitely lost: [1-9]|indirectly lost: [1-9]|ERROR SUMMARY: [1-9]' "$f" && { echo "memcheck: $lost"; return 1; }
  done
  return 0
}
# proof under valgrind: its launcher's trace initialises no libibverbs.so.1;
# every process that did must have loaded the intended one, and one must have
vg_proof() { # LIB DIR TAG
  local want f got n=0
  case $1 in debian) want='/usr/lib/x86_64-linux-gnu/libibverbs.so.1|/lib/x86_64-linux-gnu/libibverbs.so.1' ;; *) want=$OURS ;; esac
  for f in "$2/ld.$3".*; do
    [ -e "$f" ] || continue
    got=$(grep -m1 -oE 'calling init: [^ ]*libibverbs\.so\.1' "$f" | sed 's/calling init: //')
    [ -n "$got" ] || continue
    n=$((n + 1))
    echo "$got" | grep -qxE "$want" || { echo "loaded $got, not the $1 library"; return 1; }
  done
  [ $n -gt 0 ] || { echo "no process initialised libibverbs.so.1"; return 1; }
}
peerfault() { # NAME kill|cut
  local name=$1 how=$2 mode d t0 i p slib clib col cname s spid vpid vg rs rc detail
  want "$name" || return 0
  for mode in ${PEER_MODES:-ours:ours debian:debian}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now); s=$SYNC/$K.pk
    if [ "$ROLE" = a ]; then
      mkdir -p "$s"
      vg=""
      [ "${PEER_VG:-0}" = 1 ] && vg="valgrind --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite,indirect --suppressions=$REPO/vm/memcheck.supp --log-file=$d/vg.server.%p"
      T=$((T * 3)) run "$slib" "$d" server $vg "$BIN/rc_peerkill" -s "$s" -p "$p" $([ $how = kill ] && echo -k) &
      spid=$!
      for i in $(seq 1 $((T * 30))); do
        rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$p " && break
        kill -0 $spid 2>/dev/null || break
        nap 0.1
      done
      touch "$SYNC/$K.ready"
      wait $spid
      touch "$SYNC/$K.done"
      waitf "$SYNC/$K.end" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      rs=$(cat "$d/server.rc" 2>/dev/null || echo none); rc=$(cat "$d/client.rc" 2>/dev/null || echo none)
      if [ "$rs" != 0 ]; then detail="survivor (a) exit $rs: $(grep -m1 '^FAIL' "$d/server.out" || why "$d/server.err")"
      elif [ "$rc" != 137 ]; then detail="victim (b) exit $rc, not 137 (killed): $(why "$d/client.err")"
      elif [ -n "$vg" ] && ! detail=$(vg_proof "$slib" "$d" server); then :
      elif [ -z "$vg" ] && ! detail=$(proof "$slib" "$d" server); then detail=$(echo "$detail" | head -1)
      elif ! detail=$(proof "$clib" "$d" client); then detail=$(echo "$detail" | head -1)
      elif ! detail=$(peer_judge "$d"); then :
      else detail=""
      fi
      if [ -z "$detail" ]; then
        record "$col" "$cname" pass "$t0" "$(grep -m1 '^event kinds' "$d/server.out")$(cat "$d"/vg.server.* 2>/dev/null | grep -m1 'possibly lost' | sed 's/^==[0-9]*== */; memcheck: /')"
      else record "$col" "$cname" fail "$t0" "$detail"; fi
    else
      waitf "$SYNC/$K.ready" $((T + 60))
      run "$clib" "$d" client "$BIN/rc_peerkill" -p "$p" -c "$SRV" &
      for i in $(seq 1 $((T * 15))); do [ -e "$s/cut" ] || [ -e "$SYNC/$K.done" ] && break; nap 0.2; done
      vpid=$(pgrep -f "^$BIN/rc_peerkill -p $p -c")
      case $how in
        kill)
          kill -9 $vpid
          echo "b: victim $vpid SIGKILLed at $(date +%T.%N | cut -c1-12)" >> "$d/link.log"
          waitf "$SYNC/$K.done" $((T * 3 + 60)) ;;
        cut)
          ip link set eth0 down
          echo "b: eth0 down at $(date +%T.%N | cut -c1-12)" >> "$d/link.log"
          waitf "$SYNC/$K.done" $((T * 3 + 60))
          ip link set eth0 up; wait_rxe_up
          echo "b: eth0 up, rxe0 $(cat /sys/class/infiniband/rxe0/ports/1/state) at $(date +%T.%N | cut -c1-12)" >> "$d/link.log"
          kill -9 $vpid ;;
      esac
      wait
      touch "$SYNC/$K.end"
    fi
  done
}

# rc_netem: a checked stream of RC SENDs (rc_linkdown -n) while netem on both
# guests' eth0 drops, duplicates, corrupts and reorders packets. Expected:
# 0 corrupted, 0 lost, 0 duplicated, 0 out-of-order messages at the receiver,
# and every send completes once, with success: RoCE's PSNs, ICRC and the
# go-back-N retransmission hide all of it. retry_cnt 7 (rxe retries forever):
# a finite budget may run out under this loss rate, which is not the point.
NETEM=${TWO_HOSTS_NETEM:-delay 3ms reorder 20% 50% loss 3% duplicate 3% corrupt 1%}
netem() {
  local name=rc_netem mode d t0 i p slib clib col cname rpid
  want "$name" || return 0
  for mode in ${NETEM_MODES:-debian:debian ours:ours}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now)
    tc qdisc replace dev eth0 root netem $NETEM 2> "$d/tc.$ROLE.err" || echo "tc netem failed on $ROLE: $(cat "$d/tc.$ROLE.err")" >> "$d/$([ $ROLE = a ] && echo server || echo client).err"
    if [ "$ROLE" = a ]; then
      waitf "$SYNC/$K.ready" $((T + 60))
      T=$((T * 2)) run "$slib" "$d" server "$BIN/rc_linkdown" -g "$G" -p "$p" -n 2000 -r 7 "$CLI"
      touch "$SYNC/$K.done"
      waitf "$SYNC/$K.end" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      tc -s qdisc show dev eth0 > "$d/tc.a.stats"
      tc qdisc del dev eth0 root 2>/dev/null
      judge "$d" "$t0" netem_check
    else
      T=$((T * 2)) run "$clib" "$d" client "$BIN/rc_linkdown" -g "$G" -p "$p" -n 2000 -r 7 &
      rpid=$!
      for i in $(seq 1 $((T * 10))); do ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break; nap 0.1; done
      touch "$SYNC/$K.ready"
      wait $rpid
      waitf "$SYNC/$K.done" $((T + 60))
      tc -s qdisc show dev eth0 > "$d/tc.b.stats"
      tc qdisc del dev eth0 root 2>/dev/null
      touch "$SYNC/$K.end"
    fi
  done
}
# the netem counters must show it acted (a's stats; b's are written last)
netem_check() {
  grep -q '^stream: 2000 checked sends completed once each' "$1/server.out" || { echo "sender: no full stream"; return 1; }
  grep -q '^stream: received 2000 checked messages, in order, each once' "$1/client.out" || { echo "receiver: no full stream"; return 1; }
  grep -q 'netem' "$1/tc.a.stats" || { echo "no netem on a"; return 1; }
}

# rc_stall: a checked stream of 4 KiB RC SENDs (rc_linkdown -n, four packets
# each at path MTU 1024, retry_cnt 7) while the host stops guest b's VM for
# 0.1 to 0.9 s at a time (vm/lib.sh, vm_stall_b): the sender's retransmission
# timer fires, it retries from inside messages, and duplicates and late
# acknowledgements cross. Expected of an RC QP, written before the first run:
# every message arrives once, in order, intact, and every send completes once,
# with success. Known kernel defect (Debian 12's 6.1 rxe, both libraries; see
# vm/README.md): after such retries its requester can number packets off by
# some against its responder, which then takes a stale packet for a new one:
# the receiver gets a message twice, or a message completed early with parts
# of the one before, or a zero-length one, or one ended in a remote invalid
# request error, or the sender that error. That outcome is recorded as KDEF,
# with what was seen;
# anything else that breaks the stream is a FAIL.
STALL_N=${TWO_HOSTS_STALL_N:-5000}
stall_stream() {
  local name=rc_stall mode d t0 i p slib clib col cname rpid
  want "$name" || return 0
  for mode in ${STALL_MODES:-debian:debian ours:ours}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now)
    if [ "$ROLE" = a ]; then
      waitf "$SYNC/$K.ready" $((T + 60))
      rm -f "$SYNC/stalls"; touch "$SYNC/stall"
      T=$((T * 2)) run "$slib" "$d" server "$BIN/rc_linkdown" -g "$G" -p "$p" -n "$STALL_N" -m 4096 -r 7 "$CLI"
      rm -f "$SYNC/stall"
      touch "$SYNC/$K.done"
      waitf "$SYNC/$K.end" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      stall_judge "$d" "$t0"
    else
      T=$((T * 2)) run "$clib" "$d" client "$BIN/rc_linkdown" -g "$G" -p "$p" -n "$STALL_N" -m 4096 &
      rpid=$!
      for i in $(seq 1 $((T * 10))); do ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break; nap 0.1; done
      touch "$SYNC/$K.ready"
      wait $rpid
      waitf "$SYNC/$K.done" $((T * 2 + 60))
      touch "$SYNC/$K.end"
    fi
  done
}
# the kernel's signature in a broken stream (stdout: what was seen), else 1
stall_kdefect() { # DIR
  local l n h b st parts p0 rest m1
  l=$(grep -m1 '^FAIL: stream message' "$1/client.out" | grep -v 'Flushed')
  if [ -n "$l" ]; then
    n=$(echo "$l" | sed -n 's/^FAIL: stream message \([0-9]*\):.*/\1/p')
    st=$(echo "$l" | sed -n 's/^FAIL: stream message [0-9]*: \([^;]*\);.*/\1/p')
    b=$(echo "$l" | sed -n 's/.*byte_len \([0-9]*\),.*/\1/p')
    h=$(echo "$l" | sed -n 's/.*, holds \([0-9]*\),.*/\1/p')
    parts=$(echo "$l" | sed -n 's/.*(mod 256) \(.*\) (next: .*/\1/p')
    [ -n "$n" ] || return 1
    m1=$(( (n - 1) & 255 )); p0=${parts%% *}; rest=${parts#* }
    if [ "$st" = "remote invalid request error" ]; then echo "receiver: message $n ended in $st (a first packet inside it)"
    elif [ "$st" != success ]; then return 1
    elif [ "$b" = 0 ]; then echo "message $n arrived with 0 bytes"
    elif [ "$h" = $((n - 1)) ] && [ -z "$(echo "$parts" | tr ' ' '\n' | grep -vx "$m1")" ]; then echo "message $((n - 1)) arrived twice"
    elif [ "$h" = "$n" ] && [ "$p0" = $((n & 255)) ] && [ -z "$(echo "$rest" | tr ' ' '\n' | grep -vx "$m1")" ]; then
      echo "message $n completed early, with parts of message $((n - 1))"
    else return 1
    fi
  elif grep -q 'remote invalid request error' "$1/server.err"; then
    echo "sender: $(grep -m1 -o 'wr [0-9]*: remote invalid request error' "$1/server.err"), every message before it intact"
  else return 1
  fi
}
stall_judge() { # DIR T0
  local d=$1 t0=$2 detail rs rc st
  st="b stopped $(cat "$SYNC/stalls" 2>/dev/null || echo 0) times"
  rs=$(cat "$d/server.rc" 2>/dev/null || echo none); rc=$(cat "$d/client.rc" 2>/dev/null || echo none)
  if ! detail=$(proof "$slib" "$d" server) || ! detail=$(proof "$clib" "$d" client); then
    record "$col" "$cname" fail "$t0" "$(echo "$detail" | head -1)"
  elif [ "$rs$rc" = 00 ] && grep -q "^stream: $STALL_N checked sends completed once each" "$d/server.out" &&
       grep -q "^stream: received $STALL_N checked messages, in order, each once" "$d/client.out"; then
    record "$col" "$cname" pass "$t0" "$st"
  elif detail=$(stall_kdefect "$d"); then
    record "$col" "$cname" kdefect "$t0" "kernel rxe defect: $detail; $st"
  else
    record "$col" "$cname" fail "$t0" "server exit $rs, client exit $rc: $(why "$d/client.out") $(why "$d/server.err"); $st"
  fi
}

# rc_mtu: guest b's eth0 MTU lowered to 576 (rxe0's active MTU follows it,
# to 256) under an RC ping-pong whose QPs ask for path MTU 1024 and move
# 4 KiB messages. What rxe and the peers do is recorded as Debian's pair does
# it (first in the list); every other pair must end the same way: the same
# exit status on each side. Expected before the first run: no error at
# modify-QP time (rxe does not check path_mtu against the port), then either
# the packets pass (IP fragments them) or they are dropped and, as
# ibv_rc_pingpong's retry_cnt is 7 (rxe: retry forever), both sides hang
# until the timeout (exit 124). Seen on Debian's: the hang, on both sides.
MTU_LOW=${TWO_HOSTS_MTU:-576}
mtu_case() {
  local name=rc_mtu mode d t0 spid i p slib clib col cname rs rc ref got detail
  want "$name" || return 0
  for mode in ${MTU_MODES:-debian:debian ours:ours ours:debian debian:ours}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now)
    if [ "$ROLE" = a ]; then
      T=30 run "$slib" "$d" server ibv_rc_pingpong -d rxe0 -g "$G" -m 1024 -s 4096 -n 20 -p "$p" &
      spid=$!
      for i in $(seq 1 $((T * 10))); do ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break; kill -0 $spid 2>/dev/null || break; nap 0.1; done
      touch "$SYNC/$K.ready"
      waitf "$SYNC/$K.done" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      wait $spid
      rs=$(cat "$d/server.rc" 2>/dev/null || echo none); rc=$(cat "$d/client.rc" 2>/dev/null || echo none)
      got="server exit $rs, client exit $rc"
      echo "$got" > "$d/outcome"
      ref=$(cat "$CASES/debian/$name/outcome" 2>/dev/null)
      detail=""
      if ! detail=$(proof "$slib" "$d" server) || ! detail=$(proof "$clib" "$d" client); then detail=$(echo "$detail" | head -1)
      elif [ "$mode" != debian:debian ] && [ "$got" != "$ref" ]; then detail="$got; Debian's pair: ${ref:-none}"
      else detail=""
      fi
      if [ -z "$detail" ]; then record "$col" "$cname" pass "$t0" "$got ($(why "$d/client.err" | cut -c1-80))"
      else record "$col" "$cname" fail "$t0" "$detail"; fi
      touch "$SYNC/$K.end"
    else
      ip link set eth0 mtu "$MTU_LOW"
      for i in $(seq 1 50); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && break; nap 0.1; done
      { ip -o link show eth0 | grep -o 'mtu [0-9]*'; ibv_devinfo -d rxe0 | grep -E 'active_mtu|max_mtu'; } > "$d/mtu.b" 2>&1
      waitf "$SYNC/$K.ready" $((T + 60))
      T=30 run "$clib" "$d" client ibv_rc_pingpong -d rxe0 -g "$G" -m 1024 -s 4096 -n 20 -p "$p" "$SRV"
      ip link set eth0 mtu 1500; wait_rxe_up
      touch "$SYNC/$K.done"
      waitf "$SYNC/$K.end" $((T + 60))
    fi
  done
}

# rc_mtu_retry (rc_linkdown -x, its expected outcome at its top): a hop of
# small MTU on the path drops every data packet that does not fit (as a
# router of MTU 576 drops packets with DF set): a's filter drops RoCE
# packets of 1024 to 2047 IP bytes (path MTU 1024: 1068-byte packets), under
# 4 KiB SENDs with retry_cnt 3. Unlike rc_mtu (retry_cnt 7, rxe retries
# forever: a hang), the sender must end on retry exceeded, no send having
# succeeded, and the receiver get nothing; both libraries alike.
mtu_retry() {
  local name=rc_mtu_retry mode d t0 i p slib clib col cname rpid
  want "$name" || return 0
  for mode in ${MTU_RETRY_MODES:-debian:debian ours:ours}; do
    names "$mode" "$name"
    K=$((K + 1)); PORT=$((PORT + 1)); p=$PORT
    d=$CASES/$col/$cname; mkdir -p "$d"; t0=$(now)
    if [ "$ROLE" = a ]; then
      { tc qdisc add dev eth0 root handle 1: prio &&
        tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
          match ip protocol 17 0xff match ip dport 4791 0xffff \
          match u16 0x0400 0xfc00 at 2 action drop; } 2> "$d/tc.a.err" ||
        echo "tc failed on a: $(cat "$d/tc.a.err")" >> "$d/server.err"
      waitf "$SYNC/$K.ready" $((T + 60))
      run "$slib" "$d" server "$BIN/rc_linkdown" -g "$G" -p "$p" -x -m 4096 -r 3 "$CLI"
      touch "$SYNC/$K.done"
      waitf "$SYNC/$K.end" $((T + 60)) || echo "b did not finish case $K" >> "$d/client.err"
      tc -s filter show dev eth0 parent 1: > "$d/tc.a.stats" 2>&1
      tc qdisc del dev eth0 root 2>/dev/null
      judge "$d" "$t0" mtu_retry_check
    else
      run "$clib" "$d" client "$BIN/rc_linkdown" -g "$G" -p "$p" -x -m 4096 &
      rpid=$!
      for i in $(seq 1 $((T * 10))); do ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break; nap 0.1; done
      touch "$SYNC/$K.ready"
      wait $rpid
      waitf "$SYNC/$K.done" $((T + 60))
      touch "$SYNC/$K.end"
    fi
  done
}
# the filter dropped packets, the sender saw retry exceeded with no success
mtu_retry_check() {
  grep -qE '^phase 1: [0-9]+ posted, 0 success, [1-9][0-9]* retry exceeded' "$1/server.out" ||
    { echo "sender: $(grep -m1 '^phase 1' "$1/server.out" || echo 'no phase 1 line')"; return 1; }
  grep -q '^phase 1: received 0 messages' "$1/client.out" || { echo "receiver: $(grep -m1 '^phase 1' "$1/client.out")"; return 1; }
  grep -qE 'success [1-9]' "$1/tc.a.stats" || { echo "a's filter dropped nothing"; return 1; }
}

# mpi: Debian's Open MPI, its UCX pml over the verbs transports only (rc_verbs,
# ud_verbs for wireup), one rank per guest, launched by mpirun on a; the
# launch agent (vm/guest/mpi-agent.sh) hands orted to b through the shared
# directory, where this script runs it. vm/guest/mpi_pingpong.c checks every
# byte and prints each rank's libibverbs.so.1 from /proc/self/maps: both must
# be the library under test (MPI_LIBS, default ours). UCX_UD_ETH_DGID_CHECK=n:
# with UCX's check of the destination GID of received RoCE packets on, its UD
# wireup over rxe timed out on Debian's library and ours alike.
mpi_maps() { # DIR: both ranks mapped $want_lib
  local r got
  for r in 0 1; do
    got=$(grep -m1 "^rank $r: maps: " "$1/server.out" | sed 's/^rank [0-9]: maps: //')
    [ "$got" = "$want_lib" ] || { echo "rank $r mapped ${got:-no libibverbs.so.1}, not $want_lib"; return 1; }
  done
  grep -q '^ping-pong: .*: ok$' "$1/server.out" && grep -q '^allreduce over 2 ranks .*: ok$' "$1/server.out" &&
    grep -q '^alltoall over 2 ranks .*: ok$' "$1/server.out" ||
    { echo "the job's own checks did not pass"; return 1; }
}
# packets rxe0 received so far: the job's data must go over RDMA (about 14 MB
# come back to rank 0, some 14000 packets at MTU 1024), not over TCP
rxe_rcvd() { cat $(find /sys/class/infiniband/rxe0/ -name rcvd_pkts | head -1) 2>/dev/null || echo 0; }
mpi() {
  local name=mpi lib d t0 slib clib col cname f x want_lib pk pk0
  want "$name" || return 0
  command -v mpirun >/dev/null || { [ "$ROLE" = a ] && record ours mpi fail "$(now)" "mpirun is missing: scripts/install-deps.sh installs openmpi-bin"; return 0; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for lib in ${MPI_LIBS:-ours}; do
    names "$lib:$lib" "$name"
    K=$((K + 1))
    d=$CASES/$col/$cname; mkdir -p "$d" "$SHARED/mpi"; t0=$(now)
    if [ "$ROLE" = a ]; then
      printf '%s slots=1\n' "$SRV" "$CLI" > "$d/hostfile"
      case $lib in debian) want_lib=$(readlink -f /usr/lib/x86_64-linux-gnu/libibverbs.so.1) ;; *) want_lib=$OURS ;; esac
      x=""; [ "$lib" = debian ] || x="-x LD_LIBRARY_PATH"
      pk0=$(rxe_rcvd)
      timeout -k 5 $((T * 3)) env $(libenv "$lib") UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,ud_verbs,self UCX_IB_GID_INDEX=$G UCX_UD_ETH_DGID_CHECK=n \
        mpirun --allow-run-as-root --hostfile "$d/hostfile" -np 2 --map-by node \
          --mca plm_rsh_agent "$REPO/vm/guest/mpi-agent.sh" --mca pml ucx --mca btl self \
          --mca oob_tcp_if_include 192.168.77.0/24 $x -x UCX_NET_DEVICES -x UCX_TLS -x UCX_IB_GID_INDEX -x UCX_UD_ETH_DGID_CHECK \
          "$BIN/mpi_pingpong" > "$d/server.out" 2> "$d/server.err" < /dev/null
      echo $? > "$d/server.rc"; echo 0 > "$d/client.rc"
      pk=$(( $(rxe_rcvd) - pk0 ))
      touch "$SYNC/$K.done"
      rs=$(cat "$d/server.rc")
      if [ "$rs" != 0 ]; then record "$col" "$cname" fail "$t0" "mpirun exit $rs: $(why "$d/server.err")"
      elif ! x=$(mpi_maps "$d"); then record "$col" "$cname" fail "$t0" "$x"
      elif [ "$pk" -lt 10000 ]; then record "$col" "$cname" fail "$t0" "rxe0 on a received $pk packets during the job: the data did not go over RDMA"
      else record "$col" "$cname" pass "$t0" "rxe0 on a received $pk packets; $(grep -m1 '^ping-pong' "$d/server.out" | cut -c1-60)"
      fi
    else
      # run each command the agent hands over until a's mpirun is done
      while [ ! -e "$SYNC/$K.done" ]; do
        [ -e "$SYNC/a.exit" ] && peer_gone "$K.done" "guest a's VM ended"
        for f in "$SHARED"/mpi/*.cmd; do
          [ -e "$f" ] || continue
          mv "$f" "${f%.cmd}.run"
          ( bash -c "$(cat "${f%.cmd}.run")" > "${f%.cmd}.out" 2> "${f%.cmd}.err" < /dev/null; echo $? > "${f%.cmd}.rc" ) &
        done
        nap 0.2
      done
      wait
    fi
  done
}

# ib_write_bw-q8: both sides ran 8 QPs, and the client's result counts 800 writes
q8_check() {
  local f
  for f in server client; do
    grep -q 'Number of qps *: 8' "$1/$f.out" || { echo "$f: not 8 QPs"; return 1; }
  done
  awk '/#bytes/ { getline; if ($2 == 800) ok = 1 } END { exit !ok }' "$1/client.out" ||
    { echo "client: no result line of 800 writes"; return 1; }
}

# make bench-two-hosts (vm/run-two-hosts-bench.sh): the timed rounds, the
# libraries' order flipping every round, then the callgrind runs
bench_suite() {
  local CG="valgrind --tool=callgrind" RTN=${BENCH_RT_N:-100} WBN=${BENCH_WBW_N:-1000} r n order
  for r in $(seq 1 "${BENCH_ROUNDS:-2}"); do
    order="debian:debian ours:ours"; [ $((r % 2)) = 0 ] && order="ours:ours debian:debian"
    PAIR_MODES=$order pair "rc_bench-t$r" tcp "$BIN/rc_bench -g $G -p @PORT@ -n $RTN" "$BIN/rc_bench -g $G -p @PORT@ -n $RTN $SRV"
    PAIR_MODES=$order pair "ib_write_bw-t$r" tcp "ib_write_bw -d rxe0 -x $G -F -s 64 -n $WBN -p @PORT@" \
      "ib_write_bw -d rxe0 -x $G -F -s 64 -n $WBN -p @PORT@ $SRV"
  done
  RTN=${BENCH_CG_RT_N:-50}
  PAIR_MODES="debian:debian ours:ours" VG_PROOF=1 pair rc_bench-cg tcp \
    "$CG --collect-atstart=no --callgrind-out-file=@DIR@/cg.server $BIN/rc_bench -g $G -p @PORT@ -n $RTN" \
    "$CG --collect-atstart=no --callgrind-out-file=@DIR@/cg.client $BIN/rc_bench -g $G -p @PORT@ -n $RTN $SRV"
  # the client's Ir at two message counts: the difference per message
  # leaves out the set-up, the same in both runs
  for n in ${BENCH_CG_WBW_N:-100 500}; do
    PAIR_MODES="debian:debian ours:ours" VG_PROOF=1 pair "ib_write_bw-cg$n" tcp \
      "ib_write_bw -d rxe0 -x $G -F -s 64 -n $n -p @PORT@" \
      "$CG --callgrind-out-file=@DIR@/cg.client ib_write_bw -d rxe0 -x $G -F -s 64 -n $n -p @PORT@ $SRV"
  done
}

echo "two-hosts: guest $ROLE ($ADDR, GID index $G), kernel $(uname -r), suite $SUITE, pairs: $MODES"
[ "$ROLE" = a ] && : > "$RES"
if [ "$SUITE" = bench ]; then
  bench_suite
  echo "two-hosts: guest $ROLE done"
  exit 0
fi

pair ibv_rc_pingpong tcp "ibv_rc_pingpong -d rxe0 -g $G -n 100 -p @PORT@" "ibv_rc_pingpong -d rxe0 -g $G -n 100 -p @PORT@ $SRV"
pair ib_send_lat tcp "ib_send_lat -d rxe0 -x $G -F -n 100 -p @PORT@" "ib_send_lat -d rxe0 -x $G -F -n 100 -p @PORT@ $SRV"
CHECK=rping_data pair rping-V cm "rping -s -v -V -C 10 -a $SRV -p @PORT@" "rping -c -v -V -C 10 -a $SRV -p @PORT@"
if [ "$SUITE" = full ]; then
  for t in uc ud srq; do
    pair "ibv_${t}_pingpong" tcp "ibv_${t}_pingpong -d rxe0 -g $G -n 100 -s 512 -p @PORT@" "ibv_${t}_pingpong -d rxe0 -g $G -n 100 -s 512 -p @PORT@ $SRV"
  done
  for t in write read atomic; do
    pair "ib_${t}_bw" tcp "ib_${t}_bw -d rxe0 -x $G -F -n 100 -p @PORT@" "ib_${t}_bw -d rxe0 -x $G -F -n 100 -p @PORT@ $SRV"
  done
  # 8 QPs on one CQ, every write signaled. 64 B, one packet a message: with
  # the default 64 KiB, 8 QPs' bursts overflow the link's socket buffer and
  # rxe 6.1's go-back-N resends end some runs in status 9 on Debian's
  # library too (vm/README.md)
  CHECK=q8_check pair ib_write_bw-q8 tcp "ib_write_bw -d rxe0 -x $G -F -q 8 -s 64 -Q 1 -n 100 -p @PORT@" \
    "ib_write_bw -d rxe0 -x $G -F -q 8 -s 64 -Q 1 -n 100 -p @PORT@ $SRV"
  pair rping cm "rping -s -v -C 10 -a $SRV -p @PORT@" "rping -c -v -C 10 -a $SRV -p @PORT@"
  pair ucmatose cm "ucmatose -b $SRV -p @PORT@ -C 10" "ucmatose -s $SRV -p @PORT@ -C 10"
  pair rdma_server cm "rdma_server -s $SRV -p @PORT@" "rdma_client -s $SRV -p @PORT@"
  # rdma_cm's address and route resolution over the wire, UD and multicast
  pair udaddy cm:7174 "udaddy -b $SRV -C 10" "udaddy -s $SRV -C 10"
  pair mckey sleep "mckey -m 239.77.0.1 -b $SRV -C 10" "mckey -m 239.77.0.1 -b $CLI -s -C 10"
  # qperf over rdma_cm (RoCE needs GIDs, not LIDs); its server is a daemon,
  # with -D (its steps on stderr: the server's own errors go nowhere else),
  # and its race with its client held off (hold_nolistener_rej)
  late_listener
  ON_A=hold_nolistener_rej KILL_SERVER=1 pair qperf tcp "qperf -lp @PORT@ -D" "qperf -lp @PORT@ -cm1 -t 2 $SRV rc_bw rc_lat rc_rdma_write_bw"
  for t in rc_verbs ud_verbs; do
    pair "ucx_perftest-$t" tcp "env $UCX_ENV ucx_perftest -p @PORT@" \
      "env $UCX_ENV ucx_perftest -p @PORT@ -d rxe0:1 -x $t -t am_lat -n 2000 $SRV"
  done
  LINKDOWN_MODES=$MODES linkdown
  PEER_MODES=$MODES peerfault rc_peerkill kill
  PEER_MODES=$MODES peerfault rc_peercut cut
  PEER_VG=1 peerfault rc_peerkill-memcheck kill
  netem
  stall_stream
  mtu_case
  MTU_RETRY_MODES=$MODES mtu_retry
  MPI_LIBS=${MPI_LIBS:-ours debian} mpi
else
  linkdown
  peerfault rc_peerkill kill
  mtu_retry
  mpi
fi
echo "two-hosts: guest $ROLE done"
exit 0
