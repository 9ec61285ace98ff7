#!/usr/bin/env bash
# A Debian release's own provider plugins find devices through our library as
# through the release's own, without hardware (no VM):
#   tests/releases/discovery.sh SUITE...      (trixie, sid)
# In a private mount namespace, chrooted into the release root
# (scripts/release-root.sh), with tmpfs over the root's /tmp, /mnt and /dev
# (the root itself is never written): a fake sysfs tree (SYSFS_PATH) of uverbs
# devices of several drivers, as tests/plugins/discovery.sh builds for
# Debian 12, and tests/plugins/devlist.c built with the release's compiler
# and header. The release's libibverbs (own) lists the devices with the
# plugin driving each; ours (a copy in /mnt/ours, LD_LIBRARY_PATH) must list
# the same with IBV_PROVIDERS=plugin, and with auto the same but rxe built in;
# ibv_devices must print what own's printed. Exit 0 if every check passes.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOTS=${RELEASE_ROOTS:-/var/cache/libibverbs-rs/roots}
if [ "${1:-}" != --inside ]; then
	[ $# -gt 0 ] || set -- trixie
	unshare -m true 2>/dev/null || { echo "release-discovery: SKIP (unshare -m not permitted here)"; exit 0; }
	rc=0
	for s in "$@"; do
		root=$(scripts/release-root.sh --path "$s") || { rc=1; continue; }
		unshare -m "$0" --inside "$s" "$root" || rc=1
	done
	exit $rc
fi
suite=$2 R=$3 fail=0
mount --make-rprivate / || exit 1
for d in tmp mnt dev; do mount -t tmpfs "rel-$d" "$R/$d" || exit 1; done
for n in null zero full random urandom tty; do
	touch "$R/dev/$n" && mount --bind "/dev/$n" "$R/dev/$n" || exit 1
done
mount -t proc proc "$R/proc" || exit 1
mkdir -p "$R/dev/infiniband" "$R/mnt/ours" "$R/tmp/sys/class/infiniband_verbs"
cp build/lib/libibverbs.so.1 "$R/mnt/ours/" || exit 1
sys=$R/tmp/sys
echo 6 >"$sys/class/infiniband_verbs/abi_version"

# dev NAME UVERBS MINOR NODE_TYPE MODALIAS (or - for none)
dev() {
	local name=$1 uv=$2 minor=$3 nt=$4 ma=$5
	local ib=$sys/class/infiniband/$name u=$sys/class/infiniband_verbs/$uv
	mkdir -p "$ib/device" "$u"
	echo "$name" >"$u/ibdev"
	echo "231:$minor" >"$u/dev"
	echo 1 >"$u/abi_version"
	echo "$nt" >"$ib/node_type"
	printf '0002:c903:00%02x:%04x\n' "$minor" "$minor" >"$ib/node_guid"
	[ "$ma" = - ] || echo "$ma" >"$ib/device/modalias"
	touch "$R/dev/infiniband/$uv"
}
dev mlx5_0  uverbs0 192 "1: CA"   pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00
dev efa_0   uverbs1 193 "7: unspecified" pci:v00001D0Fd0000EFA0sv00001D0Fsd0000EFA0bc02sc00i00
dev irdma0  uverbs2 194 "4: RNIC" pci:v00008086d00001592sv00008086sd00000002bc02sc00i00
dev bnxt_re0 uverbs3 195 "1: CA"  pci:v000014E4d000016D7sv000014E4sd00001402bc02sc00i00
dev hns_0   uverbs4 196 "1: CA"   pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00
dev mana_0  uverbs5 197 "1: CA"   pci:v00001414d000000BAsv00001414sd00000000bc02sc00i00
dev rxe0    uverbs6 198 "1: CA"   -
dev mlx5_1  uverbs7 199 "1: CA"   pci:v000015B3d0000101Dsv000015B3sd00000020bc02sc00i00

cp tests/plugins/devlist.c "$R/tmp/" &&
	chroot "$R" gcc -O1 -o /tmp/devlist /tmp/devlist.c -libverbs ||
	{ echo "release-discovery: $suite: cannot build devlist in the root (gcc, libibverbs-dev)"; exit 1; }

run() { # own|ours MODE PROGRAM...: stdout; stderr's "library:" line to $R/tmp/lib
	local lib=$1 mode=$2 env=(SYSFS_PATH=/tmp/sys IBV_PROVIDERS=$2)
	shift 2
	[ "$lib" = ours ] && env+=(LD_LIBRARY_PATH=/mnt/ours)
	chroot "$R" /usr/bin/env -i PATH=/usr/bin:/bin "${env[@]}" "$@" 2>"$R/tmp/err"
}
check() { # NAME EXPECTED ACTUAL
	if diff -u <(sort <<<"$2") <(sort <<<"$3") >"$R/tmp/diff"; then echo "  ok    $suite: $1"
	else echo "  FAIL  $suite: $1"; sed 's/^/        /' "$R/tmp/diff"; fail=1; fi
}
loaded() { # REGEX: the library devlist's last run reported
	local got
	got=$(sed -n 's/^library: //p' "$R/tmp/err")
	grep -qxE "$1" <<<"$got" || { echo "  FAIL  $suite: devlist ran on '$got', not $1"; fail=1; }
}

ref=$(run own auto /tmp/devlist)
loaded "(/usr)?/lib/x86_64-linux-gnu/libibverbs\\.so\\.1"
n=$(grep -c 'plugin=' <<<"$ref")
echo "release-discovery: $suite ($(readlink "$R/usr/lib/x86_64-linux-gnu/libibverbs.so.1")): own lists $n of 8 fake devices"
sed 's/^/        own: /' <<<"$ref"
[ "$n" -ge 6 ] || { echo "  FAIL  $suite: own lists $n devices"; fail=1; }
own_devices=$(run own auto ibv_devices)
# auto: rxe by our built-in Rust provider (no plugin ops), the rest by the
# plugin own picks; plugin: every device by the release's own plugin.
for mode in auto plugin; do
	want=$ref
	[ $mode = auto ] && want=$(sed 's/^\(rxe[0-9]* .*\)plugin=rxe$/\1plugin=(none)/' <<<"$ref")
	got=$(run ours $mode /tmp/devlist)
	loaded "/mnt/ours/libibverbs\\.so\\.1"
	check "devlist, IBV_PROVIDERS=$mode" "$want" "$got"
	check "ibv_devices, IBV_PROVIDERS=$mode" "$own_devices" "$(run ours $mode ibv_devices)"
done
if [ $fail = 0 ]; then echo "release-discovery: $suite PASS"; else echo "release-discovery: $suite FAIL"; fi
exit $fail
