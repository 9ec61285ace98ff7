#!/usr/bin/env bash
# `make deb`: two Debian binary packages, built with dpkg-deb from the tree
# `make` and `make static` produced (no debhelper, no source package):
#
#   libibverbs1-rs     our libibverbs.so.1, put in place of libibverbs1's file
#   libibverbs-rs-dev  our headers, libibverbs.a and libibverbs.pc, in place of
#                      libibverbs-dev's
#
# Mechanism: dpkg-divert (see packaging/deb/README.md for why). Each package's
# preinst diverts the Debian files it replaces into a directory the dynamic
# linker, the compiler and pkg-config never look in; its postrm puts them back.
# Debian's packages stay installed, so everything that depends on them stays
# installable, and removing ours gives Debian's files back byte for byte.
#
# Usage: packaging/deb/build.sh OUTDIR   (writes OUTDIR/*.deb; runs lintian if present)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${1:-$REPO/build/deb}
ARCH=$(dpkg --print-architecture)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
LIBDIR=/usr/lib/$MA
OURS=$LIBDIR/libibverbs1-rs/libibverbs.so.1  # our library; libibverbs1's file links here
UPSTREAM=$(sed -n 's/^version = "\(.*\)"/\1/p' "$REPO/Cargo.toml" | head -1)
VERSION=$UPSTREAM-1
STASH=$LIBDIR/libibverbs-rs/debian      # where Debian's diverted files wait
MAINT="libibverbs-rs maintainers <maintainers@users.noreply.a-seed-13ee331e.example>"

SO=$REPO/build/lib/libibverbs.so.1
AR=$REPO/build/lib/libibverbs.a
for f in "$SO" "$AR" "$REPO/include/infiniband/verbs.h"; do
  [ -e "$f" ] || { echo "deb: $f is missing: run 'make' and 'make static' first" >&2; exit 2; }
done
command -v dpkg-deb >/dev/null || { echo "deb: dpkg-deb is missing (apt-get install dpkg)" >&2; exit 2; }

# libibverbs1 from 44.0 on: its library file (libibverbs.so.1.14.44.0 in 44,
# 1.14.56.1 in 56.1, 1.18.65.0 in 65) is found at install time. The headers
# of libibverbs-rs-dev are rdma-core 44's API, so that package stays on 44.x.
RANGE_LO=44.0 RANGE_HI=45~

rm -rf "$OUT"; mkdir -p "$OUT"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# doc PKG ROOT: copyright, changelog, lintian overrides.
doc() {
  local pkg=$1 root=$2 d=$2/usr/share/doc/$1
  install -d "$d"
  install -m 0644 "$HERE/copyright" "$d/copyright"
  sed "s/@PACKAGE@/$pkg/; s/@VERSION@/$VERSION/; s/@MAINT@/$MAINT/" "$HERE/changelog" | gzip -9n > "$d/changelog.Debian.gz"
  chmod 0644 "$d/changelog.Debian.gz"
  if [ -s "$HERE/$pkg.lintian-overrides" ]; then
    install -d "$root/usr/share/lintian/overrides"
    sed "s/@PACKAGE@/$pkg/g" "$HERE/$pkg.lintian-overrides" > "$root/usr/share/lintian/overrides/$pkg"
    chmod 0644 "$root/usr/share/lintian/overrides/$pkg"
  fi
}

# scripts PKG DEBIAN-DIR FILE...: preinst/postrm diverting FILEs (absolute paths)
# into $STASH, keeping each file's path below it. PKG.preinst/PKG.postrm, when
# present, are used instead (they find their files at install time).
scripts() {
  local pkg=$1 dir=$2; shift 2
  local list="" f s t
  for f in "$@"; do list="$list $f"; done
  for s in preinst postinst postrm; do
    t=$HERE/$s; [ -e "$HERE/$pkg.$s" ] && t=$HERE/$pkg.$s
    [ -e "$t" ] || continue
    # (#DIVERT#: the shared divert_all function of PKG.divert)
    sed -e "/^#DIVERT#\$/{r $HERE/$pkg.divert" -e 'd}' "$t" |
      sed -e "s|@PACKAGE@|$pkg|g" -e "s|@STASH@|$STASH|g" -e "s|@OURS@|$OURS|g" -e "s|@FILES@|${list# }|g" > "$dir/$s"
    chmod 0755 "$dir/$s"
  done
}

