# Fake uverbs devices without hardware, sourced by tests/plugins/discovery.sh
# and tests/releases/discovery.sh, which run it in a mount namespace of their
# own (unshare -m): a sysfs tree for SYSFS_PATH and the /dev/infiniband
# nodes, on tmpfs mounts that go with the namespace.

# private_dev DEV HOLD: a tmpfs over DEV (/dev, or a root's) with the usual
# nodes bind-mounted back one by one (held meanwhile on a tmpfs at HOLD, as
# DEV may be /dev itself). Nothing is deleted: the real /dev stays untouched.
private_dev() {
	local dev=$1 hold=$2 n nodes="null zero full random urandom tty"
	mkdir -p "$hold"
	mount -t tmpfs tmpfs "$hold" || return 1
	for n in $nodes; do
		touch "$hold/$n" && mount --bind "/dev/$n" "$hold/$n" || return 1
	done
	mount -t tmpfs tmpfs "$dev" || return 1
	for n in $nodes; do
		touch "$dev/$n" && mount --bind "$hold/$n" "$dev/$n" || return 1
	done
	mkdir -p "$dev/infiniband"
}

# dev NAME UVERBS MINOR NODE_TYPE MODALIAS (or - for none): a device in the
# sysfs tree at $sys, its node in $devdir.
dev() {
	local name=$1 uv=$2 minor=$3 nt=$4 ma=$5
	local ib=$sys/class/infiniband/$name u=$sys/class/infiniband_verbs/$uv
	mkdir -p "$ib/device" "$u"
	echo "$name" >"$u/ibdev"
	echo "231:$minor" >"$u/dev"
	echo 1 >"$u/abi_version"
	echo "$nt" >"$ib/node_type"
	printf '0002:c903:00%02x:%04x\n' "$minor" "$minor" >"$ib/node_guid"
	[ "$ma" = - ] || echo "$ma" >"$ib/device/modalias"
	touch "$devdir/$uv"
}

# fake_devices: the sysfs tree at $sys with eight devices of seven drivers
# (mlx5, efa, irdma, bnxt_re, hns, mana, rxe), nodes in $devdir.
fake_devices() {
	mkdir -p "$sys/class/infiniband_verbs" "$devdir"
	echo 6 >"$sys/class/infiniband_verbs/abi_version"
	dev mlx5_0  uverbs0 192 "1: CA"   pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00
	dev efa_0   uverbs1 193 "7: unspecified" pci:v00001D0Fd0000EFA0sv00001D0Fsd0000EFA0bc02sc00i00
	dev irdma0  uverbs2 194 "4: RNIC" pci:v00008086d00001592sv00008086sd00000002bc02sc00i00
	dev bnxt_re0 uverbs3 195 "1: CA"  pci:v000014E4d000016D7sv000014E4sd00001402bc02sc00i00
	dev hns_0   uverbs4 196 "1: CA"   pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00
	dev mana_0  uverbs5 197 "1: CA"   pci:v00001414d000000BAsv00001414sd00000000bc02sc00i00
	dev rxe0    uverbs6 198 "1: CA"   -
	dev mlx5_1  uverbs7 199 "1: CA"   pci:v000015B3d0000101Dsv000015B3sd00000020bc02sc00i00
}
