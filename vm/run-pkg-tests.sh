#!/usr/bin/env bash
# `make pkg-test`: one boot of the Soft-RoCE VM (vm/guest/pkg-tests.sh) proves
#  - the static library: a C program linked with build/lib/libibverbs.a (fully
#    static, and libibverbs.a with a shared glibc) lists the devices and does
#    an RC send on rxe0 with no libibverbs.so.1 loadable or mapped;
#  - the .debs (make deb): installed with dpkg over Debian's libibverbs1 and
#    libibverbs-dev in a throwaway overlay root, every installed consumer then
#    runs on ours, and purging them gives Debian's files back byte for byte;
#  - libibverbs1-rs over each Debian release's libibverbs1 (an overlay of each
#    root of scripts/release-root.sh): the release's programs run on ours,
#    purging it gives that libibverbs1's files back byte for byte; then,
#    with it installed again, that libibverbs1 reinstalled and upgraded to a
#    library file of another name (its dpkg file trigger diverts the new
#    file), and ours upgraded, the programs still run on ours, and purging
#    gives the upgraded libibverbs1's files back as its .deb has them.
# Exit status 0 when every check passed. Logs: vm/out/pkg-test/.
# Settings: PKG_TEST_SUITE (regex of vm/guest/tests.sh case names run before
# and after the install), PKG_TEST_RELEASES (release roots, default
# "trixie sid"; empty: none), VM_KERNEL, VM_TIMEOUT (whole boot, default 3600 s).
set -euo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-3600}
. "$(dirname "$0")/lib.sh"

for f in "$REPO/build/lib/libibverbs.a" "$REPO"/build/deb/libibverbs1-rs_*.deb "$REPO"/build/deb/libibverbs-rs-dev_*.deb; do
  [ -e "$f" ] || vm_die "$f is missing: run 'make static deb' first"
done
RELEASES=${PKG_TEST_RELEASES-trixie sid}
for s in $RELEASES; do "$REPO/scripts/release-root.sh" "$s" >/dev/null; done
vm_prepare
run=$VM_OUT/pkg-test; [ "$VM_KERNEL" = stable ] || run=$run-$VM_KERNEL
rm -rf "$run"; mkdir -p "$run"; chmod 755 "$run"

