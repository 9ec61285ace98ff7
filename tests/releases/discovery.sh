#!/usr/bin/env bash
# A Debian release's own provider plugins find devices through our library as
# through the release's own, without hardware (no VM):
#   tests/releases/discovery.sh SUITE...      (trixie, sid)
# In a private mount namespace, chrooted into the release root
# (scripts/release-root.sh), with tmpfs over the root's /tmp, /mnt and /dev
# (the root itself is never written): a fake sysfs tree (SYSFS_PATH) of uverbs
# devices of several drivers, the one tests/plugins/discovery.sh builds for
# Debian 12 (tests/plugins/fake_devices.sh), and tests/plugins/devlist.c
# built with the release's compiler and header. The release's libibverbs
# (own) lists the devices with the plugin driving each; ours (a copy in
# /mnt/ours, LD_LIBRARY_PATH) must list the same with IBV_PROVIDERS=plugin,
# and with auto the same but rxe built in; ibv_devices must print what own's
# printed. Exit 0 if every check passes.
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
. tests/plugins/fake_devices.sh
mount --make-rprivate / || exit 1
for d in tmp mnt; do mount -t tmpfs "rel-$d" "$R/$d" || exit 1; done
private_dev "$R/dev" "$R/tmp/hold" || exit 1
mount -t proc proc "$R/proc" || exit 1
mkdir -p "$R/mnt/ours"
cp build/lib/libibverbs.so.1 "$R/mnt/ours/" || exit 1
sys=$R/tmp/sys devdir=$R/dev/infiniband
fake_devices

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
