#!/usr/bin/env bash
# Builds, once, a Debian release root for the release tests and prints its path.
#
#   scripts/release-root.sh SUITE...     (trixie, sid)
#   scripts/release-root.sh --path SUITE (the path only; exit 1 if not built)
#
# Each root is a `debootstrap --variant=minbase` of SUITE with the rdma-core
# client programs, the provider plugins, pyverbs, the development headers and
# a C compiler, cached outside the checkout in RELEASE_ROOTS
# (/var/cache/libibverbs-rs/roots/SUITE). The archive is the one this
# machine's apt configuration uses for Debian (its `Label: Debian` index
# target); RELEASE_MIRROR overrides it. A lock file per suite keeps two runs
# (two checkouts, two make jobs) from building the same root at once; a
# finished root carries a stamp with its package list and is never rebuilt
# unless that list changes (delete the directory to rebuild it).
set -euo pipefail

ROOTS=${RELEASE_ROOTS:-/var/cache/libibverbs-rs/roots}
PKGS=(ibverbs-utils ibverbs-providers perftest rdmacm-utils python3-pyverbs
      libibverbs-dev iproute2 gcc libc6-dev)
STAMP_TEXT="minbase ${PKGS[*]}"

die() { echo "release-root: $*" >&2; exit 1; }

built() { [ -f "$ROOTS/$1/.release-root" ] && [ "$(cat "$ROOTS/$1/.release-root")" = "$STAMP_TEXT" ]; }

if [ "${1:-}" = --path ]; then
  [ $# -eq 2 ] || die "usage: $0 --path SUITE"
  built "$2" || die "no $2 root in $ROOTS: run scripts/release-root.sh $2 (make release-roots)"
  echo "$ROOTS/$2"
  exit 0
fi
[ $# -ge 1 ] || die "usage: $0 SUITE..."

mirror() {
  if [ -n "${RELEASE_MIRROR:-}" ]; then echo "$RELEASE_MIRROR"; return; fi
  # The archive of the Debian suites this machine installs from, not its
  # security or third-party sources.
  local uri
  uri=$(apt-get indextargets --format '$(LABEL) $(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
        awk '$1 == "Debian" { print $2; exit }')
  [ -n "$uri" ] || die "no Debian archive in this machine's apt configuration (apt-get indextargets); set RELEASE_MIRROR"
  echo "$uri"
}

build() {
  local suite=$1 dir=$ROOTS/$1
  if built "$suite"; then echo "$dir"; return; fi
  mkdir -p "$ROOTS"
  exec 9>"$ROOTS/$suite.lock"
  if ! flock -n 9; then
    echo "release-root: $suite: another run is building it, waiting" >&2
    flock 9
  fi
  if built "$suite"; then echo "$dir"; exec 9>&-; return; fi
  command -v debootstrap >/dev/null || die "debootstrap missing (scripts/install-deps.sh)"
  local url tmp start=$SECONDS
  url=$(mirror)
  tmp=$ROOTS/$suite.tmp
  rm -rf "$tmp" "$dir"
  echo "release-root: $suite from $url (debootstrap --variant=minbase, ${#PKGS[@]} packages)" >&2
  local inc
  inc=$(IFS=,; echo "${PKGS[*]}")
  if ! debootstrap --variant=minbase --include="$inc" "$suite" "$tmp" "$url" >"$ROOTS/$suite.log" 2>&1; then
    tail -20 "$ROOTS/$suite.log" >&2
    die "$suite: debootstrap failed (log: $ROOTS/$suite.log)"
  fi
  # No downloaded archives: the root is read, never upgraded.
  rm -rf "$tmp"/var/cache/apt/archives/*.deb
  printf '%s\n' "$STAMP_TEXT" >"$tmp/.release-root"
  mv "$tmp" "$dir"
  echo "release-root: $suite built in $((SECONDS - start)) s: $dir" >&2
  echo "$dir"
  exec 9>&-
}

for s in "$@"; do build "$s"; done