# The .debs the release stages install under ours, in $run/debs/SUITE/:
# same/ the root's own libibverbs1 (a reinstall of the installed version),
# up/ an upgrade to a library file of another name: the next release's
# libibverbs1 with the packages its dependencies and Breaks pull in, and its
# ibverbs-utils (the older ibv_devinfo imports a private symbol version the
# newer library does not define) (real .debs, scripts/release-debs.sh), or
# for the newest root, which no release
# follows, a repack of its own libibverbs1 with the version and the file name
# bumped (the same ELF file; what ./README says). And ours-bumped.deb: our
# package at a higher version (an upgrade of ours).
next_release() { case $1 in trixie) echo sid ;; esac; }
UP_SET="libibverbs1 ibverbs-providers ibverbs-utils libibverbs-dev libnl-3-200 libnl-route-3-200 libnl-3-dev libnl-route-3-dev"
# bump_deb IN OUT SUFFIX [RENAME]: IN with SUFFIX appended to its version
# (and to that of a "libibverbs1 (= ITS VERSION)" dependency: libibverbs-dev
# pins libibverbs1 of its own version); with RENAME, its
# libibverbs.so.1.X.Y.Z file renamed to .X.Y.(Z+1) (the libibverbs.so.1
# link and md5sums follow).
bump_deb() {
  local x=$run/debs/unpacked old new v
  rm -rf "$x"; dpkg-deb -R "$1" "$x"
  v=$(dpkg-deb -f "$1" Version | sed 's/[.+~]/\\&/g')
  sed -i -e "s/^Version: .*/&$3/" -e "/^Depends:/s/libibverbs1 (= $v)/libibverbs1 (= $v$3)/" "$x/DEBIAN/control"
  if [ -n "${4:-}" ]; then
    old=$(cd "$x" && ls usr/lib/x86_64-linux-gnu/libibverbs.so.1.*)
    new=$(echo "$old" | awk -F. -v OFS=. '{$NF = $NF + 1; print}')
    mv "$x/$old" "$x/$new"
    ln -sfn "$(basename "$new")" "$x/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
    sed -i "s|  $old\$|  $new|" "$x/DEBIAN/md5sums"
  fi
  dpkg-deb --root-owner-group -b "$x" "$2" >/dev/null
  rm -rf "$x"
}
for s in $RELEASES; do
  d=$run/debs/$s; mkdir -p "$d/same" "$d/up"
  own=$("$REPO/scripts/release-debs.sh" "$s" libibverbs1)
  cp "$own"/libibverbs1_"$(dpkg-query --admindir="$("$REPO/scripts/release-root.sh" --path "$s")/var/lib/dpkg" -W -f='${Version}' libibverbs1)"_*.deb "$d/same/"
  n=$(next_release "$s")
  if [ -n "$n" ]; then
    "$REPO/scripts/release-root.sh" "$n" >/dev/null
    nd=$("$REPO/scripts/release-debs.sh" "$n" $UP_SET)
    nr=$("$REPO/scripts/release-root.sh" --path "$n")
    for p in $UP_SET; do
      cp "$nd/${p}_$(dpkg-query --admindir="$nr/var/lib/dpkg" -W -f='${Version}' "$p")_"*.deb "$d/up/"
    done
    echo "$n's libibverbs1 and what it needs" > "$d/up.what"
  else
    sd=$("$REPO/scripts/release-debs.sh" "$s" libibverbs1 libibverbs-dev)
    bump_deb "$d"/same/libibverbs1_*.deb "$d/up/libibverbs1_repack.deb" +pkgtest1 rename
    bump_deb "$sd/libibverbs-dev_$(dpkg-query --admindir="$("$REPO/scripts/release-root.sh" --path "$s")/var/lib/dpkg" -W -f='${Version}' libibverbs-dev)"_*.deb \
      "$d/up/libibverbs-dev_repack.deb" +pkgtest1
    echo "a repack of $s's libibverbs1 (and libibverbs-dev) with the version and file name bumped" > "$d/up.what"
  fi
done
bump_deb "$REPO"/build/deb/libibverbs1-rs_*.deb "$run/debs/ours-bumped.deb" +pkgtest1

# The static test program, linked by the flags pkg-config gives for the build tree.
pc() { PKG_CONFIG_PATH=$REPO/build/lib/pkgconfig pkg-config --define-variable=libdir="$REPO/build/lib" \
         --define-variable=includedir="$REPO/include" "$@" libibverbs; }
src=$REPO/tests/static/static_rc.c
# shellcheck disable=SC2046
cc -std=gnu11 -O1 -Wall -static -I"$REPO/c-tests" -o "$run/static_rc" "$src" $(pc --static --cflags --libs) > "$run/static_rc.build.log" 2>&1 ||
  { cat "$run/static_rc.build.log"; vm_die "cc -static with libibverbs.a failed"; }
# shellcheck disable=SC2046
cc -std=gnu11 -O1 -Wall -I"$REPO/c-tests" -o "$run/static_rc_dyn" "$src" $(pc --cflags) "$REPO/build/lib/libibverbs.a" $(pc --static --libs-only-l | sed 's/-libverbs//') \
  > "$run/static_rc_dyn.build.log" 2>&1 || { cat "$run/static_rc_dyn.build.log"; vm_die "cc with libibverbs.a (shared glibc) failed"; }

# The consumers (host side, for the guest's ldd check): ELF files of installed
# packages that depend on libibverbs1 or librdmacm1 and need libibverbs.so.1,
# librdmacm.so.1 or a provider library (which need libibverbs.so.1 in turn).
needs_verbs() { readelf -dW "$1" 2>/dev/null | grep -qE 'NEEDED.*\[(libibverbs|librdmacm|libmlx4|libmlx5|libefa|libmana)\.so\.1\]'; }
for p in $(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Depends} ${Pre-Depends}\n' |
           awk '$1 == "ii" && /libibverbs1|librdmacm1/ {print $2}' | sed 's/:.*//' | sort -u) librdmacm1; do
  dpkg -L "$p" | while read -r f; do if [ -f "$f" ] && [ ! -L "$f" ] && needs_verbs "$f"; then echo "$p $f"; fi; done
