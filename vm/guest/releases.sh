#!/bin/bash
# In the VM (vm/run-releases.sh): a Debian release's own programs and tests,
# chrooted into its root (scripts/release-root.sh), on up to three libraries:
#   own     the release's libibverbs.so.1
#   ours    ours by LD_LIBRARY_PATH=/mnt/ours (a tmpfs inside the root holding
#           a copy of build/lib/libibverbs.so.1), IBV_PROVIDERS=auto
#   plugin  ours as above with IBV_PROVIDERS=plugin: the release's own C
#           rxe plugin (librxe-rdmavNN.so) hosted by our library
# Cases: every ibverbs-utils program (ibv_devices and ibv_devinfo: ours and
# plugin print byte for byte what own printed, and exit as it did), the
# pingpongs, every perftest pair, the rdmacm-utils pairs, ibv_asyncwatch and
# the release's own pyverbs tests (vm/guest/pyverbs-outcomes.py, compared
# test by test). Every process runs under LD_DEBUG=libs: a case passes only
# if each initialised the intended libibverbs.so.1, and in plugin mode the
# release's rxe plugin too.
#
# Each case runs on own first. Results (OUTDIR/results.tsv):
#   pass      passed (on ours/plugin: as own did, output compared where noted)
#   fail      own passed and this library did not, or own failed where the
#             case says it must pass (a harness or release problem)
#   own-fail  own failed a case whose call says it may (OWN_MAY_FAIL=1, e.g.
#             XRC on rxe); ours and plugin must then fail the same way:
#   same      ... failed with own's exit statuses (and output, where compared)
#   differs   ... failed otherwise (counted as a failure)
#   xfail     ours/plugin failed a case vm/releases-expected-failures.txt
#             lists, with its reason; xpass: listed but passed (a failure)
# A library that passes where own failed is "pass" with the note "own fails".
#
#   releases.sh OUTDIR ROOTS_DIR SUITE[:LIB,LIB...]...
#     (RELEASES_ONLY=REGEX: cases, RELEASES_ONLY_SUITE for one suite;
#     default libraries: own,ours,plugin)
set -u
OUT=$1 ROOTS=$2; shift 2
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OURS=/mnt/ours/libibverbs.so.1
. "$REPO/vm/guest/common.sh"     # rping_data
ONLY=${RELEASES_ONLY:-}
T=${RELEASES_CASE_TIMEOUT:-90}   # per process (TCG on a busy host is slow)
SRV=10.0.0.1
PORT=19000
RES=$OUT/results.tsv
: >"$RES"

now() { echo $(( $(date +%s%N) / 1000000 )); }
# known SUITE LIB NAME: the reason vm/releases-expected-failures.txt gives
# for LIB failing NAME on SUITE (lines: SUITE LIB NAME-REGEX REASON...).
known() {
  local s l re why
  while read -r s l re why; do
    case $s in ''|'#'*) continue ;; esac
    [ "$s" = "$1" ] && [ "$l" = "$2" ] && [[ $3 =~ ^($re)$ ]] && { echo "$why"; return 0; }
  done <"$REPO/vm/releases-expected-failures.txt"
  return 1
}

record() { # SUITE LIB NAME RESULT START DETAIL
  local s=$(( $(now) - $5 )) r=$4 detail=$6 why
  # ours/plugin failures listed as expected are xfail (with the reason); a
  # listed case that passes is xpass, a failure, so the list stays honest
  if [ "$2" != own ] && why=$(known "$1" "$2" "$3"); then
    case $r in
      fail|differs) r=xfail detail="$why; $detail" ;;
      pass) r=xpass detail="listed as failing ($why) but passes" ;;
    esac
  fi
  set -- "$1" "$2" "$3" "$r" "$5" "$detail"
  printf '%s\t%s\t%s\t%s\t%d.%01d\t%s\n' "$1" "$2" "$3" "$4" $((s / 1000)) $((s % 1000 / 100)) "$6" >>"$RES"
  printf '  %-6s %-6s %-22s %-8s %5ss %s\n' "$1" "$2" "$3" "$4" "$(tail -1 "$RES" | cut -f5)" "$(echo "$6" | cut -c1-100)"
}

