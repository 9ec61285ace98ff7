#!/bin/sh
# Runs in the guest, chrooted into the host root, before the command: a veth
# pair with addresses (inside the VM only: the VM has no NIC, nothing leaves it)
# and one rxe device per veth end.
set -eu
ip link set lo up
ip link add veth0 type veth peer name veth1
ip addr add 10.0.0.1/24 dev veth0
ip addr add 10.0.0.2/24 dev veth1
ip link set veth0 up
ip link set veth1 up
rdma link add rxe0 type rxe netdev veth0
if [ "${NDEV:-2}" -ge 2 ]; then
  rdma link add rxe1 type rxe netdev veth1
fi
# Wait (up to 10 s) for the uverbs char devices and the GIDs of the addresses.
i=0
while [ $i -lt 100 ]; do
  ok=1
  for d in $(seq 0 $((${NDEV:-2} - 1))); do
    [ -e /sys/class/infiniband/rxe$d/ports/1/gids/1 ] || ok=0
    grep -q ':0a00:' /sys/class/infiniband/rxe$d/ports/1/gids/1 2>/dev/null || ok=0
  done
  [ -c /dev/infiniband/uverbs0 ] || ok=0
  [ $ok = 1 ] && break
  sleep 0.1; i=$((i + 1))
done
rdma link show
