#!/usr/bin/env bash
# Device discovery through rdma-core's C provider plugins, without hardware
# (`make plugin-test`, part of `make test`). A fake sysfs tree (SYSFS_PATH)
# holds uverbs devices of several drivers (mlx5, efa, irdma, bnxt_re, hns,
# mana, rxe); their /dev/infiniband/uverbsN nodes live in a private mount
# namespace (unshare -m, a tmpfs over /dev there), so the real /dev is never
# touched. On a kernel without RDMA netlink, rdma-core 44 falls back to
# scanning sysfs, so the plugins match by modalias/PCI id and by name.
# Debian's libibverbs and ours must list the same devices, each driven by the
# same plugin (devlist.c), and ibv_devices must print the same; with
# IBV_PROVIDERS=plugin too, and with IBV_PROVIDERS=builtin ours lists rxe only.
# Then a test-only 65 plugin (fake65.c) on a fake device of its own: rdma-core
# 65's public verbs must reach its ops (ops65.c, ops65.expected), and its
# import ops ibv_import_* and ibv_unimport_* (import.c, import.expected).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
LIB=$ROOT/build/lib
if [ "${1:-}" != "--inside" ]; then
	if ! unshare -m true 2>/dev/null; then
		echo "plugin-test: SKIP (unshare -m not permitted here)"
		exit 0
	fi
	work=$(mktemp -d)
	unshare -m "$0" --inside "$work"
	rc=$?
	# The namespace and its mounts are gone now; never cross into another
	# file system anyway.
	rm -rf --one-file-system "$work"
	exit $rc
fi

fail=0
work=$2
sys=$work/sys

# A private /dev (see fake_devices.sh), then the fake devices.
. tests/plugins/fake_devices.sh
mount --make-rprivate / || exit 1
private_dev /dev "$work/hold" || exit 1
ln -s /proc/self/fd /dev/fd
devdir=/dev/infiniband
fake_devices

gcc -O1 -o "$work/devlist" tests/plugins/devlist.c -libverbs || exit 1

run() { # LIBDIR-or-debian MODE PROGRAM...
	local lib=$1 mode=$2
	shift 2
	if [ "$lib" = debian ]; then
		env -u LD_LIBRARY_PATH SYSFS_PATH=$sys IBV_PROVIDERS=$mode "$@" 2>/dev/null
	else
		env LD_LIBRARY_PATH=$LIB SYSFS_PATH=$sys IBV_PROVIDERS=$mode "$@" 2>/dev/null
	fi
}

check() { # NAME EXPECTED ACTUAL
	if diff -u <(sort <<<"$2") <(sort <<<"$3") >"$work/diff"; then
		echo "  ok    $1"
	else
		echo "  FAIL  $1"
		sed 's/^/        /' "$work/diff"
		fail=1
	fi
}

# ran_on PROG [ERRFILE]: PROG's stderr (ERRFILE, else $work/PROG.err) names
# our library.
ran_on() {
	local err=${2:-$work/$1.err}
	if grep -qx "library: $LIB/libibverbs.so.1" "$err"; then
		echo "  ok    $1 runs on $LIB/libibverbs.so.1"
	else
		echo "  FAIL  $1's library: $(cat "$err")"
		fail=1
	fi
}

# in_order WHAT EXPECTED ACTUAL: the same lines in the same order.
in_order() {
	if diff -u <(echo "$2") <(echo "$3") >"$work/diff"; then
		echo "  ok    $1"
	else
		echo "  FAIL  $1"
		sed 's/^/        /' "$work/diff"
		fail=1
	fi
}

