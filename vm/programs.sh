#!/usr/bin/env bash
# Runs the real client programs (ibverbs-utils pingpongs, perftest) in ONE boot
# of the rxe VM, server and client on rxe0, with each side on Debian's library
# or ours:   vm/programs.sh [debian:debian] [ours:ours] [ours:debian] [debian:ours]
# (SERVER:CLIENT; default: all four). Prints each side's exit status and last
# result line.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
modes="${*:-debian:debian ours:ours ours:debian debian:ours}"
OUT=$ROOT/build/vm-programs
mkdir -p "$OUT"
cat > "$OUT/guest.sh" <<EOS
#!/bin/bash
L=$ROOT/build/lib
T=\$(mktemp -d)
run() { # NAME SERVER-CMD CLIENT-CMD
  echo "### \$1"
  ( [ "\$s" = ours ] && export LD_LIBRARY_PATH=\$L; exec timeout 60 \$2 ) > \$T/srv 2>&1 &
  local sp=\$!
  sleep 1.5
  ( [ "\$c" = ours ] && export LD_LIBRARY_PATH=\$L; exec timeout 60 \$3 ) > \$T/cli 2>&1
  local crc=\$?
  wait \$sp; local src=\$?
  echo "server rc=\$src: \$(grep -E 'iters in|^ *[0-9]+ +[0-9]+' \$T/srv | tail -1 | tr -s ' \t' ' ')"
  echo "client rc=\$crc: \$(grep -E 'iters in|^ *[0-9]+ +[0-9]+' \$T/cli | tail -1 | tr -s ' \t' ' ')"
}
for mode in $modes; do
  s=\${mode%:*}; c=\${mode#*:}
  echo "######## server \$s, client \$c"
  for p in rc uc ud srq; do
    run ibv_\${p}_pingpong "ibv_\${p}_pingpong -d rxe0 -g 1 -n 500" "ibv_\${p}_pingpong -d rxe0 -g 1 -n 500 10.0.0.1"
  done
  for t in ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw; do
    run \$t "\$t -d rxe0 -x 1 -n 1000" "\$t -d rxe0 -x 1 -n 1000 10.0.0.1"
  done
done
EOS
chmod +x "$OUT/guest.sh"
vm/run.sh --lib debian --timeout 1800 -- "$OUT/guest.sh" 2>&1 | grep -v '^\[ '
