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
SOFILE=/usr/lib/$MA/libibverbs.so.1.14.44.0     # Debian 12's libibverbs1 file
OURS=/usr/lib/$MA/libibverbs1-rs/libibverbs.so.1 # where the package puts ours
ROOTS=${RELEASE_ROOTS:-/var/cache/libibverbs-rs/roots}
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
  # Each Debian release root (scripts/release-root.sh) the same way, in an
  # overlay of its own: ours over that release's libibverbs1 (stage "release").
  for suite in ${PKG_TEST_RELEASES-trixie sid}; do
    t=$(date +%s) R=$O/$suite
    if [ ! -f "$ROOTS/$suite/.release-root" ]; then bad "rel/$suite/root" "no $suite root in $ROOTS (make release-roots)"; continue; fi
    mkdir -p $R/up $R/work $R/root
    if ! mount -t overlay overlay -o lowerdir="$ROOTS/$suite",upperdir=$R/up,workdir=$R/work $R/root; then
      bad "rel/$suite/overlay" "cannot mount an overlay of $ROOTS/$suite"; continue
    fi
    mount -t proc proc $R/root/proc
    mount --rbind /sys $R/root/sys
    mount --rbind /dev $R/root/dev
    mount -t tmpfs tmpfs $R/root/run
    mkdir -p "$R/root$REPO" && mount --rbind "$REPO" "$R/root$REPO"
    chroot $R/root /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 REPO="$REPO" OUTDIR="$OUTDIR" \
      bash "$REPO/vm/guest/pkg-tests.sh" release "$suite"
    umount -R $R/root; rm -rf $R
    echo "pkg-test: $suite root checked in $(( $(date +%s) - t )) s"
  done
  # The throwaway root goes away with the VM; the host root was never written.
  exit 0
fi

