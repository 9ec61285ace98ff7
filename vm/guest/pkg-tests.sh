#!/bin/bash
# Runs in the guest for `make pkg-test` (vm/run-pkg-tests.sh), as root in the
# chroot of the read-only host root. One line per check in $OUTDIR/pkg-results.tsv:
#   NAME<TAB>pass|fail<TAB>DETAIL
#
# 1. static/*: the C program linked with libibverbs.a (built by the host into
#    $OUTDIR) lists the devices and does an RC send on rxe0, with Debian's
#    libibverbs.so.1 hidden (an empty file bound over it) and none mapped.
# 2. deb/*: a throwaway root, an overlay of this root with a tmpfs upper layer:
#    chrooted there (this script again, stage "root"), the client programs run
#    on Debian's library, our two .debs are installed with dpkg, every installed
#    consumer of libibverbs.so.1 resolves it to our file, the client programs
#    run again (on ours, with no LD_* variable), a C program builds against the
#    installed headers, .a and .pc; then the packages are purged and Debian's
#    files must be back byte for byte.
set -u
STAGE=${1:-top}
RES=$OUTDIR/pkg-results.tsv
MA=x86_64-linux-gnu
SOFILE=/usr/lib/$MA/libibverbs.so.1.14.44.0
STASH=/usr/lib/$MA/libibverbs-rs/debian
DEBS=$(echo "$REPO"/build/deb/libibverbs1-rs_*.deb "$REPO"/build/deb/libibverbs-rs-dev_*.deb)  # one line: it goes into sh -c strings
# The client programs run before and after (names of vm/guest/tests.sh cases).
SUITE=${PKG_TEST_SUITE:-'^(ibv_devices|ibv_devinfo|ibv_devinfo-v|ibv_rc_pingpong|ibv_ud_pingpong|ib_send_lat|ib_write_bw|ib_read_lat|rping-V|rdma_server)$'}
# On Debian's library first, only what the installed run is compared with byte for byte.
SUITE_REF='^(ibv_devices|ibv_devinfo|ibv_devinfo-v)$'
W=$OUTDIR/pkg            # scratch files, kept with the run
mkdir -p "$W"

ok()  { printf '%s\tpass\t%s\n' "$1" "${2:-}" >> "$RES"; printf '  PASS %-34s %s\n' "$1" "${2:-}"; }
bad() { printf '%s\tfail\t%s\n' "$1" "${2:-}" >> "$RES"; printf '  FAIL %-34s %s\n' "$1" "${2:-}"; }
# check NAME CMD...: pass when CMD exits 0; the detail is its last output line.
check() {
  local name=$1 out; shift
  if out=$("$@" 2>&1); then ok "$name" "$(echo "$out" | tail -1 | cut -c1-160)"
  else bad "$name" "$(echo "$out" | grep -v '^\s*$' | tail -1 | cut -c1-160)"; echo "$out" | sed 's/^/      /' | tail -20; fi
}
sha() { sha256sum "$1" | cut -c1-64; }

# --- stage top: the static program, then the overlay root ---------------------
if [ "$STAGE" = top ]; then
  : > "$RES"
  echo "pkg-test: guest $(uname -r), $(ls /sys/class/infiniband | tr '\n' ' ')"
  # Debian's library made unloadable in a private mount namespace: a program
  # that needs libibverbs.so.1 cannot start there (checked with ibv_devices).
  check static/hidden-proof sh -c "out=\$(unshare -m sh -c 'mount --bind /dev/null $SOFILE && exec ibv_devices' 2>&1); echo \"\$out\"; echo \"\$out\" | grep -q 'error while loading shared libraries: .*libibverbs.so.1'"
  static_case() { # NAME BINARY LDD-EXPECT
    local name=$1 bin=$2 ldd_out
    ldd_out=$(ldd "$bin" 2>&1)
    if echo "$ldd_out" | grep -q libibverbs; then bad "$name/ldd" "$(echo "$ldd_out" | grep libibverbs)"; else ok "$name/ldd" "$(echo "$ldd_out" | head -1 | sed 's/^\s*//')"; fi
    check "$name/run" unshare -m sh -c "mount --bind /dev/null $SOFILE && LD_DEBUG=libs LD_DEBUG_OUTPUT=$W/$name.ld exec $bin"
    if cat "$W/$name.ld".* 2>/dev/null | grep -q libibverbs; then bad "$name/ld-debug" "the dynamic linker touched a libibverbs"
    else ok "$name/ld-debug" "no libibverbs in the dynamic linker's trace"; fi
  }
  static_case static/full "$OUTDIR/static_rc"               # cc -static: no shared object at all
  static_case static/libibverbs-only "$OUTDIR/static_rc_dyn" # libibverbs.a, glibc shared

  O=/tmp/pkg-root
  mkdir -p $O/up $O/work $O/root
  if ! mount -t overlay overlay -o lowerdir=/,upperdir=$O/up,workdir=$O/work $O/root; then
    bad deb/overlay "cannot mount an overlay of / (is the overlay module loaded?)"; exit 0
  fi
  ok deb/overlay "lower: the read-only host root, upper: tmpfs"
  mount -t proc proc $O/root/proc
  mount --rbind /sys $O/root/sys
  mount --rbind /dev $O/root/dev
  mount -t tmpfs tmpfs $O/root/run
  mount --bind "$OUTDIR" "$O/root$OUTDIR"
  chroot $O/root /usr/bin/env -i PATH="$PATH" HOME=/root LANG=C.UTF-8 REPO="$REPO" OUTDIR="$OUTDIR" \
    NDEV="${NDEV:-2}" IN_VM=1 PKG_TEST_SUITE="$SUITE" bash "$REPO/vm/guest/pkg-tests.sh" root
  # The throwaway root goes away with the VM; the host root was never written.
  exit 0
