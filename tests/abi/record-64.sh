#!/usr/bin/env bash
# Records rdma-core 64's public facts as test data (tests/abi/rdma-core-64/ and
# tests/abi/rdma-core-64.exports), because CI cannot fetch rdma-core. Run by hand
# when the recorded reference changes; the output is committed.
#
# Source: the v64.0 tag of https://github.com/linux-rdma/rdma-core (commit
# f272237493ef309984036f7b85655e11104c61c8), read from a local bare clone:
#   tests/abi/record-64.sh /path/to/rdma-core.git
# The headers rdma-core installs under include/infiniband/ (libibverbs/{verbs,verbs_api,
# tm_types,sa,opcode,arch,sa-kern-abi}.h and kernel-headers/rdma/ib_user_ioctl_verbs.h)
# are extracted to a scratch directory and compiled exactly as abi_check.py compiles
# Debian's 44 (gcc, DWARF via pyelftools, gcc -aux-info, -dD), with the host's
# linux-libc-dev for <rdma/*.h>. Only facts are recorded: layouts member by member,
# integer constant values and C types, macro names, prototypes, exported name@version.
set -euo pipefail
cd "$(dirname "$0")/../.."
GIT=${1:-/work/.mirror/linux-rdma+rdma-core/repo}
TAG=v64.0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include/infiniband"
for f in verbs.h verbs_api.h tm_types.h sa.h opcode.h arch.h sa-kern-abi.h; do
	git -C "$GIT" show "$TAG:libibverbs/$f" >"$tmp/include/infiniband/$f"
done
git -C "$GIT" show "$TAG:kernel-headers/rdma/ib_user_ioctl_verbs.h" >"$tmp/include/infiniband/ib_user_ioctl_verbs.h"
git -C "$GIT" show "$TAG:libibverbs/libibverbs.map.in" >"$tmp/libibverbs.map.in"
commit=$(git -C "$GIT" rev-parse "$TAG^{commit}")
note="rdma-core $TAG ($commit) public headers, recorded by tests/abi/record-64.sh with $(gcc --version | head -n1)"
rm -rf tests/abi/rdma-core-64
/usr/bin/python3 tests/abi/abi_check.py record --ref-inc "$tmp/include" --our-inc "$tmp/include" \
	--work "$tmp/work" --record tests/abi/rdma-core-64 --note "$note"

# The exports: Debian's 44 list (read from its library) plus the public nodes v64's
# map adds, and ibv_wr_opcode_str, which v64's verbs.h declares but its map puts in
# the private node IBVERBS_PRIVATE_64. Checked: every default 44 export is still in
# v64's map under the same node.
/usr/bin/python3 - "$tmp/libibverbs.map.in" "$note" <<'PY'
import re, sys
mapin, note = sys.argv[1], sys.argv[2]
nodes, cur = {}, None
for line in open(mapin):
    m = re.match(r"^(IBVERBS_[\w.@]+) \{", line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r"^\s+([A-Za-z_]\w*);", line)
    if m and cur:
        nodes.setdefault(cur, []).append(m.group(1))
old = [l.split() for l in open("tests/abi/rdma-core-44.exports") if l.strip() and not l.startswith("#")]
pub = lambda n: re.match(r"^IBVERBS_1\.\d+$", n)
for f in old:
    if pub(f[0]) and len(f) == 2 and f[1] not in nodes.get(f[0], []):
        sys.exit("record-64: %s@@%s of 44 is not in v64's map" % (f[1], f[0]))
out = ["# rdma-core 64's public exports: NODE name [compat = non-default @NODE].",
       "# " + note + ";",
       "# the 44 names from Debian's library (tests/abi/rdma-core-44.exports), the newer nodes",
       "# from v64's libibverbs/libibverbs.map.in."]
have = set()
for f in old:
    if pub(f[0]):
        out.append("%s %s%s" % (f[0], f[1], " compat" if len(f) > 2 else ""))
        have.add((f[0], f[1]))
for node in nodes:
    if not pub(node):
        continue
    for n in sorted(nodes[node]):
        if (node, n) not in have and n != "ibv_query_device_ex":  # a static inline since 1.1
            out.append("%s %s" % (node, n))
priv = [k for k in nodes if "PRIVATE" in k][0].replace("@IBVERBS_PABI_VERSION@", "64")
assert "ibv_wr_opcode_str" in nodes[[k for k in nodes if "PRIVATE" in k][0]]
out.append("%s ibv_wr_opcode_str" % priv)
open("tests/abi/rdma-core-64.exports", "w").write("\n".join(out) + "\n")
print("record: %d exports written to tests/abi/rdma-core-64.exports" % (len(out) - 4))
PY
