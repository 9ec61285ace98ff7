# make          builds build/lib/libibverbs.so.1, the libibverbs.so link and libibverbs.pc
# make check    the fast loop (< 3 min warm): fmt, clippy, unit tests, header, ABI, import circles
# make test     runs every test: `make check` first, then fuzz, UB, C, VM, packages
# make static   build/lib/libibverbs.a (the Rust providers built in; no symbol versions)
# make install  PREFIX=/usr/local (DESTDIR honoured): shared and static library, headers, .pc
# make deb      build/deb/libibverbs1-rs_*.deb, libibverbs-rs-dev_*.deb (packaging/deb/)
CARGO    ?= cargo
CBINDGEN ?= cbindgen
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BUILD    := build
LIB      := $(BUILD)/lib/libibverbs.so.1
STATIC   := $(BUILD)/lib/libibverbs.a
PC       := $(BUILD)/lib/pkgconfig/libibverbs.pc
VERSION  := 1.14.44.0
# What Rust's std needs when libibverbs.a is linked into a C program (rustc's
# native-static-libs, less -lc and -lgcc_s, which the C compiler driver adds itself).
LIBS_PRIVATE := -lpthread -ldl -lm -lrt -lutil

.PHONY: all lib static deb header check-header check check-imports unit-test abi-test c-test plugin-test vm-test vm-test-backports vm-test-two-hosts-short vm-test-two-hosts pkg-test demo bench bench-two-hosts test install clean fuzz fuzz-smoke ub-test vm-memcheck vm-memcheck-all vm-asan vm-asan-smoke soak release-roots release-ldd release-discovery vm-test-releases vm-test-releases-smoke vm-test-releases-sid

all: lib $(PC)

lib:
	$(CARGO) build --release
	@mkdir -p $(BUILD)/lib
	cp target/release/libibverbs.so $(LIB).tmp && mv $(LIB).tmp $(LIB)
	ln -sf libibverbs.so.1 $(BUILD)/lib/libibverbs.so

$(PC): Makefile
	@mkdir -p $(dir $@)
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: libibverbs\nDescription: RDMA core userspace library (Rust)\nVersion: 44.0\nLibs: -L$${libdir} -libverbs\nLibs.private: %s\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' '$(LIBDIR)' '$(INCDIR)' '$(LIBS_PRIVATE)' > $@

# The staticlib cargo builds beside the cdylib, less the versioned aliases
# (name@@IBVERBS_x) the .symver pins add: a static link has no versions, and
# with both `name` and `name@@V` defined, ld reports duplicate definitions.
static: lib
	objcopy --wildcard --strip-symbol='*@*' --strip-debug --remove-section=.comment --remove-section=.note --enable-deterministic-archives target/release/libibverbs.a $(STATIC).tmp
	mv $(STATIC).tmp $(STATIC)

deb: all static
	LIBS_PRIVATE='$(LIBS_PRIVATE)' packaging/deb/build.sh $(BUILD)/deb

header:
	$(CBINDGEN) --quiet --config cbindgen.toml --crate ibverbs --output include/infiniband/verbs.h

check-header:
	@tmp=$$(mktemp); $(CBINDGEN) --quiet --config cbindgen.toml --crate ibverbs --output $$tmp; \
	if diff -u include/infiniband/verbs.h $$tmp; then echo "check-header: include/infiniband/verbs.h is up to date"; rm -f $$tmp; \
	else echo "check-header: include/infiniband/verbs.h is stale: run 'make header' and commit it"; rm -f $$tmp; exit 1; fi

unit-test:
	$(CARGO) test --release

# No import circle among the files of src/ and providers/.
check-imports:
	scripts/check-imports.py

# The fast loop, first in `make test` and CI: formatting, clippy (warnings are
# errors; every `unsafe` block documented), unit tests, the checked-in header,
# the ABI checks and the import graph. Each step prints its time.
CHECK_STEPS := fmt clippy unit-test check-header abi-test check-imports
check:
	@t0=$$(date +%s); \
	for s in $(CHECK_STEPS); do t=$$(date +%s); \
	  case $$s in \
	    fmt) $(CARGO) fmt --all -- --check ;; \
	    clippy) $(CARGO) clippy --release --all-targets -- -D warnings -D clippy::undocumented_unsafe_blocks ;; \
	    *) $(MAKE) --no-print-directory $$s ;; \
	  esac || { echo "make check: $$s FAILED ($$(( $$(date +%s) - t )) s)"; exit 1; }; \
	  echo "make check: $$s ok ($$(( $$(date +%s) - t )) s)"; \
	done; echo "make check: all ok ($$(( $$(date +%s) - t0 )) s)"

