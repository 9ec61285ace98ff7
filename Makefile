# make          builds build/lib/libibverbs.so.1, the libibverbs.so link and libibverbs.pc
# make test     runs every test (unit, header, ABI, C, VM)
# make install  PREFIX=/usr/local (DESTDIR honoured)
CARGO    ?= cargo
CBINDGEN ?= cbindgen
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BUILD    := build
LIB      := $(BUILD)/lib/libibverbs.so.1
PC       := $(BUILD)/lib/pkgconfig/libibverbs.pc
VERSION  := 1.14.44.0

.PHONY: all lib header check-header unit-test abi-test c-test plugin-test vm-test demo bench test install clean

all: lib $(PC)

lib:
	$(CARGO) build --release
	@mkdir -p $(BUILD)/lib
	cp target/release/libibverbs.so $(LIB).tmp && mv $(LIB).tmp $(LIB)
	ln -sf libibverbs.so.1 $(BUILD)/lib/libibverbs.so

$(PC): Makefile
	@mkdir -p $(dir $@)
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: libibverbs\nDescription: RDMA core userspace library (Rust)\nVersion: 44.0\nLibs: -L$${libdir} -libverbs\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' '$(LIBDIR)' '$(INCDIR)' > $@

header:
	$(CBINDGEN) --quiet --config cbindgen.toml --crate ibverbs --output include/infiniband/verbs.h

check-header:
	@tmp=$$(mktemp); $(CBINDGEN) --quiet --config cbindgen.toml --crate ibverbs --output $$tmp; \
	if diff -u include/infiniband/verbs.h $$tmp; then echo "check-header: include/infiniband/verbs.h is up to date"; rm -f $$tmp; \
	else echo "check-header: include/infiniband/verbs.h is stale: run 'make header' and commit it"; rm -f $$tmp; exit 1; fi

unit-test:
	$(CARGO) test --release

test: all unit-test check-header abi-test c-test plugin-test vm-test

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/infiniband
	install -m 0755 $(LIB) $(DESTDIR)$(LIBDIR)/libibverbs.so.$(VERSION)
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

vm-test: all
	vm/run-tests.sh

demo: all
	vm/demo.sh

bench: all
	bench/run.sh
