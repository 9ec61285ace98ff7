#!/usr/bin/env bash
# Every ELF object of a Debian release root that needs libibverbs.so.1 (the
# client programs, perftest, librdmacm, libmlx5.so.1, libefa.so.1, every
# provider plugin, the pyverbs modules) resolves against our library.
#
#   tests/releases/ldd.sh [SUITE...]     (default: trixie)
#
# In a private mount namespace (unshare -m: nothing outside sees it), our
# build/lib/libibverbs.so.1 is bind-mounted over the root's own library file,
# and `ldd -r` runs inside the root (chroot) on each object, once on the
# release's own library and once on ours (the file's checksum inside the
# root proves which). An object fails if ours leaves a symbol undefined that
# the release's own library resolves, or any symbol of an IBVERBS_ version
# (modules such as pyverbs' leave Python's symbols to the interpreter, with
# either library). LIB=path checks another build.
set -euo pipefail
cd "$(dirname "$0")/../.."
LIB=$(readlink -f "${LIB:-build/lib/libibverbs.so.1}")
[ -f "$LIB" ] || { echo "ldd: $LIB missing: run make"; exit 2; }
[ $# -gt 0 ] || set -- trixie
if [ "$(id -u)" != 0 ]; then
  echo "ldd: needs root (chroot, unshare -m)"
  exit 2
fi

if [ "${1:-}" = --inside ]; then
  # In the namespace: $2 the root, $3 the output directory, $4 the mode.
  root=$2 out=$3 mode=$4
  own=$(readlink -f "$root/usr/lib/x86_64-linux-gnu/libibverbs.so.1")
  if [ "$mode" = ours ]; then
    mount --bind "$LIB" "$own"
  fi
  chroot "$root" sha256sum /usr/lib/x86_64-linux-gnu/libibverbs.so.1 | cut -d' ' -f1 >"$out/$mode.sum"
  while read -r obj; do
    name=$(echo "$obj" | tr / _)
    chroot "$root" ldd -r "$obj" >"$out/$mode/$name" 2>&1 || true
  done <"$out/objects"
  exit 0
fi

rc=0
for suite in "$@"; do
  root=$(scripts/release-root.sh --path "$suite") || { rc=2; continue; }
  out=build/releases/ldd/$suite
  rm -rf "$out"
  mkdir -p "$out/own" "$out/ours"
  # The candidates hold the string; readelf confirms the DT_NEEDED entry.
  (cd "$root" && grep -rls -a -e libibverbs.so.1 usr/bin usr/sbin usr/lib usr/libexec 2>/dev/null) | sort |
    while read -r f; do
      [ -f "$root/$f" ] && [ ! -L "$root/$f" ] || continue
      readelf -d "$root/$f" 2>/dev/null | grep -q 'NEEDED.*\[libibverbs\.so\.1\]' && echo "/$f"
    done >"$out/objects"
  total=$(wc -l <"$out/objects")
  for mode in own ours; do
    unshare -m --propagation private "$0" --inside "$root" "$PWD/$out" "$mode"
  done
  ours_sum=$(sha256sum "$LIB" | cut -d' ' -f1)
  own_sum=$(sha256sum "$(readlink -f "$root/usr/lib/x86_64-linux-gnu/libibverbs.so.1")" | cut -d' ' -f1)
  if [ "$(cat "$out/ours.sum")" != "$ours_sum" ] || [ "$(cat "$out/own.sum")" != "$own_sum" ]; then
    echo "ldd $suite: FAIL the root's libibverbs.so.1 was not the library intended (own $(cat "$out/own.sum"), ours $(cat "$out/ours.sum"))"
    rc=1
    continue
  fi
  fails=0
  while read -r obj; do
    name=$(echo "$obj" | tr / _)
    undef() { grep -o 'undefined symbol: [^ ]*\(, version [^ )]*\)\?' "$1" | sort -u || true; }
    bad=$(comm -13 <(undef "$out/own/$name") <(undef "$out/ours/$name"))
    bad=$( (echo "$bad"; undef "$out/ours/$name" | grep ', version IBVERBS_' || true) | grep . | sort -u || true)
    if grep -q 'not found' "$out/ours/$name"; then
      bad=$( (echo "$bad"; grep 'not found' "$out/ours/$name") | grep . || true)
    fi
    if [ -n "$bad" ]; then
      fails=$((fails + 1))
      echo "ldd $suite: FAIL $obj:"
      echo "$bad" | sed -n '1,5s/^/    /p'
    fi
  done <"$out/objects"
  echo "ldd $suite: $((total - fails)) of $total objects that need libibverbs.so.1 resolve against ours ($fails unresolved); results in $out"
  [ "$total" -gt 0 ] && [ "$fails" -eq 0 ] || rc=1
done
exit $rc
