#!/usr/bin/env bash
# make vm-test-releases: one VM boot, each Debian release root's own programs
# on its own libibverbs, on ours (IBV_PROVIDERS=auto) and on ours hosting the
# release's rxe plugin (IBV_PROVIDERS=plugin); see vm/guest/releases.sh.
#
#   vm/run-releases.sh [SUITE[:LIB,LIB...]...]   (default: trixie)
#
# LIBs: own, ours, plugin (the default: all three). RELEASES_ONLY=REGEX runs
# a subset of the cases (RELEASES_ONLY_trixie, _sid: of one release's); RELEASES_CASE_TIMEOUT (per process, 90 s) and
# RELEASES_PYVERBS_TIMEOUT (one pyverbs run, 1500 s) bound the runs.
#
# The roots come from scripts/release-root.sh (built once, cached outside the
# checkout); the guest sees them read-only through the host root. Results:
# vm/out/NAME/results.tsv (NAME: VM_RESULTS_NAME, default vm-test-releases),
# each case's output and LD_DEBUG trace under vm/out/NAME/SUITE/LIB/CASE/;
# each stage's seconds in vm/out/NAME/stages.tsv (printed as it ends); the
# report (scripts/releases-report.sh) in build/releases/NAME.md, whose
# Summary (outcomes per release and library, stage times) ends the output.
set -euo pipefail
[ $# -gt 0 ] || set -- trixie
# A hard limit per release, above a loaded run's time (docs/testing.md).
VM_TIMEOUT=${VM_TIMEOUT:-$((9000 * $#))}
. "$(dirname "$0")/lib.sh"
[ -e "$OUR_LIB" ] || vm_die "$OUR_LIB is missing: run 'make' first"
t_start=$(date +%s)
roots=${RELEASE_ROOTS:-/var/cache/libibverbs-rs/roots}
for s in "$@"; do "$REPO/scripts/release-root.sh" "${s%%:*}" >/dev/null; done
t_roots=$(( $(date +%s) - t_start ))
echo "vm-test-releases: release roots ready in $t_roots s"
# the C tests, against each release's headers (a subset under RELEASES_ONLY)
t_build=$(date +%s)
for s in "$@"; do "$REPO/tests/releases/ctests-build.sh" "${s%%:*}" || echo "vm-test-releases: ${s%%:*}: a C test does not build (a fail row)"; done
t_build=$(( $(date +%s) - t_build ))
echo "vm-test-releases: C tests built in $t_build s"
t_prep=$(date +%s)
vm_prepare
t_prep=$(( $(date +%s) - t_prep ))
run=$VM_OUT/${VM_RESULTS_NAME:-vm-test-releases}
rm -rf "$run"; mkdir -p "$run"; chmod 755 "$run"
# stage times (SUITE STAGE SECONDS; "-" for the host's), the guest's between
printf -- '-\troots\t%d\n-\tc-tests build\t%d\n-\tvm prepare\t%d\n' "$t_roots" "$t_build" "$t_prep" >"$run/stages.tsv"
{
  for v in RELEASES_ONLY RELEASES_ONLY_trixie RELEASES_ONLY_sid RELEASES_CASE_TIMEOUT RELEASES_PYVERBS_TIMEOUT; do
    [ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
  done
  printf 'exec bash %q %q %q' "$REPO/vm/guest/releases.sh" "$run" "$roots"
  printf ' %q' "$@"; echo
} >"$run/cmd.sh"
echo "$REPO" >"$run/cwd"
echo "vm-test-releases: booting the VM (kernel $VM_KVER) for $*; logs in ${run#"$REPO"/}/"
set +e
VM_QUIET=${VM_QUIET:-0} vm_boot "$run"; rc=$?
set -e
secs=$(( $(date +%s) - t_start ))
echo "vm-test-releases: VM up ${VM_ELAPSED}s, total ${secs}s (load $(cut -d' ' -f1-3 /proc/loadavg))"
printf -- '-\tvm boot to power-off\t%.0f\n-\ttotal\t%d\n' "${VM_ELAPSED:-0}" "$secs" >>"$run/stages.tsv"
if [ -f "$run/results.tsv" ]; then
  report=$REPO/build/releases/${VM_RESULTS_NAME:-vm-test-releases}.md
  "$REPO/scripts/releases-report.sh" "$run" "$report" "$secs"
  # the summary part of the report: counts per release and library, times
  sed -n '/^## Summary/,/^## /p' "$report" | sed '$d'
fi
exit $rc
