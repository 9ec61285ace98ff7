#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Differential test of include/infiniband/verbs_inline.h against Debian's
# verbs.h inlines.  Builds inline_diff.c against Debian's headers and
# against ours, as C and C++, at -O0 and -O2, runs all and diffs outputs.
# Needs gcc, g++ and libibverbs-dev (for Debian's headers); does
# not link any libibverbs.  usage: c-tests/inline/diff.sh   (exit 0 = same)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ours="-I$repo/include"
def="-DRDMA_STATIC_PROVIDERS=mlx5,rxe,efa"
gcc -O2 -c -o "$tmp/sp.o" "$here/static_providers_fake.c"

rc=0
for lang in c c++; do
	for opt in -O0 -O2; do
		for hdr in debian ours; do
			inc=""
			[ $hdr = ours ] && inc=$ours
			if [ $lang = c ]; then
				cc="gcc -std=gnu11 -Wall -Wextra -Werror -x c"
			else
				cc="g++ -std=gnu++17 -Wall -Wextra -Werror -x c++"
			fi
			exe="$tmp/$lang$opt-$hdr"
			# shellcheck disable=SC2086
			$cc $opt $def $inc -c "$here/inline_diff.c" -o "$exe.o"
			g++ -o "$exe" "$exe.o" "$tmp/sp.o"
			"$exe" > "$exe.txt"
		done
		if cmp -s "$tmp/$lang$opt-debian.txt" "$tmp/$lang$opt-ours.txt"; then
			echo "inline diff $lang $opt: same ($(grep -c '=>' "$tmp/$lang$opt-ours.txt") calls)"
		else
			echo "inline diff $lang $opt: DIFFERENT"
			diff "$tmp/$lang$opt-debian.txt" "$tmp/$lang$opt-ours.txt" | head -40
			rc=1
		fi
	done
done
exit $rc