echo "plugin-test: discovery from a fake sysfs tree ($(ls "$sys/class/infiniband_verbs" | grep -c uverbs) devices)"
ref=$(run debian auto "$work/devlist")
echo "$ref" | sed 's/^/        debian: /'
# auto: rxe is served by our built-in Rust provider (no plugin ops), the rest
# by the plugin Debian's library picks; plugin: every device by its plugin.
builtin_rxe=$(sed 's/^\(rxe[0-9]* .*\)plugin=rxe$/\1plugin=(none)/' <<<"$ref")
for mode in auto plugin; do
	want=$ref
	[ $mode = auto ] && want=$builtin_rxe
	check "devlist, IBV_PROVIDERS=$mode" "$want" "$(run ours $mode "$work/devlist")"
	check "ibv_devices, IBV_PROVIDERS=$mode" "$(run debian auto ibv_devices)" "$(run ours $mode ibv_devices)"
done
# Built-in only: our Rust rxe provider and nothing else.
b=$(run ours builtin "$work/devlist")
if [ "$(grep -c plugin= <<<"$b")" = 1 ] && grep -q '^rxe0 .*plugin=(none)$' <<<"$b"; then
	echo "  ok    IBV_PROVIDERS=builtin lists rxe0 only, built in"
else
	echo "  FAIL  IBV_PROVIDERS=builtin: $b"
	fail=1
fi
# Every device of a driver that has a plugin was found (mana matches by netlink driver id only).
n=$(grep -c 'plugin=' <<<"$ref")
if [ "$n" -ge 6 ]; then echo "  ok    Debian's library lists $n devices"; else echo "  FAIL  Debian's library lists $n devices"; fail=1; fi
# Loading is lazy and quiet: with no device, no plugin is loaded and nothing printed.
empty=$work/empty
mkdir -p "$empty/class/infiniband_verbs"
echo 6 >"$empty/class/infiniband_verbs/abi_version"
out=$(env LD_LIBRARY_PATH=$LIB SYSFS_PATH=$empty LD_DEBUG=files "$work/devlist" 2>&1)
if grep -q 'rdmav34' <<<"$out"; then echo "  FAIL  plugins loaded with no device"; fail=1; else echo "  ok    no device: no plugin loaded"; fi

# A 65 plugin's own ops: fake65.c (a test-only plugin, built here) sets the
# op slots 34's layout lacks; ops65.c calls rdma-core 65's public verbs on
# its fake device, on our library. Each verb must reach the plugin's op, a
# bad object never; the run without 65's ops follows.
echo "plugin-test: a 65 plugin's port speed, counter, DMA handle, buffer, reg_mr_ex and DM export ops"
p65=$work/p65
mkdir -p "$p65" "$work/sys65/class/infiniband_verbs"
echo 6 >"$work/sys65/class/infiniband_verbs/abi_version"
sys=$work/sys65 dev fake65_0 uverbs8 200 "1: CA" fake65:test
gcc -O1 -Wall -fPIC -shared -Iinclude -o "$p65/libfake65-rdmav65.so" tests/plugins/fake65.c -ldl || exit 1
gcc -O1 -Wall -Iinclude -o "$work/ops65" tests/plugins/ops65.c -L"$LIB" -libverbs || exit 1
run65() {
	env LD_LIBRARY_PATH=$LIB SYSFS_PATH=$work/sys65 RDMAV_DRIVERS=fake65 \
		IBV_CONFIG_DIR=$p65 IBV_PROVIDER_DIR=$p65 "$@" "$work/ops65" 2>"$work/ops65.err"
}
got=$(run65)
ran_on ops65
# In order: each plugin line comes right before the verb's own.
in_order "public 65 verbs reach the plugin's ops ($(grep -c '^plugin:' <<<"$got") calls)" \
	"$(cat tests/plugins/ops65.expected)" "$got"
# The negative control: a plugin with 34's ops only. rdma-core's answers:
# its defaults (heap buffers, reg_mr_ex as the plugin's reg_mr) or
# EOPNOTSUPP, and no call of a 65 op.
got=$(run65 FAKE65_NO_OPS=1)
in_order "without 65's ops: rdma-core's defaults and EOPNOTSUPP ($(grep -c '^plugin:' <<<"$got") calls of 34's ops)" \
	"$(cat tests/plugins/ops65-no-ops.expected)" "$got"
