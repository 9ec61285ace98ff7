# make          builds build/lib/libibverbs.so.1, the libibverbs.so link and libibverbs.pc
# make test     runs every test (unit, header, ABI, C, VM, packages)
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

.PHONY: all lib static deb header check-header unit-test abi-test c-test vm-test pkg-test demo bench test install clean

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

test: all unit-test check-header abi-test c-test vm-test pkg-test

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

vm-test: all
	vm/run-tests.sh

# The .deb installed over Debian's libibverbs1 in a throwaway overlay root in
# the VM, the client programs on it, then removed; and a C program linked with
# libibverbs.a alone. One VM boot (vm/run-pkg-tests.sh).
pkg-test: deb static
	vm/run-pkg-tests.sh

demo: all
	vm/demo.sh

bench: all
	bench/run.sh
