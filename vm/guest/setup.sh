#!/bin/sh
# Runs in the guest, chrooted into the host root, before the command: a veth
# pair with addresses (inside the VM only: the VM has no NIC, nothing leaves it)
# and one rxe device per veth end.
set -eu
ip link set lo up
# Two-host mode (vm/run-two-hosts.sh): rxe0 on the guest's own NIC, eth0, with
# ADDR; the peer guest is PEER at the other end of the link.
if [ -n "${ADDR:-}" ]; then
  echo "vm-$ROLE" > /proc/sys/kernel/hostname   # Open MPI needs a host name
  ip link set eth0 up
  ip addr add "$ADDR/24" dev eth0
  rdma link add rxe0 type rxe netdev eth0
  # the IPv4-mapped GID of ADDR (::ffff:a.b.c.d), up to 10 s
  want=$(echo "$ADDR" | awk -F. '{printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4}')
  i=0
  while [ $i -lt 100 ]; do
    grep -qx "$want" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null && [ -c /dev/infiniband/uverbs0 ] && break
    sleep 0.1; i=$((i + 1))
  done
  rdma link show
  exit 0
fi
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