done | sort -u -k2 > "$run/consumers.txt"
# ... and what they import from libibverbs (name@IBVERBS_x), all of which the
# packaged library must define, as the dynamic linker will require.
ours=$run/ours.so
dpkg-deb --fsys-tarfile "$REPO"/build/deb/libibverbs1-rs_*.deb | tar -xO ./usr/lib/x86_64-linux-gnu/libibverbs1-rs/libibverbs.so.1 > "$ours"
readelf -W --dyn-syms "$ours" | awk '$7 != "UND" && $8 ~ /@/ {sub("@@", "@", $8); print $8}' | sort -u > "$run/ours.defined"
cut -d' ' -f2 "$run/consumers.txt" | xargs readelf -W --dyn-syms 2>/dev/null |
  awk '$7 == "UND" && $8 ~ /@IBVERBS_/ {print $8}' | sort -u > "$run/consumers.imports"
comm -23 "$run/consumers.imports" "$run/ours.defined" > "$run/consumers.missing"
: > "$run/host-results.tsv"
if [ -s "$run/consumers.missing" ]; then
  printf 'deb/consumer-symbols\tfail\tnot defined by the packaged library: %s\n' "$(head -5 "$run/consumers.missing" | tr '\n' ' ')" >> "$run/host-results.tsv"
else
  printf 'deb/consumer-symbols\tpass\tall %s name@IBVERBS_x imports of %s consumer files are defined by the packaged library\n' \
    "$(wc -l < "$run/consumers.imports")" "$(wc -l < "$run/consumers.txt")" >> "$run/host-results.tsv"
fi
awk -F'\t' '{printf "  %s %-34s %s\n", ($2 == "pass" ? "PASS" : "FAIL"), $1, $3}' "$run/host-results.tsv"

{
  [ -n "${PKG_TEST_SUITE:-}" ] && printf 'export PKG_TEST_SUITE=%q\n' "$PKG_TEST_SUITE"
  printf 'export PKG_TEST_RELEASES=%q\n' "$RELEASES"
  [ -n "${RELEASE_ROOTS:-}" ] && printf 'export RELEASE_ROOTS=%q\n' "$RELEASE_ROOTS"
  echo "exec bash '$REPO/vm/guest/pkg-tests.sh'"
} > "$run/cmd.sh"
echo "$REPO" > "$run/cwd"
echo "pkg-test: booting the VM (kernel $VM_KVER, TCG); logs in ${run#$REPO/}/"
t0=$(date +%s)
set +e
vm_boot "$run"; brc=$?
set -e
cat "$run/host-results.tsv" >> "$run/pkg-results.tsv"
pass=$(awk -F'\t' '$2 == "pass"' "$run/pkg-results.tsv" 2>/dev/null | wc -l)
fail=$(awk -F'\t' '$2 != "pass"' "$run/pkg-results.tsv" 2>/dev/null | wc -l)
echo
if [ "$brc" != 0 ]; then echo "pkg-test: the VM run did not complete (status $brc; see ${run#$REPO/}/console.log)"; fail=$((fail + 1)); fi
needs="static/full/run static/libibverbs-only/run deb/dpkg-install deb/ldd-consumers deb/suite-installed deb/debian-back"
for s in $RELEASES; do
  needs="$needs rel/$s/dpkg-install rel/$s/ibv_devinfo-v rel/$s/ibv_rc_pingpong rel/$s/ib_send_lat rel/$s/files-back"
  for t in reinstall upgrade upgrade-ours; do needs="$needs rel/$s/$t/diverted rel/$s/$t/runs-on-ours"; done
  needs="$needs rel/$s/upgrade/new-name rel/$s/upgrade/files-back rel/$s/upgrade/release-runs"
done
for need in $needs; do
  grep -q "^$need	pass" "$run/pkg-results.tsv" 2>/dev/null || { echo "pkg-test: check $need did not pass"; fail=$((fail + 1)); }
done
echo "pkg-test: kernel $VM_KVER, total $(( $(date +%s) - t0 ))s"
echo "pkg-test: $pass passed, $fail failed"
[ "$fail" = 0 ]
