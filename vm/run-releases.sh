#!/usr/bin/env bash
# make vm-test-releases: one VM boot, each Debian release root's own programs
# on its own libibverbs, on ours (IBV_PROVIDERS=auto) and on ours hosting the
# release's rxe plugin (IBV_PROVIDERS=plugin); see vm/guest/releases.sh.
#
#   vm/run-releases.sh [SUITE...]     (default: trixie; RELEASES_ONLY=REGEX)
#
# The roots come from scripts/release-root.sh (built once, cached outside the
# checkout); the guest sees them read-only through the host root. Results:
# vm/out/vm-test-releases/results.tsv, each case's output and LD_DEBUG trace
# under vm/out/vm-test-releases/SUITE/LIB/CASE/.
set -euo pipefail
VM_TIMEOUT=${VM_TIMEOUT:-1200}
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || set -- trixie
[ -e "$OUR_LIB" ] || vm_die "$OUR_LIB is missing: run 'make' first"
t_start=$(date +%s)
roots=${RELEASE_ROOTS:-/var/cache/libibverbs-rs/roots}
for s in "$@"; do "$REPO/scripts/release-root.sh" "$s" >/dev/null; done
vm_prepare
run=$VM_OUT/${VM_RESULTS_NAME:-vm-test-releases}
rm -rf "$run"; mkdir -p "$run"; chmod 755 "$run"
{
  [ -n "${RELEASES_ONLY:-}" ] && printf 'export RELEASES_ONLY=%q\n' "$RELEASES_ONLY"
  printf 'exec bash %q %q %q' "$REPO/vm/guest/releases.sh" "$run" "$roots"
  printf ' %q' "$@"; echo
} >"$run/cmd.sh"
echo "$REPO" >"$run/cwd"
echo "vm-test-releases: booting the VM (kernel $VM_KVER) for $*; logs in ${run#"$REPO"/}/"
set +e
VM_QUIET=${VM_QUIET:-0} vm_boot "$run"; rc=$?
set -e
echo "vm-test-releases: VM up ${VM_ELAPSED}s, total $(( $(date +%s) - t_start ))s"
exit $rc
