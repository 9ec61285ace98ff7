#!/usr/bin/env bash
# Records rdma-core 65's public facts as test data (tests/abi/rdma-core-65/ and
# tests/abi/rdma-core-65.exports), as record-64.sh records 64's, because CI has
# no sid root. Run by hand when the reference changes; the output is committed.
#
# Source: Debian sid's rdma-core 65.0-1.1 packages, installed in a root made by
#   debootstrap --variant=minbase --include=libibverbs-dev,... sid ROOT MIRROR
#   tests/abi/record-65.sh [ROOT]            (default /var/tmp/sid-root)
# The headers are ROOT's libibverbs-dev (include/infiniband/{verbs,verbs_api,
# tm_types,sa,opcode,arch,sa-kern-abi,ib_user_ioctl_verbs}.h), compiled with the
# host's gcc exactly as abi_check.py compiles Debian's 44; the exports are the
# dynamic symbol table of ROOT's libibverbs.so.1 (objdump -T). Only facts are
# recorded (offsets, sizes, types, values, names, versions).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=${1:-/var/tmp/sid-root}
LIB=$(readlink -f "$ROOT/usr/lib/x86_64-linux-gnu/libibverbs.so.1")
ver=$(sed -n "/^Package: libibverbs-dev$/,/^$/s/^Version: //p" "$ROOT/var/lib/dpkg/status")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include/infiniband"
for f in verbs.h verbs_api.h tm_types.h sa.h opcode.h arch.h sa-kern-abi.h ib_user_ioctl_verbs.h; do
	cp "$ROOT/usr/include/infiniband/$f" "$tmp/include/infiniband/$f"
done
note="Debian sid libibverbs-dev $ver (rdma-core 65.0) public headers and $(basename "$LIB"), recorded by tests/abi/record-65.sh with $(gcc --version | head -n1)"
rm -rf tests/abi/rdma-core-65
/usr/bin/python3 tests/abi/abi_check.py record --ref-inc "$tmp/include" --our-inc "$tmp/include" \
	--work "$tmp/work" --record tests/abi/rdma-core-65 --note "$note"

# The exports: every public name@version of the library, and of the private node
# the names that verbs.h declares (ibv_query_gid_type, ibv_wr_opcode_str); the
# whole private node goes to private65/exports.txt (the provider ABI's symbols).
objdump -T "$LIB" >"$tmp/dynsyms"
/usr/bin/python3 - "$note" "$tmp/include/infiniband/verbs.h" "$tmp/dynsyms" <<'PY'
import re, sys
note, hdr = sys.argv[1], open(sys.argv[2]).read()
pub, priv = [], []
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) < 7 or " DF " not in line and " DO " not in line:
        continue
    ver, name = f[-2], f[-1]
    if "IBVERBS" not in ver or name == ver.strip("()"):
        continue
    compat = ver.startswith("(")
    node = ver.strip("()")
    if re.match(r"^IBVERBS_1\.\d+$", node):
        pub.append((node, name, compat))
    else:
        priv.append((node, name, compat))
key = lambda e: ([int(x) for x in re.findall(r"\d+", e[0])], e[1])
out = ["# rdma-core 65's public exports: NODE name [compat = non-default @NODE].",
       "# " + note + ";",
       "# every public node of the library, and the private names verbs.h declares."]
for node, name, compat in sorted(pub, key=key):
    out.append("%s %s%s" % (node, name, " compat" if compat else ""))
for node, name, compat in sorted(priv, key=key):
    if re.search(r"\b%s\s*\(" % re.escape(name), hdr):
        out.append("%s %s%s" % (node, name, " compat" if compat else ""))
open("tests/abi/rdma-core-65.exports", "w").write("\n".join(out) + "\n")
nodes = sorted({n for n, _, _ in priv})
assert nodes == ["IBVERBS_PRIVATE_65"], nodes
p = ["# IBVERBS_PRIVATE_65: every symbol of rdma-core 65's private provider ABI.",
     "# " + note + "."]
p += ["%s %s" % (n, s) for n, s, _ in sorted(priv, key=key)]
open("tests/abi/private65/exports.txt", "w").write("\n".join(p) + "\n")
print("record: %d exports written to tests/abi/rdma-core-65.exports, %d private to "
      "tests/abi/private65/exports.txt" % (len(out) - 3, len(priv)))
PY
