# Soft-RoCE VM harness: shared functions. Sourced by vm/run.sh, vm/demo.sh,
# vm/run-tests.sh; not run on its own.
#
# vm_prepare   makes sure qemu, busybox, the kernel and the initramfs are there
#              (installing Debian packages when root), caching under vm/cache/.
# vm_boot DIR  boots the VM once: the guest runs DIR/cmd.sh (in a chroot into the
#              read-only host root), writing DIR/output and DIR/status; the host
#              streams DIR/output while the VM runs. Returns the command's status.
#
# Settings (environment):
#   VM_KERNEL   stable (default: bookworm's linux-image-amd64) | backports
#               (bookworm-backports' linux-image-amd64, a second kernel ABI)
#   VM_TIMEOUT  hard limit in seconds for one boot, host side (default 600)
#   VM_SMP      guest CPUs (default 2)      VM_MEM  guest memory (default 2G)
#   VM_NDEV     rxe devices: 1 (rxe0 on veth0) or 2 (+ rxe1 on veth1), default 2
#   VM_QUIET    1: don't stream the command's output while it runs
#   VM_KEEP     1: keep the per-run directory under vm/out/ (default: removed)
#   VM_NO_INSTALL 1: never apt-get install missing packages, just say what's missing
#   VM_QEMU_EXTRA  extra qemu arguments (an array; the two-host mode's NIC and share)
#   VM_CONFIG_EXTRA extra lines for the guest's config (the two-host mode's role)

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/.." && pwd)
VM_CACHE=$REPO/vm/cache
VM_OUT=$REPO/vm/out
VM_KERNEL=${VM_KERNEL:-stable}
VM_TIMEOUT=${VM_TIMEOUT:-600}
VM_SMP=${VM_SMP:-2}
VM_MEM=${VM_MEM:-2G}
VM_NDEV=${VM_NDEV:-2}
OUR_LIB=$REPO/build/lib/libibverbs.so.1

# Kernel modules packed into the initramfs (with their dependencies) and loaded
# in this order at boot. crc32_* are what rxe's crypto_alloc_shash("crc32")
# needs; loading them up front means no autoload is needed later. overlay: the
# package test (vm/run-pkg-tests.sh) installs the .deb into an overlay root.
# virtio_net: the NIC of each guest in the two-host mode (vm/run-two-hosts.sh);
# sch_netem: its loss/reordering case (tc qdisc ... netem); sch_prio, cls_u32
# and act_gact: the qperf case's filter on a (tc filter ... u32 ... action drop).
VM_MODULES="virtio_pci 9pnet_virtio 9p virtio_net veth crc32_generic crc32_pclmul ib_uverbs rdma_ucm rdma_rxe overlay sch_netem sch_prio cls_u32 act_gact"

vm_log() { echo "vm: $*" >&2; }
vm_die() { echo "vm: error: $*" >&2; exit 2; }

# Host packages the harness and the guest programs need: "command package".
VM_NEEDS=(
  "qemu-system-x86_64 qemu-system-x86"
  "/bin/busybox busybox-static"
  "cpio cpio"
  "gzip gzip"
  "depmod kmod"
  "dpkg-deb dpkg"
  "timeout coreutils"
  "stdbuf coreutils"
  "pkill procps"
  "ss iproute2"
  "cc gcc"
  "ip iproute2"
  "rdma iproute2"
  "ibv_devinfo ibverbs-utils"
  "ib_send_lat perftest"
  "rping rdmacm-utils"
  "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so ibverbs-providers"
)