# Every test, each stage timed; `check` covers the unit tests, the header and
# the ABI checks.
TEST_STAGES := check fuzz-smoke ub-test c-test plugin-test release-ldd release-discovery vm-test-releases-smoke vm-test-releases-sid vm-test vm-test-backports vm-test-two-hosts-short vm-memcheck vm-asan-smoke pkg-test
test: all
	@t0=$$(date +%s); times=""; \
	for s in $(TEST_STAGES); do t=$$(date +%s); \
	  $(MAKE) --no-print-directory $$s || { echo "make test: $$s FAILED ($$(( $$(date +%s) - t )) s)"; exit 1; }; \
	  times="$$times $$s=$$(( $$(date +%s) - t ))s"; echo "make test: $$s ok ($$(( $$(date +%s) - t )) s)"; \
	done; echo "make test: all ok ($$(( $$(date +%s) - t0 )) s):$$times"

install: all static
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/infiniband
	install -m 0755 $(LIB) $(DESTDIR)$(LIBDIR)/libibverbs.so.$(VERSION)
	install -m 0644 $(STATIC) $(DESTDIR)$(LIBDIR)/libibverbs.a
	ln -sf libibverbs.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libibverbs.so.1
	ln -sf libibverbs.so.1 $(DESTDIR)$(LIBDIR)/libibverbs.so
	install -m 0644 include/infiniband/*.h $(DESTDIR)$(INCDIR)/infiniband/
	install -m 0644 $(PC) $(DESTDIR)$(LIBDIR)/pkgconfig/libibverbs.pc

clean:
	$(CARGO) clean
	rm -rf $(BUILD)

# Each test stage lives in a script of its own folder.
abi-test: all
	tests/abi/run.sh

c-test: all
	c-tests/run.sh
	c-tests/inline/diff.sh

plugin-test: all
	tests/plugins/discovery.sh

# Debian release roots (debootstrap, built once and cached outside the
# checkout in RELEASE_ROOTS, default /var/cache/libibverbs-rs/roots): trixie
# (rdma-core 56.1) first, then sid. See scripts/release-root.sh.
RELEASE_SUITES ?= trixie sid
release-roots:
	scripts/release-root.sh $(RELEASE_SUITES)

# Every ELF object of each release root (trixie's rdma-core 56.1, sid's 65)
# that needs libibverbs.so.1 resolves against ours (ldd -r in the root, ours
# bind-mounted in a private mount namespace). tests/releases/ldd.sh.
release-ldd: all
	@start=$$(date +%s); scripts/release-root.sh $(RELEASE_SUITES) >/dev/null && tests/releases/ldd.sh $(RELEASE_SUITES); \
	rc=$$?; echo "release-ldd: stage time $$(( $$(date +%s) - start )) s"; exit $$rc

# Device discovery from a fake sysfs tree, chrooted into each release root
# (no VM): ours lists, with the release's own plugins, what its library
# lists. tests/releases/discovery.sh.
release-discovery: all
	@start=$$(date +%s); scripts/release-root.sh $(RELEASE_SUITES) >/dev/null && tests/releases/discovery.sh $(RELEASE_SUITES); \
	rc=$$?; echo "release-discovery: stage time $$(( $$(date +%s) - start )) s"; exit $$rc

# In one VM boot, chrooted into each release root: its ibverbs-utils,
# perftest and rdmacm-utils programs and its own pyverbs tests, on its own
# library, on ours (IBV_PROVIDERS=auto) and on ours hosting its own rxe
# plugin (IBV_PROVIDERS=plugin). A case
# own passes and ours fails is a FAIL. vm/run-releases.sh +
# vm/guest/releases.sh; report in build/releases/vm-test-releases.md.
# The full set also runs the project's C tests built against each release's
# headers (tests/releases/ctests-build.sh). `make test` runs the
# RELEASES_SMOKE subset on trixie and, in the same boot, the
# RELEASES_SMOKE_SID C tests on sid.
RELEASES_SMOKE ?= ^(ibv_devices|devinfo-v|ibv_rc_pingpong|ibv_xsrq_pingpong|rping-V|c-tests/datapath)$$
RELEASES_SMOKE_SID ?= ^c-tests/datapath$$
RELEASES_FULL ?= trixie sid
vm-test-releases: all
	@start=$$(date +%s); vm/run-releases.sh $(RELEASES_FULL); \
	rc=$$?; echo "vm-test-releases: stage time $$(( $$(date +%s) - start )) s"; exit $$rc
vm-test-releases-smoke: all
	@start=$$(date +%s); RELEASES_ONLY='$(RELEASES_SMOKE)' RELEASES_ONLY_sid='$(RELEASES_SMOKE_SID)' VM_RESULTS_NAME=vm-test-releases-smoke vm/run-releases.sh trixie sid; \
	rc=$$?; echo "vm-test-releases-smoke: stage time $$(( $$(date +%s) - start )) s"; exit $$rc

# rdma-core 65 (sid) in one VM boot, chrooted into the sid root: its
# ibv_devinfo [-v] and c-tests/v64/comp_cntr65 print on ours (auto, and
# plugin hosting its librxe-rdmav65.so) what its own library prints, and its
# ibv_rc_pingpong (plain and -N) passes on all three. tests/releases/sid65.sh.
vm-test-releases-sid: all
	@start=$$(date +%s); scripts/release-root.sh sid >/dev/null && tests/releases/sid65.sh "$$(scripts/release-root.sh --path sid)"; \
	rc=$$?; echo "vm-test-releases-sid: stage time $$(( $$(date +%s) - start )) s"; exit $$rc

vm-test: all
	vm/run-tests.sh

# The 6.12 backports kernel (FLUSH and ATOMIC WRITE in rxe): a subset, to keep
# `make test` within CI's time: the rdma-core 64 C tests, the seed-page test,
# the ibv_wr_* and data-path tests and one ping-pong, no interop pairs.
VM_BACKPORTS_ONLY ?= ^(c-tests-64/.*|c-tests/(seeds|wr_api|datapath)|ibv_rc_pingpong)$$
vm-test-backports: all
	VM_KERNEL=backports VM_TEST_MIXED=0 VM_TEST_ONLY='$(VM_BACKPORTS_ONLY)' vm/run-tests.sh

# Two guests joined by a link on this machine (vm/run-two-hosts-tests.sh):
# ping-pong, perftest, rping -V across it in every library pair, and the link
# going down under RC sends. The short pass is part of `make test`.
vm-test-two-hosts-short: all
	TWO_HOSTS_SUITE=short vm/run-two-hosts-tests.sh

vm-test-two-hosts: all
	TWO_HOSTS_SUITE=full vm/run-two-hosts-tests.sh

# The .deb installed over Debian's libibverbs1 in a throwaway overlay root in
# the VM, the client programs on it, then removed; the same over the
# libibverbs1 of each release root (PKG_TEST_RELEASES, default trixie sid),
# that libibverbs1 then reinstalled and upgraded under ours (the trigger);
# and a C program linked with libibverbs.a alone. One VM boot
# (vm/run-pkg-tests.sh).
pkg-test: deb static
	vm/run-pkg-tests.sh

demo: all
	vm/demo.sh

bench: all
	bench/run.sh

# rc_roundtrip and ib_write_bw across the two guests, Debian's and ours in
# the same pair of boots; writes BENCHMARKS-two-hosts.md
bench-two-hosts: all
	vm/run-two-hosts-bench.sh

# libFuzzer (cargo-fuzz, nightly): every target for 10 s in `make test`,
# 10 min each in `make fuzz` (FUZZ_SECS=...). See fuzz/run.sh.
FUZZ_SECS ?= 600
fuzz-smoke:
	fuzz/run.sh 10

fuzz:
	FUZZ_KEEP=1 fuzz/run.sh $(FUZZ_SECS)

# Miri, AddressSanitizer and valgrind memcheck over the unit tests of the
# modules with `unsafe` (tests/ub/run.sh).
ub-test:
	tests/ub/run.sh

# The C tests and client programs under valgrind memcheck on our library, in
# one VM boot beside Debian's (vm/guest/tests.sh, lib "memcheck"): 0 errors,
# 0 bytes definitely lost, output identical to Debian's. TCG + valgrind is
# slow: MEMCHECK_ONLY is the subset run in `make test` (each case verified
# clean); MEMCHECK_MORE the other C tests, run by vm-memcheck-all (clean too).
# MEMCHECK_SKIP, left out of vm-memcheck-all: c-tests/leak, qp, pd_mr and
# removal, whose RSS and mapping-count checks measure valgrind's own arena;
# fork, which re-executes itself per mode (valgrind refuses to run the
# re-executed binary directly); and
# mt_post_poll, whose 120 s deadline valgrind under TCG cannot meet (memcheck
# itself reports 0 errors on leak, qp, pd_mr, removal and mt_post_poll); the bad-input tests, whose ~400
# forked cases take about 10 s each under valgrind and TCG (run them with
# MEMCHECK_SKIP= VM_CASE_TIMEOUT=7200, or a sample: BADINPUT_EVERY=N runs one
# case in N, e.g. MEMCHECK_SKIP= VM_TEST_ONLY='^c-tests(-64)?/badinput'
# BADINPUT_EVERY=25).
MEMCHECK_ONLY ?= ^(ibv_devices|ibv_devinfo|sysfs-missing-ibv_devices|c-tests/(ah|cq|datapath|no_device|wr_api))$$
MEMCHECK_MORE ?= ^c-tests(-64)?/(device_misc|events|events_cq|seeds|srq|mcast|query|cq_ex_poll_span|pd_mr_fork|batch_mt|verbs64|flush_atomic_write|seeds-64hdr|stress|driver_cmds)$$
vm-memcheck: all
	VM_TEST_LIBS="debian memcheck" VM_TEST_ONLY='$(MEMCHECK_ONLY)' VM_TEST_MIXED=0 VM_CASE_TIMEOUT=600 \
	  VM_RESULTS_NAME=vm-memcheck vm/run-tests.sh

# c-tests/stress.c with a big count (its small default runs in `make test`):
# 8 threads x SOAK_OPS operations per phase, SOAK_ROUNDS destroy-under-use
# rounds, on Debian's library and ours in one VM boot. Not part of `make test`.
SOAK_OPS ?= 3000
SOAK_ROUNDS ?= 500
# c-tests/one_slot's short ping-pongs (5 messages each way) on one-slot and
# small queues, posts inside poll batches: every case this many times.
SOAK_ONE_SLOT_ROUNDS ?= 50
soak: all
	STRESS_OPS=$(SOAK_OPS) STRESS_ROUNDS=$(SOAK_ROUNDS) VM_TEST_ONLY='^c-tests/(stress|one_slot)$$' \
	  ONE_SLOT_ROUNDS=$(SOAK_ONE_SLOT_ROUNDS) ONE_SLOT_ITERS=5 \
	  VM_TEST_LIBS='debian ours' VM_TEST_MIXED=0 VM_CASE_TIMEOUT=3000 VM_TIMEOUT=7000 \
	  VM_RESULTS_NAME=soak vm/run-tests.sh

# Every case of vm/guest/tests.sh under memcheck (not in `make test`: slow),
# less MEMCHECK_SKIP (see above).
MEMCHECK_SKIP ?= ^c-tests(-64)?/(leak|qp|pd_mr|removal|fork|mt_post_poll|badinput|badinput_qp|badinput64)$$
vm-memcheck-all: all
	VM_TEST_LIBS="debian memcheck" VM_TEST_SKIP='$(MEMCHECK_SKIP)' VM_TEST_MIXED=0 VM_CASE_TIMEOUT=900 \
	  VM_TIMEOUT=7200 VM_RESULTS_NAME=vm-memcheck-all vm/run-tests.sh

# The C tests built with gcc -fsanitize=address, run in the VM on Debian's
# library and on ours (LD_LIBRARY_PATH: the ASan runtime stays first in the
# link order, so no LD_PRELOAD). Our Rust library is not instrumented; its
# heap is checked through ASan's malloc (leaks, double frees). ASAN_SMOKE:
# a quick subset (vm-asan-smoke), in `make test`: a VM boot of its own, 32 s
# on this 2-core machine nearly idle (measured with `time make vm-asan-smoke`).
ASAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer
ASAN_OPTIONS_VM := detect_leaks=1:abort_on_error=0:exitcode=98:allocator_may_return_null=1
LSAN_OPTIONS_VM := suppressions=$(CURDIR)/vm/lsan.supp
ASAN_SMOKE ?= ^c-tests/(cq|datapath|no_device)$$
# RSS and mapping-count checks measure ASan's shadow and quarantine.
ASAN_SKIP ?= ^c-tests/(leak|qp|pd_mr)$$
vm-asan: all
	VM_CTESTS_CFLAGS='$(ASAN_FLAGS)' ASAN_OPTIONS='$(ASAN_OPTIONS_VM)' LSAN_OPTIONS='$(LSAN_OPTIONS_VM)' \
	  VM_TEST_LIBS="debian ours" VM_TEST_ONLY='^c-tests(-64)?/' VM_TEST_SKIP='$(ASAN_SKIP)' VM_TEST_MIXED=0 VM_CASE_TIMEOUT=300 VM_RESULTS_NAME=vm-asan vm/run-tests.sh
vm-asan-smoke: all
	VM_CTESTS_CFLAGS='$(ASAN_FLAGS)' ASAN_OPTIONS='$(ASAN_OPTIONS_VM)' LSAN_OPTIONS='$(LSAN_OPTIONS_VM)' \
	  VM_TEST_LIBS="debian ours" VM_TEST_ONLY='$(ASAN_SMOKE)' VM_TEST_MIXED=0 VM_RESULTS_NAME=vm-asan-smoke vm/run-tests.sh
