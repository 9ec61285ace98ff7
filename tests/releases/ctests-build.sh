#!/usr/bin/env bash
# Builds the project's C tests against a Debian release's own headers, with
# its own compiler, for vm/guest/releases.sh (its c-tests cases):
#   tests/releases/ctests-build.sh SUITE...      (trixie, sid)
# In a private mount namespace, chrooted into the release root
# (scripts/release-root.sh; tmpfs over its /mnt, /tmp and /dev, so the root
# is never written): c-tests/*.c as vm/run-tests.sh builds them for Debian 12
# (gcc -std=gnu11 -O1 -g -Wall, -libverbs -lpthread), and c-tests/v64/*.c,
# into build/releases/c-tests/SUITE/ (v64/NAME for the latter), each against
# the root's /usr/include/infiniband and linked with its libibverbs.so.
# RELEASES_ONLY (a regex on case names, c-tests/NAME; RELEASES_ONLY_SUITE
# for one release) builds a subset.
# BUILD.tsv there lists what did not build: a test of c-tests/ that does not
# is a failure (exit 1); a c-tests/v64/ one needs a newer rdma-core's API
# than the release has (n/a, with the compiler's first error).
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" != --inside ]; then
	[ $# -gt 0 ] || set -- trixie
	rc=0
	for s in "$@"; do
		root=$(scripts/release-root.sh --path "$s") || { rc=1; continue; }
		out=$PWD/build/releases/c-tests/$s
		rm -rf "$out" && mkdir -p "$out/v64" || { rc=1; continue; }
		t=$(date +%s)
		unshare -m "$0" --inside "$s" "$root" "$out" || rc=1
		echo "release-ctests: $s: $(find "$out" -type f -perm -u+x | wc -l) built," \
			"$(grep -c . "$out/BUILD.tsv") not, in $(( $(date +%s) - t )) s ($out)"
	done
	exit $rc
fi
suite=$2 R=$3 OUT=$4 fail=0
v=RELEASES_ONLY_$suite ONLY=${RELEASES_ONLY:-}
[ -z "${!v:-}" ] || ONLY=${!v}
mount --make-rprivate / || exit 1
for d in tmp mnt dev; do mount -t tmpfs "rel-$d" "$R/$d" || exit 1; done
for n in null zero full random urandom; do
	touch "$R/dev/$n" && mount --bind "/dev/$n" "$R/dev/$n" || exit 1
done
mkdir -p "$R/mnt/src" "$R/mnt/out" &&
	mount --bind -o ro "$PWD/c-tests" "$R/mnt/src" &&
	mount --bind "$OUT" "$R/mnt/out" || exit 1
: >"$OUT/BUILD.tsv"
for c in c-tests/*.c c-tests/v64/*.c; do
	n=${c#c-tests/}
	n=${n%.c}
	[ -z "$ONLY" ] || [[ c-tests/$n =~ $ONLY ]] || continue
	if ! chroot "$R" /usr/bin/env -i PATH=/usr/bin:/bin gcc -std=gnu11 -O1 -g -Wall \
		-I/mnt/src -o "/mnt/out/$n" "/mnt/src/$n.c" -libverbs -lpthread >"$OUT/$n.build.log" 2>&1; then
		err=$(grep -m1 'error' "$OUT/$n.build.log" | sed 's|/mnt/src/|c-tests/|' | cut -c1-160)
		if [[ $n == v64/* ]]; then
			printf 'c-tests/%s\tn/a\t%s\n' "$n" "needs a newer API than $suite's header: $err" >>"$OUT/BUILD.tsv"
		else
			printf 'c-tests/%s\tfail\t%s\n' "$n" "does not build against $suite's header: $err" >>"$OUT/BUILD.tsv"
			echo "release-ctests: $suite: c-tests/$n does not build: $err"
			fail=1
		fi
	fi
done
exit $fail
