#!/usr/bin/env bash
# Fetches, once, the .debs of packages installed in a release root
# (scripts/release-root.sh), at the version installed there, and prints the
# directory they are in. `make pkg-test` installs them in its throwaway
# overlays (a libibverbs1 reinstall, and its upgrade to the next release's).
#
#   scripts/release-debs.sh SUITE PACKAGE...
#
# `apt-get download` with the root's own sources.list and package lists
# (copied into a private apt state: the root is only read), so the versions
# and checksums are those the root was built from. The files are kept in
# RELEASE_DEBS/SUITE (default /var/cache/libibverbs-rs/debs/SUITE), outside
# the checkout; a package whose .deb of that version is there is not fetched
# again. A lock file per suite serialises two runs.
set -euo pipefail

ROOTS=${RELEASE_ROOTS:-/var/cache/libibverbs-rs/roots}
DEBS=${RELEASE_DEBS:-/var/cache/libibverbs-rs/debs}

die() { echo "release-debs: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: $0 SUITE PACKAGE..."
suite=$1; shift
root=$ROOTS/$suite
[ -f "$root/.release-root" ] || die "no $suite root in $ROOTS: run scripts/release-root.sh $suite"
dir=$DEBS/$suite
mkdir -p "$dir"
exec 9>"$DEBS/$suite.lock"
flock 9

# have PACKAGE VERSION: the .deb of that version is in the cache.
have() {
  local f
  for f in "$dir/$1"_*.deb; do
    [ -f "$f" ] && [ "$(dpkg-deb -f "$f" Version)" = "$2" ] && return 0
  done
  return 1
}

want=()
for p in "$@"; do
  v=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$p" 2>/dev/null) ||
    die "$p is not installed in the $suite root"
  have "$p" "$v" || want+=("$p=$v")
done
if [ ${#want[@]} -gt 0 ]; then
  st=$(mktemp -d); trap 'rm -rf "$st"' EXIT
  mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$st/parts" "$st/get"
  cp "$root"/var/lib/apt/lists/*Release* "$root"/var/lib/apt/lists/*_Packages "$st/lists/"
  : > "$st/status"
  (cd "$st/get" && apt-get -q -o Dir::Etc::SourceList="$root/etc/apt/sources.list" \
     -o Dir::Etc::SourceParts="$st/parts" -o Dir::State::Lists="$st/lists" \
     -o Dir::State::status="$st/status" -o Dir::Cache="$st/cache" \
     -o APT::Sandbox::User=root download "${want[@]}") >&2 ||
    die "$suite: apt-get download ${want[*]} failed"
  mv "$st"/get/*.deb "$dir/"
fi
for p in "$@"; do
  have "$p" "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$p")" || die "$suite: no .deb of $p"
done
echo "$dir"
