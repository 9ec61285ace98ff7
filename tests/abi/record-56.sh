#!/usr/bin/env bash
# Records the exports of Debian 13's libibverbs.so.1 (rdma-core 56.1) as test
# data (tests/abi/rdma-core-56.1.exports), for `make abi-test`'s symbols56
# check, which must not need the release root. Run by hand when the recorded
# reference changes; the output is committed. Reads the library of the
# trixie release root (scripts/release-root.sh trixie) with objdump -T.
# Format as the 44 list: node, name, and `compat` for a non-default version.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(scripts/release-root.sh --path trixie)
lib=$(readlink -f "$root/usr/lib/x86_64-linux-gnu/libibverbs.so.1")
out=tests/abi/rdma-core-56.1.exports
{
	echo "# The exports of Debian 13's libibverbs.so.1 ($(basename "$lib"), rdma-core 56.1),"
	echo "# read with objdump -T by tests/abi/record-56.sh: version node, name, and"
	echo "# \`compat\` for a non-default (older) version."
	objdump -T "$lib" | awk '$2 == "g" && NF >= 7 && $NF != $(NF-1) {
		ver = $(NF-1); name = $NF
		if (ver ~ /^\(/) { gsub(/[()]/, "", ver); print ver, name, "compat" } else print ver, name
	}' | grep -v '^Base ' | LC_ALL=C sort -u -k1,1V -k2,2
} >"$out"
echo "record-56: $(grep -vc '^#' "$out") exports of $lib in $out"
