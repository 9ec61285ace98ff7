#!/bin/bash
# Runs in the guest for `make demo`: ibv_devinfo -v and an ibv_rc_pingpong
# exchange on our libibverbs.so.1 (LD_LIBRARY_PATH=<repo>/build/lib). Where our
# library cannot run them yet, shows its error next to Debian's run.
set -u
OURS_DIR=$REPO/build/lib
W=/tmp/demo; mkdir -p $W
ours_ok=0 debian_ok=0 steps=0

say() { printf '\n== %s\n' "$*"; }
loaded() { # which libibverbs.so.1 the dynamic linker initialised, per LD_DEBUG file(s)
  cat "$@" 2>/dev/null | grep -oE 'calling init: [^ ]*libibverbs\.so\.1' | sed 's/calling init: //' | sort -u | tr '\n' ' '
}
# run_with LIB TAG CMD...: LIB ours|debian
run_with() {
  local lib=$1 tag=$2; shift 2
  if [ "$lib" = ours ]; then
    timeout -k 5 60 env LD_LIBRARY_PATH="$OURS_DIR" LD_DEBUG=libs LD_DEBUG_OUTPUT=$W/ld.$tag "$@"
  else
    timeout -k 5 60 env LD_DEBUG=libs LD_DEBUG_OUTPUT=$W/ld.$tag "$@"
  fi
}
pingpong() { # LIB TAG: server and client on rxe0 (GID index 1 = 10.0.0.1), 20 exchanges
  local lib=$1 tag=$2 port=$((18515 + RANDOM % 1000)) s c
  run_with "$lib" $tag.srv ibv_rc_pingpong -d rxe0 -g 1 -n 20 -p $port > $W/$tag.srv.out 2>&1 &
  local spid=$!
  for i in $(seq 1 100); do ss -Hltn "sport = :$port" | grep -q . && break; kill -0 $spid 2>/dev/null || break; sleep 0.1; done
  run_with "$lib" $tag.cli ibv_rc_pingpong -d rxe0 -g 1 -n 20 -p $port 10.0.0.1 > $W/$tag.cli.out 2>&1
  c=$?
  wait $spid; s=$?
  echo "-- server: ibv_rc_pingpong -d rxe0 -g 1 -n 20 -p $port   (exit $s)"
  sed 's/^/   /' $W/$tag.srv.out
  echo "-- client: ibv_rc_pingpong -d rxe0 -g 1 -n 20 -p $port 10.0.0.1   (exit $c)"
  sed 's/^/   /' $W/$tag.cli.out
  [ $s = 0 ] && [ $c = 0 ]
}

say "Soft-RoCE VM: Linux $(uname -r), $(ls /sys/class/infiniband | tr '\n' ' ')(rxe0 on veth0 10.0.0.1, rxe1 on veth1 10.0.0.2)"
rdma link show | sed 's/^/   /'

# 1. ibv_devinfo -v
say "ibv_devinfo -v  on OUR library ($OURS_DIR/libibverbs.so.1)"
run_with ours devinfo ibv_devinfo -v > $W/devinfo.ours 2>&1; r=$?
cat $W/devinfo.ours
lib=$(loaded $W/ld.devinfo.*)
if [ $r = 0 ] && [[ $lib == *"$OURS_DIR"* ]]; then
  echo "=> ran on our library: the dynamic linker loaded $lib"; ours_ok=$((ours_ok + 1))
else
  echo "=> our library cannot run ibv_devinfo yet (exit $r)"
  say "ibv_devinfo -v  on Debian's libibverbs, for comparison"
  run_with debian devinfo-deb ibv_devinfo -v; r=$?
  [ $r = 0 ] && debian_ok=$((debian_ok + 1))
  echo "=> Debian's library: exit $r, loaded $(loaded $W/ld.devinfo-deb.*)"
fi
steps=$((steps + 1))

# 2. ibv_rc_pingpong
say "ibv_rc_pingpong on OUR library: a server and a client exchanging over rxe0"
if pingpong ours pp; then
  echo "=> ran on our library: server loaded $(loaded $W/ld.pp.srv.*)and client loaded $(loaded $W/ld.pp.cli.*)"
  ours_ok=$((ours_ok + 1))
else
  echo "=> our library cannot run ibv_rc_pingpong yet"
  say "ibv_rc_pingpong on Debian's libibverbs, for comparison"
  pingpong debian ppd && debian_ok=$((debian_ok + 1))
  echo "=> Debian's library: loaded $(loaded $W/ld.ppd.srv.* $W/ld.ppd.cli.*)"
fi
steps=$((steps + 1))

say "Summary"
if [ $ours_ok = $steps ]; then
  echo "Both ran on our libibverbs.so.1 ($OURS_DIR), against the kernel's rxe Soft-RoCE devices."
  exit 0
fi
echo "Our libibverbs.so.1 ran $ours_ok of $steps demo programs; Debian's library ran $debian_ok of the $((steps - ours_ok)) others in the same VM."
echo "(Our library does not implement these verbs yet; see README.md \"What works\".)"
[ $debian_ok = $((steps - ours_ok)) ] && exit 3
exit 1