# run SUITE LIB DIR TAG CMD...: CMD in the root on LIB (at most T seconds).
run() {
  local suite=$1 lib=$2 d=$3 tag=$4 root=$ROOTS/$1; shift 4
  local env=(LD_DEBUG=libs LD_DEBUG_OUTPUT=/mnt/dbg/$lib.$(basename "$d").$tag)
  case $lib in
    ours) env+=(LD_LIBRARY_PATH=/mnt/ours IBV_PROVIDERS=auto) ;;
    plugin) env+=(LD_LIBRARY_PATH=/mnt/ours IBV_PROVIDERS=plugin) ;;
  esac
  # the C tests check which library serves them (c-tests/common.h)
  if [ "${CTEST:-0}" = 1 ]; then
    if [ "$lib" = own ]; then env+=(CTEST_EXPECT_LIB=/usr/lib/x86_64-linux-gnu/libibverbs.so.1 CTEST_IMPL=system)
    else env+=(CTEST_EXPECT_LIB=$OURS CTEST_IMPL=ours); fi
  fi
  timeout -k 5 "${TT:-$T}" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    "${env[@]}" "$@" >"$d/$tag.out" 2>"$d/$tag.err" </dev/null
  echo $? >"$d/$tag.rc"
}

# proof SUITE LIB DIR TAG: each traced process initialised the intended
# library (ANY=1: processes that load no libibverbs are allowed, at least one
# must load it, none another one).
proof() {
  local root=$ROOTS/$1 lib=$2 d=$3 tag=$4 f got n=0 plug=0
  local want='/mnt/ours/libibverbs\.so\.1'
  [ "$lib" = own ] && want='/(usr/)?lib/x86_64-linux-gnu/libibverbs\.so\.1'
  if [ "${ANY:-0}" = 1 ]; then
    # many processes (pyverbs): summed up in DIR/ld.summary, not copied
    local fs=("$root/mnt/dbg/$lib.$(basename "$d").$tag".*)
    [ -e "${fs[0]}" ] || { echo "no LD_DEBUG trace"; return 1; }
    grep -h -m1 -oE 'calling init: [^ ]*libibverbs\.so\.1' "${fs[@]}" | sed 's/calling init: //' |
      sort | uniq -c >"$d/ld.summary"
    plug=$(grep -l -E 'calling init: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav[0-9]+\.so' "${fs[@]}" | wc -l)
    echo "${#fs[@]} traced processes; with the rxe plugin: $plug" >>"$d/ld.summary"
    rm -f "${fs[@]}"
    n=$(head -n -1 "$d/ld.summary" | awk '{ n += $1 } END { print n + 0 }')
    [ "$n" -gt 0 ] || { echo "no process initialised a libibverbs"; return 1; }
    got=$(head -n -1 "$d/ld.summary" | awk '{ print $2 }' | grep -vxE "$want" | head -1)
    [ -z "$got" ] || { echo "a process initialised $got, not the $lib library"; return 1; }
    [ "$lib" != plugin ] || [ "$plug" -gt 0 ] || { echo "the release's rxe plugin was not loaded"; return 1; }
    return 0
  fi
  for f in "$root/mnt/dbg/$lib.$(basename "$d").$tag".*; do
    [ -e "$f" ] || continue
    mv "$f" "$d/"; f=$d/${f##*/}
    got=$(grep -m1 -oE 'calling init: [^ ]*libibverbs\.so\.1' "$f" | sed 's/calling init: //')
    [ -z "$got" ] && [ "${ANY:-0}" = 1 ] && continue
    n=$((n + 1))
    echo "$got" | grep -qxE "$want" || { echo "pid ${f##*.} initialised '${got:-no libibverbs}', not the $lib library"; return 1; }
    if grep -qE 'calling init: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav[0-9]+\.so' "$f"; then plug=$((plug + 1))
    elif [ "$lib" = plugin ] && [ "${ANY:-0}" != 1 ]; then echo "pid ${f##*.}: the release's rxe plugin was not loaded"; return 1; fi
  done
  [ $n -gt 0 ] || { echo "no LD_DEBUG trace of a process with libibverbs"; return 1; }
  [ "$lib" != plugin ] || [ $plug -gt 0 ] || { echo "the release's rxe plugin was not loaded"; return 1; }
}

untagged() { grep -v '^\[\(ours\|system\)\]' "$1" || true; }
why() { { grep -m1 -iE 'error|not found|cannot|couldn|failed|fatal|unable' "$1" || grep -m1 -v '^\s*$' "$1"; } 2>/dev/null | tr '\t' ' ' | cut -c1-160; }
want() { [ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]; }

# judge SUITE LIB NAME T0 STATUS DETAIL: record LIB's outcome of NAME against
# own's. STATUS: what identifies a failure (exit statuses, compared with
# own's); DETAIL: empty when the run passed, else why not.
declare -A OWN_OK OWN_STATUS
judge() {
  local suite=$1 lib=$2 name=$3 t0=$4 st=$5 detail=$6 key=$1/$3
  if [ "$lib" = own ]; then
    OWN_STATUS[$key]=$st
    if [ -z "$detail" ]; then OWN_OK[$key]=1; record "$suite" own "$name" pass "$t0" ""
    else OWN_OK[$key]=0
      if [ "${OWN_MAY_FAIL:-0}" = 1 ]; then record "$suite" own "$name" own-fail "$t0" "$detail"
      else record "$suite" own "$name" fail "$t0" "own library: $detail"; fi
    fi
    return
  fi
  if [ "${OWN_OK[$key]:-}" = "" ]; then record "$suite" "$lib" "$name" fail "$t0" "no own run to compare with"
  elif [ "${OWN_OK[$key]}" = 1 ]; then
    if [ -z "$detail" ]; then record "$suite" "$lib" "$name" pass "$t0" "${NOTE:-}"
    else record "$suite" "$lib" "$name" fail "$t0" "own passes: $detail"; fi
  elif [ -z "$detail" ]; then record "$suite" "$lib" "$name" pass "$t0" "own fails${NOTE:+; $NOTE}"
  elif [ "$st" = "${OWN_STATUS[$key]}" ] && [ "${SAME_OUT:-1}" = 1 ]; then record "$suite" "$lib" "$name" same "$t0" "as own: $detail"
  else record "$suite" "$lib" "$name" differs "$t0" "own: ${OWN_STATUS[$key]}, here: $st: $detail"; fi
}

# failed_here SUITE LIB DIR TAG: a failure of ours or plugin counts as own's
# only where the process is proven to have run on that library (SAME_OUT=0
# and the reason appended to detail if not).
failed_here() {
  local why
  why=$(proof "$@") && return 0
  [ "$2" = own ] && return 0
  SAME_OUT=0 detail="$detail; $why"
}

# single SUITE NAME CMD...: passes on exit 0 (and the proof). CMP=1: ours and
# plugin must also print byte for byte what own printed and exit as it did;
# with CTEST=1 (a C test) the lines tagged [ours]/[system] are left out.
single() {
  local suite=$1 name=$2 lib d t0 r detail NOTE SAME_OUT; shift 2
  want "$name" || return 0
  for lib in $LIBS; do
    d=$OUT/$suite/$lib/$name; mkdir -p "$d"; t0=$(now)
    run "$suite" "$lib" "$d" main "$@"
    r=$(cat "$d/main.rc"); detail="" SAME_OUT=1 NOTE=""
    local ref=$OUT/$suite/own/$name
    if [ "${CMP:-0}" = 1 ] && [ "$lib" != own ]; then
      NOTE="identical to own"
      local a=$ref/main.out b=$d/main.out
      if [ "${CTEST:-0}" = 1 ]; then
        untagged "$a" >"$d/ref.cmp"; untagged "$b" >"$d/out.cmp"; a=$d/ref.cmp b=$d/out.cmp
        NOTE="untagged output as own's, $(wc -l <"$a") lines"
        # own failed and this run passed its own checks: if own was killed
        # part way (a crash, the timeout), the lines it printed before must
        # be this run's first; if it failed a check (rdma-core 44's answer
        # where the release answers otherwise), its output is no reference
        local orc; orc=$(cat "$ref/main.rc" 2>/dev/null)
        if [ "$r" = 0 ] && [ "${orc:-0}" -ge 124 ]; then
          head -n "$(wc -l <"$a")" "$b" >"$d/out.head"; b=$d/out.head
          NOTE="own's $(wc -l <"$a") lines before its exit $orc agree"
        elif [ "$r" = 0 ] && [ "${orc:-0}" != 0 ]; then
          b=$a NOTE="own's output (exit $orc) not compared"
        fi
      fi
      cmp -s "$a" "$b" ||
        { SAME_OUT=0; detail="stdout differs from own's: $(diff "$a" "$b" | grep -m1 '^[<>]' | cut -c1-120)"; }
    fi
    if [ "$r" != 0 ]; then detail="exit $r: $(why "$d/main.err")${detail:+; $detail}"
      failed_here "$suite" "$lib" "$d" main
    elif [ -z "$detail" ] && ! detail=$(proof "$suite" "$lib" "$d" main); then :
    fi
    judge "$suite" "$lib" "$name" "$t0" "exit $r" "$detail"
  done
}

# pair SUITE NAME WAIT 'SERVER CMD' 'CLIENT CMD' (@PORT@ replaced by a fresh
# port). WAIT: tcp = a TCP listener on the port; udp = a UDP socket bound to
# it; cm = an RDMA-CM listener on it; cm:PORT = on PORT; comm:NAME = any
# cm_id of process NAME. CHECK=FN: FN DIR must also succeed (it checks the
# outputs; prints why not). UP=1: a server that serves until killed; it must
# still run when the client has finished, then SIGINT (to timeout, which
# passes it on; bash would log a SIGTERM death) ends it: status 130.
pair() {
  local suite=$1 name=$2 wait=$3 scmd=$4 ccmd=$5 lib d t0 p spid i detail rs rc NOTE="" SAME_OUT=1
  local tpid alive ws=0 wswhy=""
  [ "${UP:-0}" = 1 ] && ws=130 wswhy=" on SIGINT, not 130"
  want "$name" || return 0
  for lib in $LIBS; do
    d=$OUT/$suite/$lib/$name; mkdir -p "$d"; t0=$(now)
    PORT=$((PORT + 1)); p=$PORT
    run "$suite" "$lib" "$d" server ${scmd//@PORT@/$p} &
    spid=$!
    for i in $(seq 1 400); do
      case $wait in
        tcp) ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break ;;
        udp) ss -Hlun "sport = :$p" 2>/dev/null | grep -q . && break ;;
        cm) rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$p " && break ;;
        cm:*) rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":${wait#cm:} " && break ;;
        comm:*) rdma resource show cm_id 2>/dev/null | grep -q "comm ${wait#comm:}" && break ;;
      esac
      kill -0 $spid 2>/dev/null || break
      sleep 0.1
    done
    run "$suite" "$lib" "$d" client ${ccmd//@PORT@/$p}
    if [ "${UP:-0}" = 1 ]; then
      # timeout, run's child, and the server, its child
      tpid=$(pgrep -P $spid 2>/dev/null | head -1) alive=0
      [ -n "$tpid" ] && pgrep -P "$tpid" >/dev/null 2>&1 && alive=1
      [ -n "$tpid" ] && kill -INT "$tpid" 2>/dev/null
    else
      for i in $(seq 1 100); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
      kill $spid 2>/dev/null
    fi
    wait $spid 2>/dev/null
    rs=$(cat "$d/server.rc"); rc=$(cat "$d/client.rc"); detail=""
    if [ "$rc" != 0 ]; then detail="client exit $rc: $(why "$d/client.err")"
      failed_here "$suite" "$lib" "$d" client
    elif [ "${UP:-0}" = 1 ] && [ "$alive" != 1 ]; then detail="server ended (exit $rs) before the client did: $(why "$d/server.err")"
      failed_here "$suite" "$lib" "$d" server
    elif [ "$rs" != "$ws" ]; then detail="server exit $rs$wswhy: $(why "$d/server.err")"
      failed_here "$suite" "$lib" "$d" server
    elif ! detail=$(proof "$suite" "$lib" "$d" server) || ! detail=$(proof "$suite" "$lib" "$d" client); then :
    elif [ -n "${CHECK:-}" ] && ! detail=$($CHECK "$d"); then detail=${detail:-check $CHECK failed}
    else detail=""; fi
    judge "$suite" "$lib" "$name" "$t0" "server $rs client $rc" "$(echo "$detail" | head -1)"
  done
}