# Imported PDs, MRs and DMs (import.c): the plugin's import ops make them,
# its unimport ops end them, also at ibv_close_device, where an imported
# object must never be destroyed (the kernel object is the exporter's too).
# Without the ops (FAKE65_NO_IMPORT, as rxe): EOPNOTSUPP.
echo "plugin-test: import and unimport of PDs, MRs and DMs through a plugin's ops"
gcc -O1 -Wall -Iinclude -o "$work/import" tests/plugins/import.c -L"$LIB" -libverbs || exit 1
runimport() { # MODE [VAR=VALUE...]
	local mode=$1
	shift
	env LD_LIBRARY_PATH=$LIB SYSFS_PATH=$work/sys65 RDMAV_DRIVERS=fake65 \
		IBV_CONFIG_DIR=$p65 IBV_PROVIDER_DIR=$p65 "$@" "$work/import" $mode 2>"$work/import.err"
}
got=$(runimport "")
ran_on import
in_order "imports reach the plugin, close unimports what is left ($(grep -c '^plugin:' <<<"$got") calls)" \
	"$(cat tests/plugins/import.expected)" "$got"
got=$(runimport "" FAKE65_NO_IMPORT=1)
in_order "without import ops: EOPNOTSUPP, nothing reaches the plugin ($(grep -c '^plugin:' <<<"$got") calls of other ops)" \
	"$(cat tests/plugins/import-no-ops.expected)" "$got"
# With ibv_fork_init's tracking (a kernel that does not copy pinned pages
# at fork, or no RDMA netlink): an imported MR at the address of an MR of
# ours is no range of ours, its dereg must leave the range kept from fork;
# so must an on-demand MR's of the plugin's on that range.
got=$(runimport fork)
want="plugin: alloc_pd
plugin: reg_mr length 4096 access 0x1 iova = addr
reg_mr: ok, kept from fork yes
plugin: reg_mr length 4096 access 0x41 iova = addr
reg_mr on demand: ok
plugin: dereg_mr
dereg_mr of the on-demand MR: 0, range kept from fork yes
plugin: import_mr pd 0 handle 24
import_mr at its address: ok
plugin: dereg_mr of imported 24
dereg_mr of the imported MR: 0, range kept from fork yes
plugin: dereg_mr
dereg_mr: 0, range kept from fork no
plugin: dealloc_pd
dealloc_pd: 0
plugin: free_context
close: 0"
if [ "$got" = "fork: not tracked on this kernel" ]; then
	echo "  ok    fork tracking off on this kernel: nothing to check"
else
	in_order "dereg of an imported MR leaves a range of ours kept from fork" "$want" "$got"
fi
# A plugin's buffers still allocated at ibv_close_device: the close frees
# them through the plugin (after the MR on one, before the PD), a later
# ibv_free_buf only ends the handle. Under valgrind memcheck, freeing after
# the close must leave no more memory in use at exit than freeing before it,
# with no error (a use of the freed context or buffer) and no definite leak.
echo "plugin-test: a 65 plugin's buffers freed after ibv_close_device (valgrind memcheck)"
gcc -O1 -Wall -Iinclude -o "$work/bufclose" tests/plugins/bufclose.c -L"$LIB" -libverbs || exit 1
if ! command -v valgrind >/dev/null; then
	echo "  FAIL  no valgrind"
	fail=1
