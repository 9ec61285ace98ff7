#!/usr/bin/env bash
# rdma-core 65 (Debian sid) programs and plugin on our library, in one VM boot:
#   tests/releases/sid65.sh [ROOT]     (default /var/tmp/sid-root)
# ROOT is a sid root from debootstrap with ibverbs-utils, ibverbs-providers,
# libibverbs-dev and gcc. Our build/lib/libibverbs.so.1 is copied into
# ROOT/opt/ibv-under-test and c-tests/v64/comp_cntr65.c is built there against
# sid's header; then, chrooted into ROOT on rxe, on sid's own library, on ours
# with IBV_PROVIDERS=auto and on ours with IBV_PROVIDERS=plugin (hosting sid's
# librxe-rdmav65.so, shown mapped in the server's /proc/PID/maps):
# ibv_devinfo, ibv_devinfo -v and comp_cntr65 print what sid's library prints,
# and ibv_rc_pingpong (plain and -N, the extended QP) passes. Exit 0 if all do.
set -uo pipefail
if [ "${1:-}" = --guest ]; then
	R=$2
	# The guest's /var/tmp is a fresh tmpfs: uncover the host's.
	[ -e "$R/usr/bin/ibv_devinfo" ] || umount -l /var/tmp
	for d in proc sys dev; do mount --bind /$d "$R/$d"; done
	mount -t tmpfs tmpfs "$R/tmp"
	O=/opt/ibv-under-test fail=0 out=/tmp/sid65
	mkdir -p $out
	for mode in sid auto plugin; do
		case $mode in
		sid) E="CTEST_EXPECT_LIB=/usr/lib/x86_64-linux-gnu/libibverbs.so.1" ;;
		*) E="LD_LIBRARY_PATH=$O IBV_PROVIDERS=$mode CTEST_EXPECT_LIB=$O/libibverbs.so.1" ;;
		esac
		for c in ibv_devinfo "ibv_devinfo -v" /opt/sid65/comp_cntr65; do
			f=$out/$mode.$(echo "$c" | tr ' /' '__')
			chroot "$R" env $E sh -c "$c" >"$f" 2>&1 || { echo "FAIL [$mode] $c: exit $?"; fail=1; }
			[ $mode = sid ] && continue
			if diff -u "$out/sid.${f#$out/$mode.}" "$f" >"$f.diff"; then echo "ok   [$mode] $c: as sid's"
			else echo "FAIL [$mode] $c differs from sid's:"; cat "$f.diff"; fail=1; fi
		done
		for opt in "" -N; do
			port=$((18000 + RANDOM % 1000))
			chroot "$R" env $E ibv_rc_pingpong -d rxe0 -g 1 -p $port -n 20 $opt >$out/srv 2>&1 &
			pid=$!
			# It listens once its device and QP are set up (its stdout is buffered).
			hp=$(printf ':%04X ' $port) i=0
			while ! grep -q "$hp.* 0A " /proc/net/tcp /proc/net/tcp6 && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
			maps=$(grep -oE '[^ ]*(libibverbs\.so[^ ]*|librxe[^ ]*)$' /proc/$pid/maps | sed "s|^$R||" | sort -u | tr '\n' ' ')
			chroot "$R" env $E ibv_rc_pingpong -d rxe0 -g 1 -p $port -n 20 $opt 127.0.0.1 >$out/cli 2>&1
			c=$?
			wait $pid
			s=$?
			want=/usr/lib/x86_64-linux-gnu/libibverbs.so.1.18.65.0
			[ $mode = sid ] || want=$O/libibverbs.so.1
			[ $mode = auto ] || want="$want /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav65.so"
			if [ $s = 0 ] && [ $c = 0 ] && [ "$maps" = "$want " ]; then echo "ok   [$mode] ibv_rc_pingpong $opt (maps: $maps)"
			else echo "FAIL [$mode] ibv_rc_pingpong $opt: server $s client $c maps $maps (want $want)"; cat $out/srv $out/cli; fail=1; fi
		done
	done
	exit $fail
fi
cd "$(dirname "$0")/../.."
R=${1:-/var/tmp/sid-root}
[ -x "$R/usr/bin/ibv_devinfo" ] && [ -e "$R/usr/include/infiniband/verbs.h" ] || { echo "sid65: no sid root at $R"; exit 2; }
mkdir -p "$R/opt/ibv-under-test" "$R/opt/sid65"
cp build/lib/libibverbs.so.1 "$R/opt/ibv-under-test/libibverbs.so.1" || exit 2
cp c-tests/common.h c-tests/rxe.h "$R/opt/sid65/" && mkdir -p "$R/opt/sid65/v64" &&
	cp c-tests/v64/comp_cntr65.c "$R/opt/sid65/v64/" &&
	chroot "$R" gcc -std=gnu11 -O1 -Wall -I/opt/sid65 -o /opt/sid65/comp_cntr65 /opt/sid65/v64/comp_cntr65.c -libverbs ||
	{ echo "sid65: cannot build comp_cntr65 in $R (gcc, libibverbs-dev)"; exit 2; }
exec vm/run.sh --lib debian --timeout "${VM_TIMEOUT:-900}" -- bash "$PWD/tests/releases/sid65.sh" --guest "$R"