fi

# --- stage root: inside the overlay root ---------------------------------------
cd /
# Debian's files of the two packages we divert, with their checksums.
debian_files() { dpkg -L libibverbs1 libibverbs-dev | while read -r f; do [ -f "$f" ] && [ ! -L "$f" ] && echo "$f"; done; }
debian_files | xargs -d '\n' sha256sum > "$W/before.sha"
ok deb/baseline "$(wc -l < "$W/before.sha") files of libibverbs1 and libibverbs-dev"
DEB_SHA=$(sha "$SOFILE")

# Consumers: the ELF files of installed packages that need libibverbs.so.1
# (directly, or through librdmacm.so.1 or a provider library), listed by the
# host (vm/run-pkg-tests.sh) as "PACKAGE FILE" lines in $OUTDIR/consumers.txt.
# ldd_report: where the dynamic linker resolves each one's libibverbs.so.1.
ldd_report() {
  while read -r p f; do
    # (ld.so --list is what ldd runs, without ldd's extra processes: TCG is slow)
    l=$(/lib64/ld-linux-x86-64.so.2 --list "$f" 2>/dev/null | awk '$1 == "libibverbs.so.1" {print $3}')
    echo "$p $f $(readlink -f "${l:-none}")"
  done < "$OUTDIR/consumers.txt"
}

pyverbs_run() { # TAG: device names and port 1 state through python3-pyverbs
  LD_DEBUG=libs LD_DEBUG_OUTPUT="$W/py.$1.ld" python3 -c '
import pyverbs.device as d
names = sorted(x.name.decode() for x in d.get_device_list())
ctx = d.Context(name="rxe0")
print(names, ctx.query_device().phys_port_cnt, ctx.query_port(1).state)
ctx.close()' > "$W/py.$1.out" 2>&1
}
have_pyverbs=0
if python3 -c 'import pyverbs' 2>/dev/null; then
  have_pyverbs=1
  if pyverbs_run debian; then ok deb/pyverbs-debian "python3-pyverbs on Debian's: $(cat "$W/py.debian.out")"
  else bad deb/pyverbs-debian "$(tail -1 "$W/py.debian.out")"; fi
fi

# The client programs on Debian's library: the reference the installed run is compared with.
suite() { # LIB REGEX
  VM_TEST_LIBS=$1 VM_TEST_MIXED=0 VM_TEST_ONLY=$2 OUTDIR=$W/suite bash "$REPO/vm/guest/tests.sh" > "$W/suite.$1.log" 2>&1
  mv "$W/suite/results.tsv" "$W/suite/results.$1.tsv"
  local n f
  n=$(wc -l < "$W/suite/results.$1.tsv"); f=$(awk -F'\t' '$3 != "pass"' "$W/suite/results.$1.tsv" | wc -l)
  if [ "$n" -gt 0 ] && [ "$f" = 0 ]; then ok "deb/suite-$1" "$n client-program cases passed"
  else bad "deb/suite-$1" "$f of $n cases failed: $(awk -F'\t' '$3 != "pass" {print $2 ": " $5; exit}' "$W/suite/results.$1.tsv")"
       awk -F'\t' '$3 != "pass" {print "      " $2 ": " $5}' "$W/suite/results.$1.tsv"; fi
}
suite debian "$SUITE_REF"

