#!/usr/bin/env bash
# rdma-core 65 (Debian sid) programs and plugin on our library, in one VM boot:
#   tests/releases/sid65.sh [ROOT]     (default /var/tmp/sid-root)
# ROOT is a sid root from debootstrap with ibverbs-utils, ibverbs-providers,
# libibverbs-dev and gcc; it is never written. c-tests/v64/comp_cntr65.c and
# tests/releases/cmd65.c are built against sid's header with its gcc, in a
# private mount namespace (tmpfs over ROOT's /tmp, /mnt, /dev), into
# build/releases/sid65/; in the guest a tmpfs over ROOT/opt holds them and a
# copy of our build/lib/libibverbs.so.1 (/opt/ibv-under-test). Then, chrooted
# into ROOT on rxe, on sid's own library, on ours with IBV_PROVIDERS=auto and
# on ours with IBV_PROVIDERS=plugin (hosting sid's librxe-rdmav65.so, shown
# mapped in the server's /proc/PID/maps):
# ibv_devinfo, ibv_devinfo -v, comp_cntr65 and (on a context of sid's rxe
# plugin) tests/releases/cmd65.c print what sid's library prints,
# and ibv_rc_pingpong (plain and -N, the extended QP), perftest's ib_send_lat
# and ib_write_bw (which link sid's libmlx5 and libefa) pass. Exit 0 if all do.
set -uo pipefail
if [ "${1:-}" = --guest ]; then
	R=$2
	# The guest's /var/tmp is a fresh tmpfs: uncover the host's.
	[ -e "$R/usr/bin/ibv_devinfo" ] || umount -l /var/tmp
	for d in proc sys dev; do mount --bind /$d "$R/$d"; done
	mount -t tmpfs tmpfs "$R/tmp"
	mount -t tmpfs opt "$R/opt"
	mkdir -p "$R/opt/ibv-under-test" "$R/opt/sid65"
	cp "$3/build/lib/libibverbs.so.1" "$R/opt/ibv-under-test/" &&
		cp "$3/build/releases/sid65/comp_cntr65" "$3/build/releases/sid65/cmd65" "$R/opt/sid65/" || exit 1
	O=/opt/ibv-under-test fail=0 out=/tmp/sid65 L=/usr/lib/x86_64-linux-gnu
	# A server and its client on rxe0 (NAME SERVER CLIENT EXTRA, @PORT@ in
	# the commands): both exit 0, and the server's /proc/PID/maps shows the
	# library of the mode, sid's rxe plugin unless ours runs its own rxe,
	# and EXTRA (sid's libraries the program links).
	pair() {
		local name=$1 scmd=$2 ccmd=$3 extra=$4 port pid hp i maps c s want
		port=$((18000 + RANDOM % 1000))
		chroot "$R" env $E ${scmd//@PORT@/$port} >$out/srv 2>&1 &
		pid=$!
		# It listens once its device and QP are set up (its stdout is buffered).
		hp=$(printf ':%04X ' $port) i=0
		while ! grep -q "$hp.* 0A " /proc/net/tcp /proc/net/tcp6 && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
		# sid's library loads every plugin (mlx5's and efa's are their
		# libraries): those are looked for only where the program links them.
		pat='libibverbs\.so[^ ]*|librxe[^ ]*'
		[ -z "$extra" ] || pat="$pat|libmlx5[^ ]*|libefa[^ ]*"
		maps=$(grep -oE "[^ ]*($pat)\$" /proc/$pid/maps |
			sed "s|^$R||" | LC_ALL=C sort -u | tr '\n' ' ')
		chroot "$R" env $E ${ccmd//@PORT@/$port} >$out/cli 2>&1
		c=$?
		wait $pid
		s=$?
		want=$L/libibverbs.so.1.18.65.0
		[ $mode = sid ] || want=$O/libibverbs.so.1
		[ $mode = auto ] || want="$want $L/libibverbs/librxe-rdmav65.so"
		want=$(printf '%s\n' $want $extra | LC_ALL=C sort -u | tr '\n' ' ')
		if [ $s = 0 ] && [ $c = 0 ] && [ "$maps" = "$want" ]; then echo "ok   [$mode] $name (maps: $maps)"
		else echo "FAIL [$mode] $name: server $s client $c maps $maps (want $want)"; cat $out/srv $out/cli; fail=1; fi
	}
	mkdir -p $out
	for mode in sid auto plugin; do
		case $mode in
		sid) E="CTEST_EXPECT_LIB=/usr/lib/x86_64-linux-gnu/libibverbs.so.1" ;;
		*) E="LD_LIBRARY_PATH=$O IBV_PROVIDERS=$mode CTEST_EXPECT_LIB=$O/libibverbs.so.1" ;;
		esac
		# cmd65 calls 65's provider commands on a context of sid's rxe
		# plugin: on sid's library and on ours hosting it.
		cmds=(ibv_devinfo "ibv_devinfo -v" /opt/sid65/comp_cntr65)
		[ $mode = auto ] || cmds+=(/opt/sid65/cmd65)
		for c in "${cmds[@]}"; do
			f=$out/$mode.$(echo "$c" | tr ' /' '__')
			chroot "$R" env $E sh -c "$c" >"$f" 2>&1 || { echo "FAIL [$mode] $c: exit $?"; fail=1; }
			# cmd65's lines are the kernel's answers: shown once.
			[ $mode = sid ] && [ "$c" = /opt/sid65/cmd65 ] && sed 's/^/     /' "$f"
			[ $mode = sid ] && continue
			if diff -u "$out/sid.${f#$out/$mode.}" "$f" >"$f.diff"; then echo "ok   [$mode] $c: as sid's"
			else echo "FAIL [$mode] $c differs from sid's:"; cat "$f.diff"; fail=1; fi
		done
		for opt in "" -N; do
			pair "ibv_rc_pingpong $opt" "ibv_rc_pingpong -d rxe0 -g 1 -p @PORT@ -n 20 $opt" \
				"ibv_rc_pingpong -d rxe0 -g 1 -p @PORT@ -n 20 $opt 127.0.0.1" ""
		done
		# perftest links sid's libmlx5 and libefa, which resolve against the
		# library under test (IBVERBS_PRIVATE_65) before main runs.
		for t in ib_send_lat ib_write_bw; do
			pair $t "$t -d rxe0 -x 1 -F -n 100 -p @PORT@" "$t -d rxe0 -x 1 -F -n 100 -p @PORT@ 127.0.0.1" \
				"$L/libefa.so.1.7.65.0 $L/libmlx5.so.1.27.65.0"
		done
	done
	exit $fail
