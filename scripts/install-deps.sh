#!/usr/bin/env bash
# Installs what `make` and `make test` need on a fresh Debian bookworm machine.
# Idempotent: a machine that has everything does no network work.
set -euo pipefail

CBINDGEN_VERSION=0.29.4
PKGS=(
  build-essential pkg-config python3
  libibverbs-dev ibverbs-utils perftest rdmacm-utils librdmacm-dev  # the reference and the oracle programs
  dwarves python3-pyelftools                                        # layout comparison
  qemu-system-x86 busybox-static iproute2 rdma-core kmod cpio       # the Soft-RoCE VM harness (vm/)
  ibverbs-providers procps xz-utils zstd                            #   (its kernel is fetched into vm/cache/ on first use)
  valgrind                                                          # make bench: instructions per operation (callgrind)
  lintian python3-pyverbs                                           # make deb (lintian), make pkg-test (a consumer of libibverbs1)
  debootstrap util-linux                                            # make release-roots (Debian 13, sid), release-ldd (unshare)
  openmpi-bin libopenmpi-dev libucx0                                # the two-host MPI job (Open MPI's UCX pml; vm/run-two-hosts-tests.sh)
  qperf ucx-utils                                                   # the two-host set: qperf, ucx_perftest (vm/guest/two-hosts.sh)
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! cbindgen --version 2>/dev/null | grep -q " $CBINDGEN_VERSION\$"; then
  echo "install-deps: cargo install cbindgen $CBINDGEN_VERSION"
  cargo install --quiet --locked cbindgen --version "$CBINDGEN_VERSION"
fi

# make check: rustfmt and clippy on the default toolchain.
for c in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
    echo "install-deps: rustup component add $c"
    rustup component add "$c"
  fi
done

# make fuzz-smoke / ub-test: libFuzzer through cargo-fuzz, Miri and the
# sanitizers, all on the nightly toolchain.
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "install-deps: rustup toolchain install nightly"
  rustup toolchain install nightly --profile minimal
fi
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then
  echo "install-deps: rustup component add miri rust-src (nightly)"
  rustup component add miri rust-src --toolchain nightly
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "install-deps: cargo install cargo-fuzz"
  cargo install --quiet --locked cargo-fuzz
fi
