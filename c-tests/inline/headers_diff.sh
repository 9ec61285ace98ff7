#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Layout/value check of our companion headers against Debian's: compiles
# one file including all of them with -g twice (Debian's / ours) and
# compares every struct layout (pahole), every enumerator name/value
# (DWARF) and the object-like macro set (gcc -dM, macros whose definition
# is code are ignored).  Needs pahole (dwarves) and libibverbs-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v pahole >/dev/null || { echo "headers_diff: pahole missing, skipped"; exit 0; }

ours="-I$repo/include"
if [ ! -f "$repo/include/infiniband/verbs.h" ]; then
	python3 "$here/mk_typesonly.py" "$tmp/typesonly"
	ours="-I$tmp/typesonly $ours"
fi
cat > "$tmp/h.c" <<'EOC'
#include <infiniband/verbs.h>
#include <infiniband/sa.h>
#include <infiniband/opcode.h>
#include <infiniband/tm_types.h>
#include <infiniband/sa-kern-abi.h>
#include <infiniband/arch.h>
EOC
rc=0
for hdr in debian ours; do
	inc=""
	[ $hdr = ours ] && inc=$ours
	# shellcheck disable=SC2086
	gcc -w -g -fno-eliminate-unused-debug-types $inc -c "$tmp/h.c" -o "$tmp/$hdr.o"
	pahole "$tmp/$hdr.o" > "$tmp/$hdr.structs"
	readelf --debug-dump=info "$tmp/$hdr.o" |
		awk '/DW_AT_name/{n=$NF} /DW_AT_const_value/{print n, $NF}' > "$tmp/$hdr.enums"
	# shellcheck disable=SC2086
	gcc -w -E -dM $inc "$tmp/h.c" | grep -v '^#define [A-Za-z_0-9]*(' |
		grep -v 'INFINIBAND_VERBS_INLINE_H' | sort > "$tmp/$hdr.macros"
done
for k in structs enums macros; do
	if cmp -s "$tmp/debian.$k" "$tmp/ours.$k"; then
		echo "headers_diff $k: same ($(wc -l < "$tmp/ours.$k") lines)"
	else
		echo "headers_diff $k: DIFFERENT"
		diff "$tmp/debian.$k" "$tmp/ours.$k" | head -40
		rc=1
	fi
done
exit $rc