# --- install ------------------------------------------------------------------
check deb/dpkg-install dpkg -i $DEBS
OUR_SHA=$(dpkg-deb --fsys-tarfile "$REPO"/build/deb/libibverbs1-rs_*.deb | tar -xO ".$SOFILE" | sha256sum | cut -c1-64)
check deb/installed-file sh -c "[ \"\$(sha256sum < $SOFILE | cut -c1-64)\" = $OUR_SHA ] && [ $OUR_SHA != $DEB_SHA ] && echo '$SOFILE is the packaged library, not Debian'\''s'"
check deb/diverted sh -c "[ \"\$(dpkg-divert --listpackage $SOFILE)\" = libibverbs1-rs ] && [ \"\$(sha256sum < $STASH$SOFILE | cut -c1-64)\" = $DEB_SHA ] && echo \"Debian's file intact at $STASH$SOFILE; \$(dpkg-divert --list | grep -c 'by libibverbs-rs-dev') dev files diverted\""
check deb/ldconfig sh -c "l=\$(ldconfig -p | awk '\$1 == \"libibverbs.so.1\" {print \$NF; exit}'); [ \"\$(readlink -f \$l)\" = $SOFILE ] && echo \"ldconfig cache: \$l -> \$(readlink -f \$l)\""
check deb/dpkg-audit sh -c '[ -z "$(dpkg --audit)" ] && echo "dpkg --audit: nothing to report"'
check deb/apt-check sh -c 'apt-get check -qq && echo "apt-get check: dependencies satisfied"'
# Reinstalling (dpkg's upgrade path: preinst upgrade, old postrm upgrade) keeps the diversions.
check deb/dpkg-reinstall sh -c "dpkg -i $DEBS > $W/reinstall.log 2>&1 && [ \"\$(sha256sum < $SOFILE | cut -c1-64)\" = $OUR_SHA ] && [ \"\$(dpkg-divert --listpackage $SOFILE)\" = libibverbs1-rs ] && [ \"\$(sha256sum < $STASH$SOFILE | cut -c1-64)\" = $DEB_SHA ] && echo 'dpkg -i again: still ours, the Debian file is still diverted, intact'"
# Every dependant stays installable with ours in place: apt, asked to
# (re)install them, removes nothing.
check deb/apt-installable sh -c 'out=$(apt-get -s -o Debug::NoLocking=1 install --reinstall ibverbs-utils perftest librdmacm1 rdmacm-utils ibverbs-providers python3-pyverbs libibverbs-dev 2>&1) || { echo "$out"; exit 1; }
  if echo "$out" | grep -q "^Remv"; then echo "$out" | grep "^Remv"; exit 1; fi; echo "apt would reinstall $(echo "$out" | grep -c "^Inst") dependants and remove nothing"'

# Every installed consumer of libibverbs.so.1 now resolves it to our file.
ldd_report > "$W/ldd.after"
n=$(wc -l < "$W/ldd.after"); wrong=$(awk -v s=$SOFILE '$3 != s' "$W/ldd.after" | wc -l)
if [ "$n" -gt 0 ] && [ "$wrong" = 0 ] && [ "$(sha "$SOFILE")" = "$OUR_SHA" ]; then
  ok deb/ldd-consumers "$n ELF files of $(cut -d' ' -f1 "$W/ldd.after" | sort -u | wc -l) packages resolve libibverbs.so.1 to ours ($(cut -d' ' -f1 "$W/ldd.after" | sort -u | tr '\n' ' '))"
else bad deb/ldd-consumers "$wrong of $n consumers do not resolve to $SOFILE"; fi
# A running process maps our file (a ping-pong server waiting for its client).
ibv_rc_pingpong -d rxe0 -g 1 -p 18515 > /dev/null 2>&1 &
pp=$!; sleep 2
m=$(grep libibverbs "/proc/$pp/maps" 2>/dev/null | awk '{print $5, $6}' | sort -u | head -1)
kill $pp 2>/dev/null; wait $pp 2>/dev/null
if [ -n "$m" ] && [ "${m#* }" = "$SOFILE" ] && [ "${m% *}" = "$(stat -L -c %i "$SOFILE")" ]; then ok deb/proc-maps "ibv_rc_pingpong maps $SOFILE (inode ${m% *}: our file)"
else bad deb/proc-maps "ibv_rc_pingpong maps: ${m:-no libibverbs}"; fi