# --- stage release SUITE: inside an overlay of a Debian release root -----------
# libibverbs1-rs over the release's libibverbs1 (whatever file name its version
# gives), the release's programs on it, then purged: every file and link of
# the release's libibverbs1 must be back byte for byte.
if [ "$STAGE" = release ]; then
  S=$2 P=rel/$2 R=$W/$2
  mkdir -p "$R"; cd /
  VER=$(dpkg-query -W -f='${Version}' libibverbs1)
  # One line per file of libibverbs1: its checksum, or a link's target.
  rel_files() {
    dpkg -L libibverbs1 | while read -r f; do
      if [ -L "$f" ]; then echo "link $(readlink "$f") $f"; elif [ -f "$f" ]; then sha256sum "$f"; fi
    done
  }
  rel_files > "$R/before.sha"
  LIBF=$(dpkg -L libibverbs1 | grep -m1 '/libibverbs\.so\.1\.[0-9.]*[0-9]$')
  REL_SHA=$(sha "$LIBF")
  ok "$P/baseline" "libibverbs1 $VER: $(wc -l < "$R/before.sha") files and links, the library $LIBF"
  OUR_SHA=$(dpkg-deb --fsys-tarfile "$REPO"/build/deb/libibverbs1-rs_*.deb | tar -xO ".$OURS" | sha256sum | cut -c1-64)
  # traced TAG CMD...: CMD under LD_DEBUG=libs; output in $R/TAG.out, status in $R/TAG.rc.
  traced() {
    local tag=$1; shift
    rm -f "$R/$tag.ld".*
    LD_DEBUG=libs LD_DEBUG_OUTPUT=$R/$tag.ld timeout -k 5 90 "$@" > "$R/$tag.out" 2> "$R/$tag.err" < /dev/null
    echo $? > "$R/$tag.rc"
  }
  # loaded TAG: the real file of the libibverbs.so.1 each traced process
  # initialised (one line per distinct file; "none" if none did).
  loaded() {
    local f
    for f in $(grep -h -m1 -oE 'calling init: [^ ]*/libibverbs\.so\.1' "$R/$1.ld".* 2>/dev/null | sed 's/calling init: //'); do
      readlink -f "$f"
    done | sort -u | grep . || echo none
  }
  traced own.ibv_devices ibv_devices
  traced own.ibv_devinfo-v ibv_devinfo -v

  check "$P/dpkg-install" dpkg -i "$REPO"/build/deb/libibverbs1-rs_*.deb
  check "$P/diverted" sh -c "[ \"\$(dpkg-divert --listpackage $LIBF)\" = libibverbs1-rs ] && [ \"\$(readlink -f $LIBF)\" = $OURS ] && [ \"\$(sha256sum < $OURS | cut -c1-64)\" = $OUR_SHA ] && [ \"\$(sha256sum < $STASH$LIBF | cut -c1-64)\" = $REL_SHA ] && echo '$LIBF links to ours; $VER'\''s file intact at $STASH$LIBF'"
  check "$P/dpkg-audit" sh -c '[ -z "$(dpkg --audit)" ] && apt-get check -qq && echo "dpkg --audit: nothing to report; apt-get check: satisfied"'

  # ibv_devices and ibv_devinfo -v print on ours what they printed on the release's.
  rel_single() { # NAME CMD...
    local n=$1 l; shift
    traced "ours.$n" "$@"
    l=$(loaded "ours.$n")
    if [ "$(cat "$R/ours.$n.rc")" = 0 ] && [ "$(cat "$R/own.$n.rc")" = 0 ] && cmp -s "$R/own.$n.out" "$R/ours.$n.out" && [ "$l" = "$OURS" ]; then
      ok "$P/$n" "exit 0, $(wc -l < "$R/ours.$n.out") lines as on $VER's library; loaded $l"
    else bad "$P/$n" "exit $(cat "$R/ours.$n.rc") (own $(cat "$R/own.$n.rc")), loaded $l, $(diff "$R/own.$n.out" "$R/ours.$n.out" | grep -m1 '^[<>]')"; fi
  }
  rel_single ibv_devices ibv_devices
  rel_single ibv_devinfo-v ibv_devinfo -v

  # rel_pair NAME 'COMMAND' (the client adds the server's address): the
  # server's /proc/PID/maps must name our file, the client's LD_DEBUG trace
  # must show it initialised a libibverbs.so.1 that is our file.
  port=19500
  rel_pair() {
    local name=$1 cmd=$2 spid m i rs l
    port=$((port + 1))
    # shellcheck disable=SC2086
    ${cmd//@PORT@/$port} > "$R/$name.server.out" 2>&1 < /dev/null &
    spid=$!
    for i in $(seq 1 400); do ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break; kill -0 $spid 2>/dev/null || break; sleep 0.1; done
    m=$(awk '$6 ~ /\/libibverbs\.so\.1/ {print $6}' "/proc/$spid/maps" 2>/dev/null | sort -u | tr '\n' ' ')
    # shellcheck disable=SC2086
    traced "$name.client" ${cmd//@PORT@/$port} 10.0.0.1
    for i in $(seq 1 300); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
    kill $spid 2>/dev/null; wait $spid; rs=$?
    l=$(loaded "$name.client")
    if [ "$rs" = 0 ] && [ "$(cat "$R/$name.client.rc")" = 0 ] && [ "$m" = "$OURS " ] && [ "$l" = "$OURS" ]; then
      ok "$P/$name" "server and client exit 0; the server maps $OURS, the client loaded it"
    else bad "$P/$name" "server exit $rs, client exit $(cat "$R/$name.client.rc"); server maps '${m% }', client loaded '$l': $(tail -1 "$R/$name.client.err")"; fi
  }
  rel_pair ibv_rc_pingpong "ibv_rc_pingpong -d rxe0 -g 1 -n 100 -p @PORT@"
  rel_pair ib_send_lat "ib_send_lat -d rxe0 -x 1 -F -n 100 -p @PORT@"

  check "$P/dpkg-purge" dpkg --purge libibverbs1-rs
  rel_files > "$R/after.sha"
  if cmp -s "$R/before.sha" "$R/after.sha"; then ok "$P/files-back" "all $(wc -l < "$R/after.sha") files and links of libibverbs1 $VER byte for byte as before"
  else bad "$P/files-back" "$(diff "$R/before.sha" "$R/after.sha" | grep -m1 '^[<>]')"; fi
  check "$P/dpkg-verify" sh -c 'out=$(dpkg --verify libibverbs1 2>&1); [ -z "$out" ] && ! dpkg-divert --list | grep -q libibverbs1-rs && [ ! -e '"$(dirname "$OURS")"' ] && ! dpkg -s libibverbs1-rs >/dev/null 2>&1 && echo "dpkg --verify libibverbs1: clean; no diversion, file or package of ours left" || { echo "$out"; exit 1; }'
  traced after.devinfo-v ibv_devinfo -v
  l=$(loaded after.devinfo-v)
  if [ "$(cat "$R/after.devinfo-v.rc")" = 0 ] && cmp -s "$R/own.ibv_devinfo-v.out" "$R/after.devinfo-v.out" && [ "$l" = "$(readlink -f "$LIBF")" ] && [ "$(sha "$l")" = "$REL_SHA" ]; then
    ok "$P/release-runs" "ibv_devinfo -v on $VER's library again ($l), as before the install"
  else bad "$P/release-runs" "exit $(cat "$R/after.devinfo-v.rc"), loaded $l"; fi

  # The trigger. Ours installed again; then libibverbs1 reinstalled (dpkg -i
  # of the installed version's .deb) and upgraded to a library file of
  # another name (the .debs in $OUTDIR/debs/$S, see vm/run-pkg-tests.sh), and
  # ours upgraded. After each: the libibverbs1 file of the installed version
  # is diverted, intact, its path and libibverbs.so.1 lead to ours, no
  # diversion or link of an older name is left, dpkg --verify is clean, and
  # ibv_devices and ibv_devinfo -v run on ours. Purging ours then gives the
  # upgraded libibverbs1's files back as its .deb has them.
  U=$OUTDIR/debs/$S
  LD=/usr/lib/$MA
  deb_lib() { dpkg-deb -c "$1" | awk '$1 ~ /^-/ && $6 ~ /\/libibverbs\.so\.1\.[0-9.]*[0-9]$/ {print substr($6, 2)}'; }
  # diverted_ok DEB LOG: the state with ours installed over the libibverbs1 of DEB.
  diverted_ok() {
    local deb=$1 log=$2 f lib md5 v
    lib=$(deb_lib "$deb") v=$(dpkg-deb -f "$deb" Version)
    md5=$(dpkg-deb -I "$deb" md5sums | awk -v f="${lib#/}" '$2 == f {print $1}')
    [ "$(dpkg-query -W -f='${Version} ${db:Status-Abbrev}' libibverbs1)" = "$v ii " ] || { echo "libibverbs1 is $(dpkg-query -W -f='${Version} ${db:Status-Abbrev}' libibverbs1), not $v configured"; return 1; }
    [ "$(dpkg-query -W -f='${db:Status-Abbrev}' libibverbs1-rs)" = "ii " ] || { echo "libibverbs1-rs is not configured"; return 1; }
    if grep -iE 'error|warning' "$log"; then echo "dpkg said the above"; return 1; fi
    [ "$(dpkg-divert --list | grep -c 'by libibverbs1-rs$')" = 1 ] && [ "$(dpkg-divert --listpackage "$lib")" = libibverbs1-rs ] ||
      { dpkg-divert --list | grep 'by libibverbs1-rs$'; echo "diversions of ours: not exactly $lib"; return 1; }
    [ "$(md5sum < "$STASH$lib" | cut -c1-32)" = "$md5" ] || { echo "$STASH$lib is not the file of $v"; return 1; }
    [ "$(find "$STASH" -type f -o -type l)" = "$STASH$lib" ] || { echo "the stash holds $(find "$STASH" -type f -o -type l | tr '\n' ' ')"; return 1; }
    [ "$(echo $LD/libibverbs.so.1.*)" = "$lib" ] || { echo "libibverbs.so.1.* in $LD: $(echo $LD/libibverbs.so.1.*)"; return 1; }
    [ "$(readlink -f "$lib")" = "$OURS" ] && [ "$(sha "$OURS")" = "$OUR_SHA" ] || { echo "$lib leads to $(readlink -f "$lib")"; return 1; }
    f=$(ldconfig -p | awk '$1 == "libibverbs.so.1" {print $NF; exit}')
    [ "$(readlink -f "$f")" = "$OURS" ] || { echo "ldconfig -p: libibverbs.so.1 => $f, $(readlink -f "$f")"; return 1; }
    f=$(dpkg --verify libibverbs1 libibverbs1-rs 2>&1); [ -z "$f" ] || { echo "dpkg --verify: $f"; return 1; }
    [ -z "$(dpkg --audit)" ] && apt-get check -qq || { echo "dpkg --audit or apt-get check complains"; return 1; }
    echo "libibverbs1 $v's $lib diverted (intact), the only diversion; it and ldconfig's libibverbs.so.1 lead to ours; dpkg --verify clean"
  }
  # progs TAG: ibv_devices and ibv_devinfo -v, traced; ran TAG LIB [REF]:
  # both exit 0 on LIB, listing rxe0, and print what they printed as REF.
  progs() { traced "$1.ibv_devices" ibv_devices; traced "$1.ibv_devinfo-v" ibv_devinfo -v; }
  ran() {
    local n l bad=""
    for n in ibv_devices ibv_devinfo-v; do
      l=$(loaded "$1.$n")
      [ "$(cat "$R/$1.$n.rc")" = 0 ] && grep -qE '^[[:space:]]*(hca_id:[[:space:]]*)?rxe0' "$R/$1.$n.out" && [ "$l" = "$2" ] &&
        { [ -z "${3:-}" ] || cmp -s "$R/$3.$n.out" "$R/$1.$n.out"; } ||
        bad="$bad$n: exit $(cat "$R/$1.$n.rc"), loaded $l, $( [ -n "${3:-}" ] && diff "$R/$3.$n.out" "$R/$1.$n.out" | grep -m1 '^[<>]'); "
    done
    [ -z "$bad" ] || { echo "$bad"; return 1; }
    echo "ibv_devices and ibv_devinfo -v exit 0 on $2${3:+, print what they printed at $3}"
  }
  # step NAME DEB REF DPKG-ARGS...: dpkg -i, then the checks above for the
  # libibverbs1 of DEB, the programs compared with REF (none: new programs).
  step() {
    local name=$1 deb=$2 ref=$3; shift 3
    check "$P/$name/dpkg" sh -c 'dpkg -i "$@" > '"$R/$name.dpkg.log"' 2>&1; rc=$?; tail -1 '"$R/$name.dpkg.log"'; exit $rc' sh "$@"
    check "$P/$name/diverted" diverted_ok "$deb" "$R/$name.dpkg.log"
    progs "$name"
    check "$P/$name/runs-on-ours" ran "$name" "$OURS" "$ref"
  }
  if [ -d "$U/up" ]; then
    SAME=$(echo "$U"/same/libibverbs1_*.deb) UP=$(echo "$U"/up/libibverbs1_*.deb)
    step ours-again "$SAME" ours "$REPO"/build/deb/libibverbs1-rs_*.deb
    step reinstall "$SAME" ours "$SAME"
    LIB0=$(deb_lib "$SAME") LIB1=$(deb_lib "$UP")
    # (a new name is what needs the trigger: a file of the same name lands on the diverted path)
    if [ -n "$LIB1" ] && [ "$LIB0" != "$LIB1" ]; then ok "$P/upgrade/new-name" "$(cat "$U/up.what"): $(dpkg-deb -f "$UP" Version), $LIB0 -> $LIB1"
    else bad "$P/upgrade/new-name" "$UP has the file name '$LIB1' (installed: $LIB0)"; fi
    # (the upgrade may bring new programs: compared from there on)
    step upgrade "$UP" "" "$U"/up/*.deb
    step upgrade-ours "$UP" upgrade "$OUTDIR/debs/ours-bumped.deb"
    check "$P/upgrade/dpkg-purge" dpkg --purge libibverbs1-rs
    # Every file of the upgraded libibverbs1 as its .deb has it (md5sums), every link as its data.tar has it.
    back() {
      local line
      (cd / && dpkg-deb -I "$UP" md5sums | md5sum -c --quiet) || return 1
      dpkg-deb -c "$UP" | awk '$1 ~ /^l/ {print substr($6, 2), $8}' | while read -r line; do
        [ "$(readlink "${line% *}")" = "${line#* }" ] || { echo "${line% *} -> $(readlink "${line% *}"), not ${line#* }"; exit 1; }
      done || return 1
      [ "$(echo $LD/libibverbs.so.1.*)" = "$LIB1" ] || { echo "libibverbs.so.1.* in $LD: $(echo $LD/libibverbs.so.1.*)"; return 1; }
      echo "$(dpkg-deb -I "$UP" md5sums | wc -l) files and $(dpkg-deb -c "$UP" | grep -c '^l') link of libibverbs1 $(dpkg-deb -f "$UP" Version) as its .deb has them; no $LIB0"
    }
    check "$P/upgrade/files-back" back
    check "$P/upgrade/dpkg-verify" sh -c 'out=$(dpkg --verify libibverbs1 2>&1); [ -z "$out" ] && ! dpkg-divert --list | grep -q libibverbs1-rs && [ ! -e '"$(dirname "$OURS")"' ] && [ ! -e '"$(dirname "$STASH")"' ] && [ -z "$(dpkg --audit)" ] && echo "dpkg --verify libibverbs1: clean; no diversion, stash, file or package of ours left" || { echo "$out"; exit 1; }'
    # The release's programs on its own upgraded library print what they printed on ours.
    progs upgraded
    check "$P/upgrade/release-runs" ran upgraded "$LIB1" upgrade-ours
  else bad "$P/upgrade" "no .debs in $U (vm/run-pkg-tests.sh puts them there)"; fi
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
OUR_SHA=$(dpkg-deb --fsys-tarfile "$REPO"/build/deb/libibverbs1-rs_*.deb | tar -xO ".$OURS" | sha256sum | cut -c1-64)
check deb/installed-file sh -c "[ \"\$(readlink -f $SOFILE)\" = $OURS ] && [ \"\$(sha256sum < $SOFILE | cut -c1-64)\" = $OUR_SHA ] && [ $OUR_SHA != $DEB_SHA ] && echo '$SOFILE links to the packaged library, not Debian'\''s'"
check deb/diverted sh -c "[ \"\$(dpkg-divert --listpackage $SOFILE)\" = libibverbs1-rs ] && [ \"\$(sha256sum < $STASH$SOFILE | cut -c1-64)\" = $DEB_SHA ] && echo \"Debian's file intact at $STASH$SOFILE; \$(dpkg-divert --list | grep -c 'by libibverbs-rs-dev') dev files diverted\""
check deb/ldconfig sh -c "l=\$(ldconfig -p | awk '\$1 == \"libibverbs.so.1\" {print \$NF; exit}'); [ \"\$(readlink -f \$l)\" = $OURS ] && echo \"ldconfig cache: \$l -> \$(readlink -f \$l)\""
check deb/dpkg-audit sh -c '[ -z "$(dpkg --audit)" ] && echo "dpkg --audit: nothing to report"'
check deb/apt-check sh -c 'apt-get check -qq && echo "apt-get check: dependencies satisfied"'
# Reinstalling (dpkg's upgrade path: preinst upgrade, old postrm upgrade) keeps the diversions.
check deb/dpkg-reinstall sh -c "dpkg -i $DEBS > $W/reinstall.log 2>&1 && ! grep -iE 'error|warning' $W/reinstall.log && [ \"\$(sha256sum < $SOFILE | cut -c1-64)\" = $OUR_SHA ] && [ \"\$(dpkg-divert --listpackage $SOFILE)\" = libibverbs1-rs ] && [ \"\$(sha256sum < $STASH$SOFILE | cut -c1-64)\" = $DEB_SHA ] && echo 'dpkg -i again: still ours, the Debian file is still diverted, intact'"
# Every dependant stays installable with ours in place: apt, asked to
# (re)install them, removes nothing.
check deb/apt-installable sh -c 'out=$(apt-get -s -o Debug::NoLocking=1 install --reinstall ibverbs-utils perftest librdmacm1 rdmacm-utils ibverbs-providers python3-pyverbs libibverbs-dev 2>&1) || { echo "$out"; exit 1; }
  if echo "$out" | grep -q "^Remv"; then echo "$out" | grep "^Remv"; exit 1; fi; echo "apt would reinstall $(echo "$out" | grep -c "^Inst") dependants and remove nothing"'

# Every installed consumer of libibverbs.so.1 now resolves it to our file.
ldd_report > "$W/ldd.after"
n=$(wc -l < "$W/ldd.after"); wrong=$(awk -v s=$OURS '$3 != s' "$W/ldd.after" | wc -l)
if [ "$n" -gt 0 ] && [ "$wrong" = 0 ] && [ "$(sha "$SOFILE")" = "$OUR_SHA" ]; then
  ok deb/ldd-consumers "$n ELF files of $(cut -d' ' -f1 "$W/ldd.after" | sort -u | wc -l) packages resolve libibverbs.so.1 to ours ($(cut -d' ' -f1 "$W/ldd.after" | sort -u | tr '\n' ' '))"
else bad deb/ldd-consumers "$wrong of $n consumers do not resolve to $OURS"; fi
# A running process maps our file (a ping-pong server waiting for its client).
ibv_rc_pingpong -d rxe0 -g 1 -p 18515 > /dev/null 2>&1 &
pp=$!; sleep 2
m=$(grep libibverbs "/proc/$pp/maps" 2>/dev/null | awk '{print $5, $6}' | sort -u | head -1)
kill $pp 2>/dev/null; wait $pp 2>/dev/null
if [ -n "$m" ] && [ "${m#* }" = "$OURS" ] && [ "${m% *}" = "$(stat -L -c %i "$SOFILE")" ]; then ok deb/proc-maps "ibv_rc_pingpong maps $OURS (inode ${m% *}, the file $SOFILE links to)"
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
check deb/dev-dynamic-build sh -c "cc -std=gnu11 -O1 -o $W/static_rc_so -I$REPO/c-tests $REPO/tests/static/static_rc.c -libverbs && [ \"\$(readlink -f \$(ldd $W/static_rc_so | awk '\$1 == \"libibverbs.so.1\" {print \$3}'))\" = $OURS ] && echo 'cc ... -libverbs links libibverbs.so.1 (ours)'"

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