# rcopy_data DIR: the file rcopy's server wrote (it names it: "opening:
# PATH, ") holds byte for byte the client's source, /tmp/rcopy.src.
rcopy_data() {
  local root=$ROOTS/$(basename "$(dirname "$(dirname "$1")")") dst
  dst=$(grep -o 'opening: [^,]*,' "$1/server.out" | head -1 | sed 's/^opening: //; s/,$//')
  [ -n "$dst" ] || { echo "the server named no file it opened"; return 1; }
  local out; out=$(cmp "$root/tmp/rcopy.src" "$root$dst" 2>&1) && return 0
  echo "${out//$root/}"; return 1
}

# udpong_echo DIR (-C 100 -S 1000 -T e): the client prints its row only
# after the last echo came back: 200 transfers (there and back) of 1000 bytes.
udpong_echo() {
  awk '$1 == "custom" && $2 == "1000" && $3 == "200" { ok = 1 } END { exit !ok }' "$1/client.out" ||
    { echo "no row 'custom 1000 200' in the client's output"; return 1; }
}

# cmtime_tables DIR (-c 10): client and server each print two tables,
# "qp_conn 10" (with QPs) then "cm_conn 10" (without), each with its threads
# line, the header and the 17 steps in order, six counts each (times, not
# judged).
cmtime_tables() {
  local f
  for f in client server; do
    awk -v who=$f -v want=10 '
      BEGIN { n = split("full connect,create id,bind addr,resolve addr,resolve route," \
                        "create qp,init qp attr,init qp,rtr qp attr,rtr qp,rts qp attr," \
                        "rts qp,cm connect,establish,disconnect,destroy id,destroy qp", step, ",") }
      /^(qp_conn|cm_conn) +[0-9]+$/ { t++; kind[t] = $1; cnt[t] = $2; next }
      t && /^threads +[0-9]+$/ { thr[t] = 1; next }
      t && /^step / { hdr[t] = 1; next }
      t && hdr[t] && rows[t] < n && index($0, step[rows[t] + 1]) == 1 {
        rest = substr($0, length(step[rows[t] + 1]) + 1)
        if (rest ~ /^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +-?[0-9]+ +[0-9]+$/) rows[t]++
      }
      END {
        if (t != 2 || kind[1] != "qp_conn" || kind[2] != "cm_conn") {
          print who ": " t + 0 " tables (" kind[1] " " kind[2] "), not qp_conn and cm_conn"; exit 1 }
        for (i = 1; i <= 2; i++)
          if (cnt[i] != want || !thr[i] || !hdr[i] || rows[i] != n) {
            print who ": " kind[i] " " cnt[i] ": " rows[i] + 0 " of the " n " step rows"; exit 1 }
      }' "$1/$f.out" || return 1
  done
}

