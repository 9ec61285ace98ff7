#!/bin/bash
# In the VM (vm/run-releases.sh): a Debian release's own programs, chrooted
# into its root (scripts/release-root.sh), on three libraries:
#   own     the release's libibverbs.so.1
#   ours    ours by LD_LIBRARY_PATH=/mnt/ours (a tmpfs inside the root holding
#           a copy of build/lib/libibverbs.so.1), IBV_PROVIDERS=auto
#   plugin  ours as above with IBV_PROVIDERS=plugin: the release's own C
#           rxe plugin (librxe-rdmavNN.so) hosted by our library
# Cases: ibv_devinfo -v (ours and plugin print byte for byte what own
# printed), ibv_rc_pingpong, ib_send_lat, ib_write_bw (server and client both
# exit 0). Every process runs under LD_DEBUG=libs: a case passes only if each
# initialised the intended libibverbs.so.1, and in plugin mode the release's
# rxe plugin too.
#
#   releases.sh OUTDIR ROOTS_DIR SUITE...      (RELEASES_ONLY=REGEX: cases)
set -u
OUT=$1 ROOTS=$2; shift 2
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ONLY=${RELEASES_ONLY:-}
SRV=10.0.0.1
PORT=19000
RES=$OUT/results.tsv
: >"$RES"

now() { echo $(( $(date +%s%N) / 1000000 )); }
record() { # SUITE LIB NAME RESULT START DETAIL
  local s=$(( $(now) - $5 ))
  printf '%s\t%s\t%s\t%s\t%d.%01d\t%s\n' "$1" "$2" "$3" "$4" $((s / 1000)) $((s % 1000 / 100)) "$6" >>"$RES"
  printf '  %-7s %-7s %-16s %-4s %5ss %s\n' "$1" "$2" "$3" "$4" "$(tail -1 "$RES" | cut -f5)" "$6"
}

# run SUITE LIB DIR TAG CMD...: CMD in the root on LIB.
run() {
  local suite=$1 lib=$2 d=$3 tag=$4 root=$ROOTS/$1; shift 4
  local env=(LD_DEBUG=libs LD_DEBUG_OUTPUT=/mnt/dbg/$lib.$(basename "$d").$tag)
  case $lib in
    ours) env+=(LD_LIBRARY_PATH=/mnt/ours IBV_PROVIDERS=auto) ;;
    plugin) env+=(LD_LIBRARY_PATH=/mnt/ours IBV_PROVIDERS=plugin) ;;
  esac
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${env[@]}" "$@" \
    >"$d/$tag.out" 2>"$d/$tag.err"
  echo $? >"$d/$tag.rc"
}

# proof SUITE LIB DIR TAG: each traced process initialised the intended library.
proof() {
  local root=$ROOTS/$1 lib=$2 d=$3 tag=$4 f got n=0 want
  case $lib in
    own) want='/(usr/)?lib/x86_64-linux-gnu/libibverbs\.so\.1' ;;
    *) want='/mnt/ours/libibverbs\.so\.1' ;;
  esac
  for f in "$root/mnt/dbg/$lib.$(basename "$d").$tag".*; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    cp "$f" "$d/"
    got=$(grep -m1 -oE 'calling init: [^ ]*libibverbs\.so\.1' "$f" | sed 's/calling init: //')
    echo "$got" | grep -qxE "$want" || { echo "pid ${f##*.} initialised '${got:-no libibverbs}', not the $lib library"; return 1; }
    if [ "$lib" = plugin ] && ! grep -qE 'calling init: /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav[0-9]+\.so' "$f"; then
      echo "pid ${f##*.}: the release's rxe plugin was not loaded"; return 1
    fi
  done
  [ $n -gt 0 ] || { echo "no LD_DEBUG trace"; return 1; }
}

why() { { grep -m1 -iE 'error|not found|cannot|couldn|failed|fatal|unable' "$1" || grep -m1 -v '^\s*$' "$1"; } 2>/dev/null | cut -c1-160; }
want() { [ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]; }