vm_check_host() {
  local missing=() pkgs=() n p
  for n in "${VM_NEEDS[@]}"; do
    set -- $n
    if [[ $1 == /* ]]; then [ -e "$1" ] && continue; else command -v "$1" >/dev/null && continue; fi
    missing+=("$1"); pkgs+=("$2")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    pkgs=($(printf '%s\n' "${pkgs[@]}" | sort -u))
    if [ "$(id -u)" = 0 ] && [ "${VM_NO_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null; then
      vm_log "installing missing Debian packages: ${pkgs[*]} (for ${missing[*]})"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null ||
        vm_die "apt-get install ${pkgs[*]} failed"
    else
      vm_die "missing ${missing[*]}: install the Debian packages: apt-get install ${pkgs[*]}"
    fi
  fi
  if ldd /bin/busybox >/dev/null 2>&1; then
    vm_die "/bin/busybox is dynamically linked; the initramfs needs busybox-static (apt-get install busybox-static)"
  fi
  if [ -e /dev/kvm ]; then :; fi  # deliberately unused: TCG only (KVM hangs on these machines)
}

# The apt URI of Debian's main archive, as this machine's apt is set up (so no
# mirror is named here).
vm_debian_uri() {
  apt-cache policy 2>/dev/null | awk '$2 ~ /^https?:/ && $3 ~ /^bookworm\/main$/ {print $2; exit}'
}

# apt options for a private apt state holding only bookworm-backports (the host's
# own apt sources are left untouched).
vm_bpo_apt() {
  local d=$VM_CACHE/apt uri
  mkdir -p "$d/lists/partial" "$d/archives/partial"
  if [ ! -s "$d/sources.list" ]; then
    uri=$(vm_debian_uri)
    [ -n "$uri" ] || vm_die "cannot find the Debian archive in apt's sources (is 'bookworm' configured?)"
    echo "deb $uri bookworm-backports main" > "$d/sources.list"
  fi
  echo -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
       -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
       -o APT::Default-Release=
}

# Name of the versioned kernel image package linux-image-amd64 depends on.
vm_resolve_kernel_pkg() {
  local opts=() p
  if [ "$VM_KERNEL" = backports ]; then
    read -ra opts <<<"$(vm_bpo_apt)"
    [ -n "$(ls "$VM_CACHE/apt/lists" 2>/dev/null | grep -v partial)" ] || apt-get "${opts[@]}" update -qq >&2 ||
      vm_die "apt-get update for bookworm-backports failed"
  fi
  p=$(apt-cache "${opts[@]}" depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [ -z "$p" ]; then
    apt-get "${opts[@]}" update -qq >&2 || true
    p=$(apt-cache "${opts[@]}" depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  fi
  [ -n "$p" ] || vm_die "cannot resolve linux-image-amd64 ($VM_KERNEL) from apt: run 'apt-get update'"
  echo "$p"
}

# Sets VM_KDIR (vm/cache/<flavour>), VM_KVER, VM_VMLINUZ, VM_INITRD.
vm_prepare() {
  vm_check_host
  local kd=$VM_CACHE/$VM_KERNEL pkg deb ver x stage m rel opts=()
  mkdir -p "$kd"
  # (modules.list: the VM_MODULES the cache was made for; a change remakes it)
  if [ ! -s "$kd/package" ] || [ ! -e "$kd/vmlinuz" ] || [ ! -s "$kd/kver" ] ||
     [ "$(cat "$kd/modules.list" 2>/dev/null)" != "$VM_MODULES" ]; then
    pkg=$(vm_resolve_kernel_pkg)
    vm_log "fetching $pkg ($VM_KERNEL kernel) into vm/cache/$VM_KERNEL/ (once)"
    [ "$VM_KERNEL" = backports ] && read -ra opts <<<"$(vm_bpo_apt)"
    rm -f "$kd"/*.deb
    (cd "$kd" && apt-get "${opts[@]}" download "$pkg" >/dev/null 2>"$kd/download.log") ||
      { apt-get "${opts[@]}" update -qq >&2 || true; (cd "$kd" && apt-get "${opts[@]}" download "$pkg" >/dev/null 2>"$kd/download.log"); } ||
      vm_die "apt-get download $pkg failed: $(tail -3 "$kd/download.log")"
    deb=$(ls "$kd"/*.deb | head -1)
    x=$kd/extract; rm -rf "$x"; mkdir -p "$x"
    dpkg-deb -x "$deb" "$x"
    ver=$(ls "$x/lib/modules" | head -1)
    [ -n "$ver" ] && [ -e "$x/boot/vmlinuz-$ver" ] || vm_die "$deb has no kernel image or modules"
    cp "$x/boot/vmlinuz-$ver" "$kd/vmlinuz"
    # Modules: the closure of VM_MODULES, uncompressed (busybox insmod/modprobe
    # need not know xz/zstd), with depmod's index so the guest can autoload.
    depmod -b "$x" "$ver"
    stage=$kd/modules; rm -rf "$stage"; mkdir -p "$stage/lib/modules/$ver"
    cp "$x/lib/modules/$ver"/modules.builtin* "$x/lib/modules/$ver/modules.order" "$stage/lib/modules/$ver/"
    : > "$kd/modules.load"
    for m in $VM_MODULES; do
      modprobe -d "$x" -S "$ver" --show-depends "$m" 2>/dev/null | awk '$1=="insmod"{print $2}'
    done | awk '!seen[$0]++' | while read -r m; do
      rel=${m#"$x/lib/modules/$ver/"}
      mkdir -p "$stage/lib/modules/$ver/$(dirname "$rel")"
      case $rel in
        *.ko.xz)  xz -dc "$m" > "$stage/lib/modules/$ver/${rel%.xz}"; rel=${rel%.xz} ;;
        *.ko.zst) zstd -qdc "$m" > "$stage/lib/modules/$ver/${rel%.zst}"; rel=${rel%.zst} ;;
        *.ko.gz)  gzip -dc "$m" > "$stage/lib/modules/$ver/${rel%.gz}"; rel=${rel%.gz} ;;
        *)        cp "$m" "$stage/lib/modules/$ver/$rel" ;;
      esac
      echo "$rel" >> "$kd/modules.load"
    done
    grep -q rdma_rxe "$kd/modules.load" || vm_die "kernel $ver has no rdma_rxe module"
    depmod -b "$stage" "$ver"
    rm -rf "$x"
    echo "$ver" > "$kd/kver"
    echo "$pkg" > "$kd/package"
    echo "$VM_MODULES" > "$kd/modules.list"
    rm -f "$kd/initrd.gz"
  fi
  VM_KDIR=$kd
  VM_KVER=$(cat "$kd/kver")
  VM_VMLINUZ=$kd/vmlinuz
  VM_INITRD=$kd/initrd.gz
  # The initramfs: busybox, our init and the modules. Rebuilt when init changes.
  if [ ! -s "$VM_INITRD" ] || [ "$VM_DIR/guest/init" -nt "$VM_INITRD" ] || [ "$VM_DIR/lib.sh" -nt "$VM_INITRD" ]; then
    stage=$(mktemp -d "$VM_CACHE/initrd.XXXXXX")
    mkdir -p "$stage"/{bin,sbin,proc,sys,dev,tmp,out,host,etc}
    cp /bin/busybox "$stage/bin/busybox"
    cp "$VM_DIR/guest/init" "$stage/init"; chmod 755 "$stage/init"
    cp -a "$kd/modules/lib" "$stage/"
    cp "$kd/modules.load" "$stage/etc/modules.load"
    (cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$VM_INITRD.tmp"
    mv "$VM_INITRD.tmp" "$VM_INITRD"
    rm -rf "$stage"
  fi
}

# vm_boot RUNDIR: RUNDIR (under vm/out/) holds cmd.sh. Boots, runs it, powers off.
# no_timer_check: on loaded cores a TCG guest's kernel panicked at boot
# ("IO-APIC + timer doesn't work!"), its timer check too slow to pass.
vm_boot() {
  local run=$1 qpid tpid rc t0 t1 host_root=/ extra=(-nic none)
  [ -n "${VM_QEMU_EXTRA+x}" ] && extra=("${VM_QEMU_EXTRA[@]}")
  : > "$run/output"; rm -f "$run/status" "$run/console.log"
  cat > "$run/config" <<EOF
OUTDIR='$run'
REPO='$REPO'
NDEV='$VM_NDEV'
KVER='$VM_KVER'
${VM_CONFIG_EXTRA:-}
EOF
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$VM_TIMEOUT" qemu-system-x86_64 \
    -nodefaults -no-user-config -accel tcg,thread=multi -cpu max -smp "$VM_SMP" -m "$VM_MEM" \
    -display none -vga none -monitor none -serial "file:$run/console.log" -no-reboot \
    -kernel "$VM_VMLINUZ" -initrd "$VM_INITRD" \
    -append "console=ttyS0 panic=1 oops=panic quiet loglevel=4 mitigations=off no_timer_check${VM_APPEND_EXTRA:+ $VM_APPEND_EXTRA}" \
    -virtfs "local,path=$host_root,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$run,mount_tag=out,security_model=none,multidevs=remap" \
    "${extra[@]}" \
    </dev/null >"$run/qemu.log" 2>&1 &
  qpid=$!
  trap 'vm_log "interrupted: stopping the VM"; kill -TERM $qpid ${tpid:-} 2>/dev/null; wait $qpid; exit 130' INT TERM
  if [ "${VM_QUIET:-0}" != 1 ]; then
    tail -n +1 -f --pid="$qpid" "$run/output" 2>/dev/null &
    tpid=$!
  fi
  wait "$qpid"; rc=$?
  trap - INT TERM
  [ -n "${tpid:-}" ] && wait "$tpid" 2>/dev/null
  t1=$(date +%s.%N)
  VM_ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    vm_log "timed out after ${VM_TIMEOUT}s (VM_TIMEOUT); console: $run/console.log"
    tail -20 "$run/console.log" >&2
    return 124
  fi
  if [ ! -s "$run/status" ]; then
    vm_log "the VM stopped without running the command (qemu exit $rc); last console lines:"
    tail -30 "$run/console.log" >&2; cat "$run/qemu.log" >&2
    return 125
  fi
  return "$(cat "$run/status")"
}

# A fresh run directory under vm/out (removed on exit unless VM_KEEP=1).
vm_new_run() {
  mkdir -p "$VM_OUT"
  local run
  run=$(mktemp -d "$VM_OUT/run.XXXXXX")
  chmod 755 "$run"
  echo "$run"
}

# Two-host mode: vm_boot_two RUNDIR boots two guests at once, a (RUNDIR/a,
# 192.168.77.1) and b (RUNDIR/b, 192.168.77.2), each with rxe0 on its own
# virtio-net NIC eth0. The link between the NICs is a qemu UDP socket pair on
# 127.0.0.1 (nothing leaves this machine). Each guest runs its own cmd.sh with
# ROLE, ADDR, PEER and SHARED (RUNDIR/shared, writable by both, uncached) in its
# environment. Sets VM_RC_A, VM_RC_B (each as vm_boot returns) and VM_ELAPSED.
# One TCG CPU per guest by default (VM_SMP_TWO): the two guests share 2 cores.
# VM_STREAM_A=1 streams guest a's output while they run.
# VM_APPEND_A / VM_APPEND_B: more kernel arguments for one guest (e.g.
# VM_APPEND_B=rdinit=/none makes b's boot fail: no init, a panic).
# When a guest's VM ends, the host writes its status to
# RUNDIR/shared/sync/SIDE.exit, so that the other guest's script can stop
# waiting for it (vm/guest/two-hosts.sh does). If the VM failed (status 124:
# timed out, 125: its command never ran, e.g. the kernel did not boot) and
# the other is still up VM_PEER_GRACE seconds later (default 60), the host
# stops that one too.
vm_udp_port_free() { ! ss -Hlun "sport = :$1" 2>/dev/null | grep -q .; }
# vm_watch_two RUNDIR JOB_A JOB_B: returns once both jobs ended, stopping the
# one still up VM_PEER_GRACE seconds after the other's VM failed (124, 125)
vm_watch_two() {
  local run=$1 ja=$2 jb=$3 s o j rc i
  while kill -0 "$ja" 2>/dev/null && kill -0 "$jb" 2>/dev/null; do sleep 1; done
  for s in a b; do
    o=$([ $s = a ] && echo b || echo a); j=$([ $o = a ] && echo "$ja" || echo "$jb")
    rc=$(cat "$run/$s/boot.rc" 2>/dev/null) || continue
    case $rc in 124|125) ;; *) continue ;; esac
    kill -0 "$j" 2>/dev/null || return 0
    vm_log "guest $s's VM failed (status $rc: $([ "$rc" = 124 ] && echo 'timed out' || echo 'its command never ran')); guest $o has ${VM_PEER_GRACE:-60}s to give up on its own"
    for i in $(seq 1 "${VM_PEER_GRACE:-60}"); do kill -0 "$j" 2>/dev/null || return 0; sleep 1; done
    vm_log "stopping guest $o: its peer $s is gone"
    kill -TERM "$j" 2>/dev/null; wait "$j"
    [ -e "$run/$o/boot.rc" ] || echo 130 > "$run/$o/boot.rc"
    return 0
  done
  return 0
}
# vm_stall_b RUNDIR: while RUNDIR/shared/sync/stall exists (a case asks for
# it), stops guest b's qemu for 0.1 to 0.9 s at a time, 0.1 to 0.7 s apart
# (a peer that stalls, as under heavy load); ends with the run or its script
vm_stall_b() {
  local run=$1 pid="" n=0 owner=$$
  while { [ ! -e "$run/a/boot.rc" ] || [ ! -e "$run/b/boot.rc" ]; } && kill -0 "$owner" 2>/dev/null; do
    if [ ! -e "$run/shared/sync/stall" ]; then sleep 0.5; continue; fi
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null ||
      pid=$(pgrep -f "^qemu-system-x86_64 .*path=$run/b,mount_tag=out" | head -1)
    [ -n "$pid" ] || { sleep 0.5; continue; }
    kill -STOP "$pid" 2>/dev/null || continue
    sleep "0.$((1 + RANDOM % 9))"; kill -CONT "$pid"; n=$((n + 1))
    echo "$n" > "$run/shared/sync/stalls"
    sleep "0.$((1 + RANDOM % 7))"
  done
}
vm_boot_two() {
  local run=$1 pa pb i
  mkdir -p "$run/a" "$run/b" "$run/shared/sync"; chmod 755 "$run/a" "$run/b" "$run/shared" "$run/shared/sync"
  rm -f "$run/a/boot.rc" "$run/b/boot.rc" "$run/shared/sync/a.exit" "$run/shared/sync/b.exit"
  for i in $(seq 1 50); do
    pa=$((20000 + (RANDOM % 20000) * 2)); pb=$((pa + 1))
    vm_udp_port_free "$pa" && vm_udp_port_free "$pb" && break
  done
  (
    VM_APPEND_EXTRA="${VM_APPEND_A:-}" VM_SMP=${VM_SMP_TWO:-1} VM_MEM=${VM_MEM_TWO:-1G} VM_QUIET=$([ "${VM_STREAM_A:-0}" = 1 ] && echo 0 || echo 1)
    VM_CONFIG_EXTRA="ROLE=a ADDR=192.168.77.1 PEER=192.168.77.2 SHARED='$run/shared'"
    VM_QEMU_EXTRA=(-netdev "socket,id=wire,udp=127.0.0.1:$pb,localaddr=127.0.0.1:$pa"
                   -device "virtio-net-pci,netdev=wire,mac=52:54:00:77:00:01"
                   -virtfs "local,path=$run/shared,mount_tag=shared,security_model=none,multidevs=remap")
    vm_boot "$run/a"; i=$?; echo "$VM_ELAPSED" > "$run/a/boot.secs"; echo $i > "$run/a/boot.rc"; echo $i > "$run/shared/sync/a.exit"
  ) &
  local ja=$!
  (
    VM_APPEND_EXTRA="${VM_APPEND_B:-}" VM_SMP=${VM_SMP_TWO:-1} VM_MEM=${VM_MEM_TWO:-1G} VM_QUIET=1
    VM_CONFIG_EXTRA="ROLE=b ADDR=192.168.77.2 PEER=192.168.77.1 SHARED='$run/shared'"
    VM_QEMU_EXTRA=(-netdev "socket,id=wire,udp=127.0.0.1:$pa,localaddr=127.0.0.1:$pb"
                   -device "virtio-net-pci,netdev=wire,mac=52:54:00:77:00:02"
                   -virtfs "local,path=$run/shared,mount_tag=shared,security_model=none,multidevs=remap")
    vm_boot "$run/b"; i=$?; echo "$VM_ELAPSED" > "$run/b/boot.secs"; echo $i > "$run/b/boot.rc"; echo $i > "$run/shared/sync/b.exit"
  ) &
  local jb=$!
  trap 'vm_log "interrupted: stopping both VMs"; kill -TERM $ja $jb 2>/dev/null; wait $ja $jb; exit 130' INT TERM
  vm_watch_two "$run" $ja $jb
  wait $ja $jb || :
  trap - INT TERM
  VM_RC_A=$(cat "$run/a/boot.rc" 2>/dev/null || echo 125)
  VM_RC_B=$(cat "$run/b/boot.rc" 2>/dev/null || echo 125)
  VM_ELAPSED=$(cat "$run/a/boot.secs" "$run/b/boot.secs" 2>/dev/null | sort -n | tail -1)
}