# asyncwatch SUITE: ibv_asyncwatch -d rxe1 sees PORT_ERR and PORT_ACTIVE when
# veth1 goes down and up.
asyncwatch() {
  local suite=$1 lib d t0 pid tpid apid i detail NOTE="" SAME_OUT=1
  want ibv_asyncwatch || return 0
  for lib in $LIBS; do
    d=$OUT/$suite/$lib/ibv_asyncwatch; mkdir -p "$d"; t0=$(now)
    TT=30 run "$suite" "$lib" "$d" main stdbuf -oL ibv_asyncwatch -d rxe1 &
    pid=$!
    for i in $(seq 1 100); do grep -q 'async event FD' "$d/main.out" 2>/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    ip link set veth1 down; sleep 0.5; ip link set veth1 up
    for i in $(seq 1 100); do grep -q 'IBV_EVENT_PORT_ACTIVE' "$d/main.out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    sleep 0.2
    # SIGINT to ibv_asyncwatch (the child of timeout, the child of run's subshell)
    tpid=$(pgrep -P $pid 2>/dev/null | head -1)
    apid=${tpid:+$(pgrep -P "$tpid" 2>/dev/null | head -1)}
    [ -n "$apid" ] && kill -INT "$apid" 2>/dev/null
    wait $pid 2>/dev/null
    detail=""
    if ! grep -q 'IBV_EVENT_PORT_ERR' "$d/main.out" || ! grep -q 'IBV_EVENT_PORT_ACTIVE' "$d/main.out"; then
      detail="no PORT_ERR/PORT_ACTIVE event seen: $(why "$d/main.err")"
    elif ! detail=$(proof "$suite" "$lib" "$d" main); then :
    fi
    judge "$suite" "$lib" ibv_asyncwatch "$t0" "events" "$detail"
    sleep 1   # rxe1 back up before the next run
  done
}