# control PKG DEBIAN-DIR FIELDS...: the control file, md5sums, Installed-Size.
control() {
  local pkg=$1 dir=$2 root=$2/..; shift 2
  (cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$dir/md5sums"
  chmod 0644 "$dir/md5sums"
  {
    echo "Package: $pkg"
    echo "Source: libibverbs-rs"
    echo "Version: $VERSION"
    echo "Architecture: $ARCH"
    echo "Maintainer: $MAINT"
    echo "Installed-Size: $(du -k -s --apparent-size "$root/usr" | cut -f1)"
    printf '%s\n' "$@"
    echo "Homepage: https://github.com/linux-rdma/rdma-core"
  } > "$dir/control"
}

# --- libibverbs1-rs -----------------------------------------------------------
pkg=libibverbs1-rs; root=$work/$pkg
install -d "$root/DEBIAN" "$root$(dirname "$OURS")"
# As dh_strip would: no debug sections, no symbol table beyond .dynsym
# (.gnu.version* and the SONAME are kept).
objcopy --strip-unneeded --remove-section=.comment --remove-section=.note "$SO" "$root$OURS"
chmod 0644 "$root$OURS"
doc $pkg "$root"
scripts $pkg "$root/DEBIAN"
# Binaries built against this package depend on Debian's libibverbs1 (same ABI,
# and it stays installed beneath us): the same shlibs line as libibverbs1's.
echo "libibverbs 1 libibverbs1 (>= 44.0)" > "$root/DEBIAN/shlibs"
# A libibverbs1 upgrade reinstalls its libibverbs.so.1 link: postinst then
# diverts the library file of the new version's name.
printf 'interest-noawait %s/libibverbs.so.1\n' "$LIBDIR" > "$root/DEBIAN/triggers"
chmod 0644 "$root/DEBIAN/shlibs" "$root/DEBIAN/triggers"
# Run-time dependencies of the stripped library, as dpkg-shlibdeps computes them.
mkdir -p "$work/shlibdeps/debian"
printf 'Source: libibverbs-rs\n\nPackage: %s\nArchitecture: any\n' $pkg > "$work/shlibdeps/debian/control"
shdeps=$(cd "$work/shlibdeps" && dpkg-shlibdeps -O -e"$root$OURS" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shdeps" ] || shdeps="libc6 (>= 2.34), libgcc-s1 (>= 4.2)"
control $pkg "$root/DEBIAN" \
  "Depends: libibverbs1 (>= $RANGE_LO), $shdeps" \
  "Section: libs" "Priority: optional" \
  "Description: memory-safe libibverbs.so.1 written in Rust (replaces libibverbs1's)" \
  " A drop-in for rdma-core's libibverbs (RDMA verbs), written in Rust: the" \
  " same SONAME, exported symbols, symbol versions and struct layouts, with" \
  " the rxe (Soft-RoCE) provider built in." \
  " ." \
  " Installing this package diverts libibverbs1's library file with" \
  " dpkg-divert and links its path to this one, so that every program and" \
  " library linked with libibverbs.so.1 runs on it. Removing it gives" \
  " libibverbs1's file back."
dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/${pkg}_${VERSION}_${ARCH}.deb" >/dev/null

# --- libibverbs-rs-dev --------------------------------------------------------
pkg=libibverbs-rs-dev; root=$work/$pkg
install -d "$root/DEBIAN" "$root/usr/include/infiniband" "$root$LIBDIR/pkgconfig"
divert=()
for h in "$REPO"/include/infiniband/*.h; do
  n=$(basename "$h")
  install -m 0644 "$h" "$root/usr/include/infiniband/$n"
  # Only what libibverbs-dev ships is diverted (verbs_inline.h is ours alone).
  [ -e "/usr/include/infiniband/$n" ] && [ "$(dpkg-query -S "/usr/include/infiniband/$n" 2>/dev/null | cut -d: -f1)" = libibverbs-dev ] &&
    divert+=("/usr/include/infiniband/$n")
  case $n in verbs_inline.h) ;; *) [[ " ${divert[*]} " == *" /usr/include/infiniband/$n "* ]] ||
    { echo "deb: /usr/include/infiniband/$n: not from libibverbs-dev here; is libibverbs-dev 44 installed?" >&2; exit 2; } ;; esac
done
install -m 0644 "$AR" "$root$LIBDIR/libibverbs.a"
printf 'prefix=/usr\nlibdir=%s\nincludedir=/usr/include\n\nName: libibverbs\nDescription: RDMA core userspace library (Rust)\nVersion: 1.14.44.0\nLibs: -L${libdir} -libverbs\nLibs.private: %s\nCflags: -I${includedir}\n' \
  "$LIBDIR" "${LIBS_PRIVATE:--lpthread -ldl -lm -lrt -lutil}" > "$root$LIBDIR/pkgconfig/libibverbs.pc"
chmod 0644 "$root$LIBDIR/pkgconfig/libibverbs.pc"
divert+=("$LIBDIR/libibverbs.a" "$LIBDIR/pkgconfig/libibverbs.pc")
doc $pkg "$root"
scripts $pkg "$root/DEBIAN" "${divert[@]}"
control $pkg "$root/DEBIAN" \
  "Depends: libibverbs1-rs (= $VERSION), libibverbs-dev (>= $RANGE_LO), libibverbs-dev (<< $RANGE_HI)" \
  "Section: libdevel" "Priority: optional" \
  "Description: memory-safe libibverbs in Rust - headers and static library" \
  " Development files for libibverbs1-rs: <infiniband/verbs.h> and its" \
  " companion headers, generated from the Rust definitions, the static" \
  " library libibverbs.a (the Rust providers built in) and libibverbs.pc." \
  " ." \
  " Installing this package diverts libibverbs-dev's copies of these files" \
  " with dpkg-divert; removing it gives them back."
dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/${pkg}_${VERSION}_${ARCH}.deb" >/dev/null

ls -1 "$OUT"/*.deb
if command -v lintian >/dev/null; then
  # Clean means no error, warning or info tag (overrides are documented in
  # packaging/deb/*.lintian-overrides).
  if lintian --info --display-info --fail-on error,warning,info "$OUT"/*.deb > "$OUT/lintian.log" 2>&1; then
    echo "deb: lintian clean ($(lintian --version))"
  else
    cat "$OUT/lintian.log" >&2; echo "deb: lintian reported tags (above)" >&2; exit 1
  fi
else
  echo "deb: lintian is not installed (apt-get install lintian): not checked" >&2
fi
