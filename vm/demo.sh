#!/usr/bin/env bash
# `make demo`: boots the Soft-RoCE VM and shows `ibv_devinfo -v` and an
# `ibv_rc_pingpong` exchange (Debian's ibverbs-utils) running on our
# libibverbs.so.1. Where our library cannot run them yet, shows its error next
# to Debian's library running them in the same VM.
# Exit status: 0 when both ran on our library; 0 as well (with the message)
# when only Debian's did, unless DEMO_STRICT=1; 1 when the VM or Debian's run failed.
set -euo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-300}
. "$(dirname "$0")/lib.sh"
[ -e "$OUR_LIB" ] || vm_die "$OUR_LIB is missing: run 'make' first"
t0=$(date +%s)
vm_prepare
run=$(vm_new_run)
[ "${VM_KEEP:-0}" = 1 ] || trap 'rm -rf "$run"' EXIT
echo "$REPO" > "$run/cwd"
echo "exec bash '$REPO/vm/guest/demo.sh'" > "$run/cmd.sh"
echo "demo: booting the Soft-RoCE VM (qemu TCG, kernel $VM_KVER; about 10 s)..."
set +e
vm_boot "$run"; rc=$?
set -e
echo
echo "demo: done in $(( $(date +%s) - t0 ))s (VM up ${VM_ELAPSED}s)"
case $rc in
  0) exit 0 ;;
  3) [ "${DEMO_STRICT:-0}" = 1 ] && exit 1; exit 0 ;;
  *) echo "demo: failed (status $rc)"; exit 1 ;;
esac