# ctests SUITE [removal]: the project's C tests built against the release's
# headers and with its compiler (tests/releases/ctests-build.sh, on the host),
# each on own, ours and plugin: ours and plugin must exit as own did and print
# own's untagged lines. A test own fails is own-fail (it checks the behaviour
# of rdma-core 44 and ours; a later release may differ); ours must then fail
# alike. "removal" runs c-tests/removal alone (it deletes and re-adds rxe0),
# the others skip it.
ctests() {
  local suite=$1 src=$REPO/build/releases/c-tests/$1 root=$ROOTS/$1 t n st why
  [ -d "$src" ] || { want c-tests/ && record "$suite" - c-tests fail "$(now)" "not built: tests/releases/ctests-build.sh $suite"; return 0; }
  if [ "${2:-}" != removal ]; then
    rm -rf "$root/mnt/ctests"; cp -r "$src" "$root/mnt/ctests"
    while IFS=$'\t' read -r n st why; do
      [ -n "$n" ] && want "$n" && record "$suite" - "$n" "$st" "$(now)" "$why"
    done <"$src/BUILD.tsv"
  fi
  for t in "$root"/mnt/ctests/*  "$root"/mnt/ctests/v64/*; do
    [ -f "$t" ] && [ -x "$t" ] || continue
    n=${t#"$root"/mnt/ctests/}
    [ "$n" = removal ] && [ "${2:-}" != removal ] && continue
    [ "$n" != removal ] && [ "${2:-}" = removal ] && continue
    # removal re-adds the devices and mt_post_poll runs to its own 120 s
    # deadline: three times the per-process limit
    TT=$(case $n in removal|mt_post_poll) echo $((T * 3)) ;; *) echo "$T" ;; esac) \
      CTEST=1 CMP=1 OWN_MAY_FAIL=1 single "$suite" "c-tests/$n" "/mnt/ctests/$n"
  done
}

# pyverbs SUITE: the release's own pyverbs tests on rxe0 (GID index 1), one
# run per library; per-test outcomes in OUTDIR/SUITE/LIB/pyverbs/outcomes.tsv.
# A test own passes must pass on ours and plugin: each one that does not is a
# row "pyverbs/ID" fail.
pyverbs() {
  local suite=$1 root=$ROOTS/$1 lib d t0 detail counts reg n
  want pyverbs || return 0
  [ -d "$root/usr/share/doc/rdma-core/tests" ] || { record "$suite" - pyverbs fail "$(now)" "no pyverbs tests in the root"; return; }
  rm -rf "$root/tmp/pyv"; mkdir -p "$root/tmp/pyv"
  cp -r "$root/usr/share/doc/rdma-core/tests" "$root/tmp/pyv/"
  gunzip -f "$root"/tmp/pyv/tests/*.gz
  cp "$REPO/vm/guest/pyverbs-outcomes.py" "$root/tmp/pyv/"
  for lib in $LIBS; do
    d=$OUT/$suite/$lib/pyverbs; mkdir -p "$d"; t0=$(now)
    TT=${RELEASES_PYVERBS_TIMEOUT:-1500} run "$suite" "$lib" "$d" main \
      python3 /tmp/pyv/pyverbs-outcomes.py /tmp/pyv rxe0 1 /tmp/pyv/$lib.tsv
    cp "$root/tmp/pyv/$lib.tsv" "$d/outcomes.tsv" 2>/dev/null || : >"$d/outcomes.tsv"
    counts=$(cut -f2 "$d/outcomes.tsv" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')
    detail=""
    if [ ! -s "$d/outcomes.tsv" ]; then detail="exit $(cat "$d/main.rc"): no outcomes: $(why "$d/main.err")"
    elif ! detail=$(ANY=1 proof "$suite" "$lib" "$d" main); then :
    fi
    if [ "$lib" = own ]; then
      if [ -z "$detail" ]; then record "$suite" own pyverbs pass "$t0" "$counts"
      else record "$suite" own pyverbs fail "$t0" "own library: $detail"; fi
      continue
    fi
    # tests own passed that this library did not
    reg=$(awk -F'\t' 'NR == FNR { if ($2 == "pass") ok[$1] = 1; next }
                      ($1 in ok) && $2 != "pass" { print $1 "\t" $2 "\t" $3 }' \
          "$OUT/$suite/own/pyverbs/outcomes.tsv" "$d/outcomes.tsv")
    n=$(awk -F'\t' '$2 == "pass"' "$OUT/$suite/own/pyverbs/outcomes.tsv" | wc -l)
    # ... and those that did not run at all (the tests did not load, or a
    # crash the child could not go on after)
    local miss
    miss=$(awk -F'\t' 'NR == FNR { if ($2 == "pass") ok[$1] = 1; next } { seen[$1] = 1 }
                       END { for (i in ok) if (!(i in seen)) n++; print n + 0 }' \
          "$OUT/$suite/own/pyverbs/outcomes.tsv" "$d/outcomes.tsv")
    if [ -z "$detail" ] && [ "$miss" -gt 0 ]; then
      detail="$miss of the $n tests own passes did not run here: $(head -1 "$d/outcomes.tsv" | cut -f1,3 | tr '\t' ' ') $(why "$d/main.err")"
    fi
    echo "$reg" | while IFS=$'\t' read -r id k why; do
      [ -n "$id" ] && record "$suite" "$lib" "pyverbs/${id#tests.}" fail "$t0" "own passes, here $k: $why"
    done
    if [ -z "$detail" ] && [ -z "$reg" ]; then record "$suite" "$lib" pyverbs pass "$t0" "$counts; every one of own's $n passes"
    else
      [ -n "$detail" ] || detail="$(echo "$reg" | wc -l) of the $n tests own passes fail"
      record "$suite" "$lib" pyverbs fail "$t0" "$detail; $counts"; fi
  done
}

# stage SUITE NAME: ends the stage begun at $STAGE_T0 (its seconds to
# OUTDIR/stages.tsv, which vm/run-releases.sh and the report read), begins
# the next.
stage() {
  local t; t=$(date +%s)
  printf '%s\t%s\t%d\n' "$1" "$2" $((t - STAGE_T0)) >>"$OUT/stages.tsv"
  echo "releases: $1: $2 took $((t - STAGE_T0)) s"
  STAGE_T0=$t
}

cases() {
  local s=$1 t k
  STAGE_T0=$(date +%s)
  # --- ibverbs-utils: deterministic output, compared byte for byte
  CMP=1 single "$s" ibv_devices ibv_devices
  CMP=1 single "$s" devinfo ibv_devinfo
  CMP=1 single "$s" devinfo-v ibv_devinfo -v
  CMP=1 single "$s" devinfo-rxe1-v ibv_devinfo -d rxe1 -i 1 -v
  stage "$s" ibverbs-utils
  # --- ping-pongs over rxe0 (both ends on it)
  pair "$s" ibv_rc_pingpong tcp "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  pair "$s" ibv_rc_pingpong-e tcp "ibv_rc_pingpong -d rxe0 -g 1 -n 50 -e -p @PORT@" "ibv_rc_pingpong -d rxe0 -g 1 -n 50 -e -p @PORT@ $SRV"
  pair "$s" ibv_uc_pingpong tcp "ibv_uc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_uc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  pair "$s" ibv_ud_pingpong tcp "ibv_ud_pingpong -d rxe0 -g 1 -n 100 -s 512 -p @PORT@" "ibv_ud_pingpong -d rxe0 -g 1 -n 100 -s 512 -p @PORT@ $SRV"
  pair "$s" ibv_srq_pingpong tcp "ibv_srq_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_srq_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  # XRC: rxe has none, so own fails; ours must fail alike
  OWN_MAY_FAIL=1 pair "$s" ibv_xsrq_pingpong tcp "ibv_xsrq_pingpong -d rxe0 -g 1 -n 50 -p @PORT@" "ibv_xsrq_pingpong -d rxe0 -g 1 -n 50 -p @PORT@ $SRV"
  stage "$s" pingpongs
  # --- perftest: every pair rxe can run, short
  for t in send write read atomic; do
    for k in lat bw; do
      pair "$s" "ib_${t}_${k}" tcp "ib_${t}_${k} -d rxe0 -x 1 -F -n 100 -p @PORT@" "ib_${t}_${k} -d rxe0 -x 1 -F -n 100 -p @PORT@ $SRV"
    done
  done
  # raw Ethernet QPs: rxe makes none, so own fails creating one; ours
  # must fail alike (the MACs are never used)
  # (burst_lat's default software rate limiter is refused before any
  # device is opened: it asks for the hardware one)
  for t in bw lat burst_lat fs_rate; do
    OWN_MAY_FAIL=1 single "$s" "raw_ethernet_$t" "raw_ethernet_$t" --client -d rxe0 -B 02:00:00:00:00:01 -E 02:00:00:00:00:02 \
      $([ $t = burst_lat ] && echo --rate_limit_type=HW)
  done
  stage "$s" perftest
  # --- rdmacm-utils (their librdmacm runs over the library under test)
  CHECK=rping_data pair "$s" rping-V cm "rping -s -v -V -C 10 -a $SRV -p @PORT@" "rping -c -v -V -C 10 -a $SRV -p @PORT@"
  pair "$s" ucmatose cm "ucmatose -b $SRV -p @PORT@ -C 10" "ucmatose -s $SRV -p @PORT@ -C 10"
  pair "$s" udaddy cm:7174 "udaddy -b $SRV -C 10" "udaddy -s $SRV -C 10"
  pair "$s" rdma_server cm "rdma_server -s $SRV -p @PORT@" "rdma_client -s $SRV -p @PORT@"
  # the release's own rdma_xclient (both releases) may wait past the limit
  # for its send completion after rdma_xserver got the message and left
  OWN_MAY_FAIL=1 pair "$s" rdma_xserver cm "rdma_xserver -p @PORT@ -c r" "rdma_xclient -s $SRV -p @PORT@ -c r"
  # XRC over the CM: rxe has none, so own's rdma_xclient -c x fails at
  # rdma_create_ep; ours must fail alike (its server would wait forever)
  OWN_MAY_FAIL=1 single "$s" rdma_xclient-x rdma_xclient -s $SRV -p 7471 -c x
  pair "$s" rstream cm "rstream -b $SRV -p @PORT@ -S 4096 -C 20 -T v" "rstream -s $SRV -p @PORT@ -S 4096 -C 20 -T v"
  pair "$s" riostream cm "riostream -b $SRV -p @PORT@ -S 4096 -C 20 -T v" "riostream -s $SRV -p @PORT@ -S 4096 -C 20 -T v"
  pair "$s" mckey comm:mckey "mckey -m 239.1.1.1 -b $SRV -C 5" "mckey -m 239.1.1.1 -s -b $SRV -C 5"
  # servers that serve until killed (UP=1): rcopy copies 384 KiB + 3 bytes
  # of random data, udpong echoes 100 datagrams. udpong's rsocket datagrams
  # give each QP an AH to itself with a LID and no GRH, which a RoCE port
  # refuses (ibv_create_ah EINVAL, rconnect fails): own fails on rxe, ours
  # must fail alike
  want rcopy && head -c 393219 /dev/urandom >"$ROOTS/$s/tmp/rcopy.src"
  UP=1 CHECK=rcopy_data pair "$s" rcopy cm "rcopy -p @PORT@" "rcopy /tmp/rcopy.src $SRV:/tmp/rcopy.@PORT@ -p @PORT@"
  OWN_MAY_FAIL=1 UP=1 CHECK=udpong_echo pair "$s" udpong udp "udpong -b $SRV -p @PORT@" "udpong -s $SRV -p @PORT@ -C 100 -S 1000 -T e"
  # cmtime, 10 connections: 56's client names the server (-s); 65's peers
  # meet at a controller (-C, the first to bind it), its server is -L. The
  # test without QPs gives each side QP numbers from -q (default 1000): on
  # one host the same ones would be a stale connection to the CM, rejected
  if grep -qa controller_address "$ROOTS/$s/usr/bin/cmtime"; then
    CHECK=cmtime_tables pair "$s" cmtime tcp "cmtime -L -b $SRV -C $SRV -p @PORT@ -c 10" "cmtime -b $SRV -C $SRV -p @PORT@ -c 10 -q 2000"
  else
    CHECK=cmtime_tables pair "$s" cmtime tcp "cmtime -b $SRV -p @PORT@ -c 10" "cmtime -s $SRV -p @PORT@ -c 10 -q 2000"
  fi
  stage "$s" rdmacm-utils
  # --- the project's C tests, built against the release's headers
  ctests "$s"
  stage "$s" c-tests
  # --- the release's own pyverbs tests
  pyverbs "$s"
  stage "$s" pyverbs
  # --- change the devices for everyone: last
  ctests "$s" removal
  asyncwatch "$s"
  stage "$s" removal+asyncwatch
}

for arg in "$@"; do
  suite=${arg%%:*}
  LIBS="own ours plugin"
  [[ $arg == *:* ]] && LIBS=${arg#*:} && LIBS=${LIBS//,/ }
  root=$ROOTS/$suite
  v=RELEASES_ONLY_$suite ONLY=${RELEASES_ONLY:-}
  [ -z "${!v:-}" ] || ONLY=${!v}
  if [ ! -f "$root/.release-root" ]; then
    printf '%s\t-\tsetup\tfail\t0\tno release root at %s\n' "$suite" "$root" >>"$RES"; continue
  fi
  # The root is read-only here (the host's, over 9p): mounts only.
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs ours "$root/mnt"
  mount -t tmpfs tmp "$root/tmp"
  mkdir -p "$root/mnt/ours" "$root/mnt/dbg"
  cp "$REPO/build/lib/libibverbs.so.1" "$root/mnt/ours/"
  echo "releases: $suite ($(readlink "$root/usr/lib/x86_64-linux-gnu/libibverbs.so.1")) on: $LIBS"
  s0=$(date +%s)
  cases "$suite"
  printf '%s\t%s\t%d\n' "$suite" all $(( $(date +%s) - s0 )) >>"$OUT/stages.tsv"
  echo "releases: $suite took $(( $(date +%s) - s0 )) s"
  umount -l "$root/tmp" "$root/mnt" "$root/dev" "$root/sys" "$root/proc" 2>/dev/null
done
pass=$(awk -F'\t' '$4 == "pass"' "$RES" | wc -l)
same=$(awk -F'\t' '$4 == "same" || $4 == "own-fail"' "$RES" | wc -l)
xfail=$(awk -F'\t' '$4 == "xfail"' "$RES" | wc -l)
na=$(awk -F'\t' '$4 == "n/a"' "$RES" | wc -l)
fail=$(awk -F'\t' '$4 == "fail" || $4 == "differs" || $4 == "xpass"' "$RES" | wc -l)
echo "releases: $pass passed, $same failed on own and the same way on ours (own-fail, same), $xfail expected failures (xfail), $na not built (n/a), $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