fi
cd "$(dirname "$0")/../.."
R=${1:-/var/tmp/sid-root}
[ -x "$R/usr/bin/ibv_devinfo" ] && [ -e "$R/usr/include/infiniband/verbs.h" ] || { echo "sid65: no sid root at $R"; exit 2; }
[ -e build/lib/libibverbs.so.1 ] || { echo "sid65: build/lib/libibverbs.so.1 is missing: run 'make' first"; exit 2; }
out=$PWD/build/releases/sid65
rm -rf "$out" && mkdir -p "$out/src/v64" || exit 2
cp c-tests/common.h c-tests/rxe.h "$out/src/" &&
	cp c-tests/v64/comp_cntr65.c tests/releases/cmd65.c "$out/src/v64/" || exit 2
# shellcheck disable=SC2016
unshare -m sh -c '
	R=$1 out=$2
	mount --make-rprivate / &&
	for d in tmp mnt dev; do mount -t tmpfs "sid65-$d" "$R/$d" || exit 1; done &&
	touch "$R/dev/null" && mount --bind /dev/null "$R/dev/null" &&
	mkdir "$R/mnt/out" && mount --bind "$out" "$R/mnt/out" || exit 1
	for t in comp_cntr65 cmd65; do
		chroot "$R" /usr/bin/env -i PATH=/usr/bin:/bin gcc -std=gnu11 -O1 -Wall -I/mnt/out/src \
			-o /mnt/out/$t /mnt/out/src/v64/$t.c -libverbs || exit 1
	done' sid65 "$R" "$out" ||
	{ echo "sid65: cannot build comp_cntr65, cmd65 in $R (gcc, libibverbs-dev)"; exit 2; }
exec vm/run.sh --lib debian --timeout "${VM_TIMEOUT:-900}" -- bash "$PWD/tests/releases/sid65.sh" --guest "$R" "$PWD"
