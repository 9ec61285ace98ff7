#!/bin/sh
# Open MPI's launch agent between the two guests (plm_rsh_agent), in place of
# ssh: "mpi-agent.sh HOST CMD..." hands CMD to the other guest through the
# shared directory ($SHARED/mpi/N.cmd; vm/guest/two-hosts.sh on guest b runs
# each one) and, like ssh, waits for it to end and returns its output and status.
# Nothing leaves the two guests: the hand-off is a file, the job's own traffic
# goes over the link.
set -eu
shift   # HOST: there is one other guest
d=$SHARED/mpi
mkdir -p "$d"
n=$(date +%s%N)$$
printf '%s\n' "$*" > "$d/$n.tmp"
mv "$d/$n.tmp" "$d/$n.cmd"
while [ ! -e "$d/$n.rc" ]; do
  [ -e "$SHARED/sync/b.exit" ] && { echo "mpi-agent: guest b's VM ended" >&2; exit 255; }
  sleep 0.2
done
cat "$d/$n.out"
cat "$d/$n.err" >&2
exit "$(cat "$d/$n.rc")"