# devinfo SUITE: ibv_devinfo -v, ours and plugin against own's output.
devinfo() {
  local suite=$1 lib d t0 detail
  want devinfo || return 0
  for lib in own ours plugin; do
    d=$OUT/$suite/$lib/devinfo; mkdir -p "$d"; t0=$(now)
    run "$suite" "$lib" "$d" main ibv_devinfo -v
    detail=""
    if [ "$(cat "$d/main.rc")" != 0 ]; then detail="exit $(cat "$d/main.rc"): $(why "$d/main.err")"
    elif ! detail=$(proof "$suite" "$lib" "$d" main); then :
    elif [ "$lib" != own ] && ! cmp -s "$OUT/$suite/own/devinfo/main.out" "$d/main.out"; then
      detail="differs from own: $(diff "$OUT/$suite/own/devinfo/main.out" "$d/main.out" | grep -m1 '^[<>]' | cut -c1-120)"
    else detail=""; fi
    if [ -z "$detail" ]; then record "$suite" "$lib" devinfo pass "$t0" "$([ "$lib" != own ] && echo "identical to own")"
    else record "$suite" "$lib" devinfo fail "$t0" "$detail"; fi
  done
}

# pair SUITE NAME 'SERVER ARGS' 'CLIENT ARGS' (@PORT@ replaced).
pair() {
  local suite=$1 name=$2 scmd=$3 ccmd=$4 lib d t0 p spid i detail
  want "$name" || return 0
  for lib in own ours plugin; do
    d=$OUT/$suite/$lib/$name; mkdir -p "$d"; t0=$(now)
    PORT=$((PORT + 1)); p=$PORT
    run "$suite" "$lib" "$d" server ${scmd//@PORT@/$p} &
    spid=$!
    for i in $(seq 1 400); do
      ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && break
      kill -0 $spid 2>/dev/null || break
      sleep 0.1
    done
    run "$suite" "$lib" "$d" client ${ccmd//@PORT@/$p}
    for i in $(seq 1 100); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
    kill $spid 2>/dev/null; wait $spid 2>/dev/null
    detail=""
    if [ "$(cat "$d/server.rc")" != 0 ]; then detail="server exit $(cat "$d/server.rc"): $(why "$d/server.err")"
    elif [ "$(cat "$d/client.rc")" != 0 ]; then detail="client exit $(cat "$d/client.rc"): $(why "$d/client.err")"
    elif ! detail=$(proof "$suite" "$lib" "$d" server) || ! detail=$(proof "$suite" "$lib" "$d" client); then :
    else detail=""; fi
    if [ -z "$detail" ]; then record "$suite" "$lib" "$name" pass "$t0" ""
    else record "$suite" "$lib" "$name" fail "$t0" "$detail"; fi
  done
}

for suite in "$@"; do
  root=$ROOTS/$suite
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
  echo "releases: $suite ($(readlink "$root/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))"
  devinfo "$suite"
  pair "$suite" ibv_rc_pingpong "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@" "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@ $SRV"
  pair "$suite" ib_send_lat "ib_send_lat -d rxe0 -x 1 -F -n 100 -p @PORT@" "ib_send_lat -d rxe0 -x 1 -F -n 100 -p @PORT@ $SRV"
  pair "$suite" ib_write_bw "ib_write_bw -d rxe0 -x 1 -F -n 100 -p @PORT@" "ib_write_bw -d rxe0 -x 1 -F -n 100 -p @PORT@ $SRV"
  umount -l "$root/tmp" "$root/mnt" "$root/dev" "$root/sys" "$root/proc" 2>/dev/null
done
pass=$(awk -F'\t' '$4 == "pass"' "$RES" | wc -l)
fail=$(awk -F'\t' '$4 != "pass"' "$RES" | wc -l)
echo "releases: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