else
	for m in before after; do
		env LD_LIBRARY_PATH=$LIB SYSFS_PATH=$work/sys65 RDMAV_DRIVERS=fake65 \
			IBV_CONFIG_DIR=$p65 IBV_PROVIDER_DIR=$p65 \
			valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=97 \
			--suppressions=vm/memcheck.supp --log-file="$work/vg.$m" "$work/bufclose" $m \
			>"$work/bufclose.$m" 2>"$work/bufclose.$m.err"
		echo $? >"$work/bufclose.$m.rc"
	done
	inuse() { sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 bytes in \2 blocks/p' "$work/vg.$1"; }
	lost() { sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$work/vg.$1"; }
	errs() { sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$work/vg.$1"; }
	ran_on bufclose "$work/bufclose.after.err"
	in_order "close frees the plugin's buffers, free_buf after it ends the handle" \
		"$(cat tests/plugins/bufclose.expected)" "$(cat "$work/bufclose.after")"
	b=$(inuse before) a=$(inuse after)
	if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(cat "$work/bufclose.after.rc")" = 0 ] &&
		[ "$(cat "$work/bufclose.before.rc")" = 0 ] && [ "$(errs after)" = 0 ] && [ "$(lost after)" = 0 ]; then
		echo "  ok    in use at exit: $a freed after close, $b before; definitely lost $(lost after) bytes, $(errs after) errors"
	else
		echo "  FAIL  in use at exit: '$a' freed after close, '$b' before; definitely lost '$(lost after)' bytes, $(errs after) errors (exit $(cat "$work/bufclose.after.rc"))"
		grep -v '^==[0-9]*== *$' "$work/vg.after" | head -40 | sed 's/^/        /'
		fail=1
	fi
fi
# A PABI 34 plugin of rdma-core 45..56 (fake34.c): its verbs_qp has
# comp_mask after 45's wr_flush, 8 bytes later than 44's. The host takes
# that layout from the libibverbs.so.1.14.56.1 its release installed in the
# plugin directory's parent: ibv_qp_to_qp_ex must find the QP and
# ibv_wr_flush reach the plugin. Without that file (release unknown) the
# host takes 44's layout, reads wr_flush's bytes as comp_mask, and finds no
# extended QP: the negative control.
echo "plugin-test: a rdma-core 45..56 PABI 34 plugin's extended QP (wr_flush)"
mkdir -p "$work/sys34/class/infiniband_verbs" "$work/lib56/libibverbs" "$work/lib00/libibverbs"
echo 6 >"$work/sys34/class/infiniband_verbs/abi_version"
sys=$work/sys34 dev fake34_0 uverbs9 201 "1: CA" fake34:test
gcc -O1 -Wall -fPIC -shared -Iinclude -o "$work/lib56/libibverbs/libfake34-rdmav34.so" tests/plugins/fake34.c -ldl || exit 1
cp "$work/lib56/libibverbs/libfake34-rdmav34.so" "$work/lib00/libibverbs/"
: >"$work/lib56/libibverbs.so.1.14.56.1"
gcc -O1 -Wall -Iinclude -o "$work/qp34" tests/plugins/qp34.c -L"$LIB" -libverbs || exit 1
run34() {
	env LD_LIBRARY_PATH=$LIB SYSFS_PATH=$work/sys34 RDMAV_DRIVERS=fake34 \
		IBV_CONFIG_DIR=$work/$1/libibverbs IBV_PROVIDER_DIR=$work/$1/libibverbs \
		"$work/qp34" 2>"$work/qp34.err"
}
want34="plugin: create_qp_ex type 2
qp_to_qp_ex: the QP
plugin: wr_flush rkey 7 addr 4096 len 64 type 1 level 0
destroy_qp: 0
dealloc_pd: 0
close: 0"
got=$(run34 lib56)
ran_on qp34
in_order "56.1's layout: qp_to_qp_ex finds the QP, wr_flush reaches the plugin" "$want34" "$got"
got=$(run34 lib00)
if grep -qx "qp_to_qp_ex: NULL" <<<"$got" && ! grep -q "wr_flush" <<<"$got"; then
	echo "  ok    release unknown: 44's layout taken, no extended QP found (the control)"
else
	echo "  FAIL  release unknown: $(tr '\n' ';' <<<"$got")"
	fail=1
fi
if [ $fail = 0 ]; then echo "plugin-test: PASS"; else echo "plugin-test: FAIL"; fi
exit $fail