if [ $have_pyverbs = 1 ]; then
  if pyverbs_run installed && cmp -s "$W/py.debian.out" "$W/py.installed.out" && grep -q "calling init: .*libibverbs.so.1" "$W/py.installed.ld".*; then
    ok deb/pyverbs "python3-pyverbs on ours: $(cat "$W/py.installed.out"), as on Debian's"
  else bad deb/pyverbs "$(tail -1 "$W/py.installed.out")"; fi
fi

suite installed "$SUITE"
check deb/still-ours sh -c "[ \"\$(sha256sum < $SOFILE | cut -c1-64)\" = $OUR_SHA ] && echo 'the suite ran on the packaged library'"

# The -dev package: our header, libibverbs.a and libibverbs.pc serve a build.
check deb/dev-header sh -c "h=\$(echo '#include <infiniband/verbs.h>' | cc -E -M - | tr ' ' '\n' | grep -m1 'infiniband/verbs.h'); [ \"\$(sha256sum < \$h | cut -c1-64)\" = \"\$(sha256sum < $REPO/include/infiniband/verbs.h | cut -c1-64)\" ] && echo \"cc includes \$h: ours\""
check deb/dev-pkgconfig sh -c 'l=$(echo $(pkg-config --static --libs libibverbs)); echo "pkg-config --static --libs libibverbs: $l"; [ "$l" = "-libverbs -lpthread -ldl -lm -lrt -lutil" ]'
check deb/dev-static-build sh -c "cc -std=gnu11 -O1 -static -o $W/static_rc_installed -I$REPO/c-tests $REPO/tests/static/static_rc.c \$(pkg-config --static --cflags --libs libibverbs) 2>$W/static-build.log && ! ldd $W/static_rc_installed >/dev/null 2>&1 && echo 'cc -static \$(pkg-config --static --cflags --libs libibverbs): a static executable'"
check deb/dev-static-run "$W/static_rc_installed"
check deb/dev-dynamic-build sh -c "cc -std=gnu11 -O1 -o $W/static_rc_so -I$REPO/c-tests $REPO/tests/static/static_rc.c -libverbs && [ \"\$(readlink -f \$(ldd $W/static_rc_so | awk '\$1 == \"libibverbs.so.1\" {print \$3}'))\" = $SOFILE ] && echo 'cc ... -libverbs links libibverbs.so.1 (ours)'"

# --- remove and purge ---------------------------------------------------------
check deb/dpkg-remove dpkg -r libibverbs-rs-dev libibverbs1-rs
check deb/dpkg-purge dpkg --purge libibverbs-rs-dev libibverbs1-rs
debian_files | xargs -d '\n' sha256sum > "$W/after.sha"
if cmp -s "$W/before.sha" "$W/after.sha"; then ok deb/debian-back "all $(wc -l < "$W/after.sha") files of libibverbs1 and libibverbs-dev byte for byte as before"
else bad deb/debian-back "$(diff "$W/before.sha" "$W/after.sha" | grep -m1 '^[<>]')"; fi
check deb/dpkg-verify sh -c 'out=$(dpkg --verify libibverbs1 libibverbs-dev 2>&1); [ -z "$out" ] && echo "dpkg --verify libibverbs1 libibverbs-dev: clean" || { echo "$out"; exit 1; }'
check deb/no-diversions sh -c '! dpkg-divert --list | grep -q "libibverbs-rs" && [ ! -e /usr/lib/x86_64-linux-gnu/libibverbs-rs ] && ! dpkg -s libibverbs1-rs >/dev/null 2>&1 && echo "no diversion, stash or package of ours is left"'
check deb/ldconfig-debian sh -c "l=\$(ldconfig -p | awk '\$1 == \"libibverbs.so.1\" {print \$NF; exit}'); [ \"\$(sha256sum < \$(readlink -f \$l) | cut -c1-64)\" = $DEB_SHA ] && echo \"\$l is Debian's again\""
check deb/debian-runs sh -c "LD_DEBUG=libs LD_DEBUG_OUTPUT=$W/after.ld ibv_devinfo > $W/devinfo.after && cmp $W/devinfo.after $W/suite/cases/debian/ibv_devinfo/main.out && echo 'ibv_devinfo prints what it printed before the install'"
if [ $have_pyverbs = 1 ]; then
  if pyverbs_run after && cmp -s "$W/py.debian.out" "$W/py.after.out"; then ok deb/pyverbs-after "python3-pyverbs on Debian's again: $(cat "$W/py.after.out")"
  else bad deb/pyverbs-after "$(tail -1 "$W/py.after.out")"; fi
fi
exit 0
