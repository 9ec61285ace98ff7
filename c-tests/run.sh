#!/usr/bin/env bash
# Host-side C tests (`make c-test`); no RDMA device needed.
#
# CONVENTION for test programs: every c-tests/**/*.c file is one test program,
# except c-tests/inline/, the differential test of the header inlines (its own diff.sh).
#  - It includes "common.h" (c-tests/ is on the include path), calls ctest_init()
#    first in main() and returns ctest_finish(). ctest_init() checks at run time
#    that the libibverbs serving the process is the expected one (env
#    CTEST_EXPECT_LIB), so a test can never pass against the wrong library.
#  - It prints its results to stdout, deterministically. Lines that may differ
#    between our library and Debian's start with "[ours] " or "[system] " (print
#    them with ctest_impl_line(); env CTEST_IMPL says which one is running).
#    Failed expectations go to stderr ("FAIL: ...", CHECK()) and exit status 1.
#  - Optional directives, anywhere in the file, one per line:
#      ctest: no-system        don't run against Debian's library (nor diff):
#                              for tests whose every line is ours-only
#      ctest: cflags FLAGS     extra compiler flags
#      ctest: libs FLAGS       extra link flags (after -libverbs)
#  - Built with CTEST_OUR_HEADER defined when compiled against our header.
#  - c-tests/v64/*.c use rdma-core 64's API: built against our header only and
#    run on our library only (self-checking; in the VM they run on rxe).
# Files not ending in .c (e.g. helpers.h next to a test) are not programs.
#
# Each program is built and run four ways:
#   deb-hdr    Debian's header, linked with -Lbuild/lib -libverbs, LD_LIBRARY_PATH=build/lib
#   our-hdr    our header (-Iinclude), linked and run the same way
#   preload    Debian's header, linked against the system library, run with
#              LD_PRELOAD=build/lib/libibverbs.so.1
#   system     Debian's header and library (the oracle), CTEST_IMPL=system
# and the untagged lines of deb-hdr, our-hdr and preload are diffed against system.
# Every build, run and diff counts as one check.
#
# Environment: CTEST_LIBDIR (our library dir, default build/lib), CTEST_INC (our
# include dir, default include), CTEST_ONLY (substring filter on test names).
# `c-tests/run.sh --self-test` runs everything with Debian's headers and a copy of
# Debian's library as "ours" (CTEST_IMPL=system everywhere): all must pass.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SYS_LIB=$(readlink -f /usr/lib/x86_64-linux-gnu/libibverbs.so.1)
OURS_IMPL=ours

if [ "${1:-}" = "--self-test" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# under its own name (tests read the release from it), as Debian installs it
	cp "$SYS_LIB" "$tmp/"
	ln -s "$(basename "$SYS_LIB")" "$tmp/libibverbs.so.1"
	ln -s libibverbs.so.1 "$tmp/libibverbs.so"
	CTEST_LIBDIR=$tmp CTEST_INC=/usr/include CTEST_SELF_TEST=1 "$0"
	exit $?
fi
if [ -n "${CTEST_SELF_TEST:-}" ]; then
	OURS_IMPL=system
fi
LIBDIR=$(readlink -f "${CTEST_LIBDIR:-$ROOT/build/lib}")
OUR_INC=$(readlink -f "${CTEST_INC:-$ROOT/include}")
OUR_LIB=$LIBDIR/libibverbs.so.1
OUT=$ROOT/build/c-tests
CFLAGS_COMMON=(-std=gnu11 -g -O1 -Wall -Wextra -Werror -I"$ROOT/c-tests")

if [ ! -e "$OUR_LIB" ]; then
	echo "c-test: $OUR_LIB does not exist; run make"
	exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"

pass=0
fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() {
	echo "FAIL $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | head -n 40 | sed 's/^/    /'
	fail=$((fail + 1))
}

directive() { sed -n "s/.*ctest: $2 \\(.*\\)\$/\\1/p" "$1" | head -n1; }

# build NAME VARIANT SRC OUTBIN -- compiler args...
build() {
	local name=$1 variant=$2 src=$3 bin=$4
	shift 5
	local log=$bin.build.log
	if ! gcc "${CFLAGS_COMMON[@]}" "$@" >"$log" 2>&1; then
		bad "$name [$variant] build" "$(grep -v '^\.\+ ' "$log")"
		return 1
	fi
	if grep -qE "^\.+ /usr/include/infiniband/" "$log" && [ "$variant" = our-hdr ] &&
		[ "$OUR_INC" != /usr/include ]; then
		bad "$name [$variant] build: our header pulled in Debian's" \
			"$(grep -E '^\.+ /usr/include/infiniband/' "$log")"
		return 1
	fi
	return 0
}

# runtest NAME VARIANT BIN EXPECT_LIB IMPL [ENV...]
runtest() {
	local name=$1 variant=$2 bin=$3 expect=$4 impl=$5
	shift 5
	local rc
	env "$@" CTEST_EXPECT_LIB="$expect" CTEST_IMPL="$impl" timeout 60 "$bin" \
		>"$bin.out" 2>"$bin.err"
	rc=$?
	if [ $rc -eq 0 ]; then
		touch "$bin.passed"
		ok "$name [$variant]"
	else
		bad "$name [$variant] exit status $rc" "$(cat "$bin.err")"
	fi
}

mapfile -t tests < <(find c-tests -name '*.c' -type f -not -path 'c-tests/inline/*' | sort)
for src in "${tests[@]}"; do
	name=${src#c-tests/}
	name=${name%.c}
	case "$name" in *"${CTEST_ONLY:-}"*) ;; *) continue ;; esac
	dir=$OUT/$name
	mkdir -p "$dir"
	read -r -a xcflags <<<"$(directive "$src" cflags)"
	read -r -a xlibs <<<"$(directive "$src" libs)"
	nosys=$(grep -c 'ctest: no-system' "$src")

	# c-tests/v64/: programs of rdma-core 64's API, which only our header has:
	# built against it and run on our library (they check themselves).
	if [[ $name == v64/* ]]; then
		[ -n "${CTEST_SELF_TEST:-}" ] && continue # Debian's 44 header cannot build them
		if build "$name" our-hdr "$src" "$dir/our-hdr" -- -H -DCTEST_OUR_HEADER -I"$OUR_INC" \
			"${xcflags[@]}" "$src" -o "$dir/our-hdr" -L"$LIBDIR" -libverbs "${xlibs[@]}"; then
			runtest "$name" our-hdr "$dir/our-hdr" "$OUR_LIB" "$OURS_IMPL" LD_LIBRARY_PATH="$LIBDIR"
		fi
		continue
	fi

	# deb-hdr: Debian's header, our library
	if build "$name" deb-hdr "$src" "$dir/deb-hdr" -- "${xcflags[@]}" "$src" -o "$dir/deb-hdr" \
		-L"$LIBDIR" -libverbs "${xlibs[@]}"; then
		runtest "$name" deb-hdr "$dir/deb-hdr" "$OUR_LIB" "$OURS_IMPL" LD_LIBRARY_PATH="$LIBDIR"
	fi
	# our-hdr: our header, our library
	ourinc=(-I"$OUR_INC")
	[ "$OUR_INC" = /usr/include ] && ourinc=()
	if build "$name" our-hdr "$src" "$dir/our-hdr" -- -H -DCTEST_OUR_HEADER "${ourinc[@]}" \
		"${xcflags[@]}" "$src" -o "$dir/our-hdr" -L"$LIBDIR" -libverbs "${xlibs[@]}"; then
		runtest "$name" our-hdr "$dir/our-hdr" "$OUR_LIB" "$OURS_IMPL" LD_LIBRARY_PATH="$LIBDIR"
	fi
	# Debian's header, linked against the system library; run with ours preloaded
	# and (the oracle) without.
	if build "$name" system-link "$src" "$dir/sys" -- "${xcflags[@]}" "$src" -o "$dir/sys" \
		-libverbs "${xlibs[@]}"; then
		cp "$dir/sys" "$dir/preload"
		runtest "$name" preload "$dir/preload" "$OUR_LIB" "$OURS_IMPL" LD_PRELOAD="$OUR_LIB"
		if [ "$nosys" -eq 0 ]; then
			runtest "$name" system "$dir/sys" "$SYS_LIB" system
			grep -v '^\[' "$dir/sys.out" >"$dir/sys.cmp"
			for v in deb-hdr our-hdr preload; do
				[ -e "$dir/$v.out" ] || continue
				if [ ! -e "$dir/$v.passed" ]; then
					bad "$name [$v output not compared: the run failed]"
					continue
				fi
				grep -v '^\[' "$dir/$v.out" >"$dir/$v.cmp"
				if d=$(diff -u "$dir/sys.cmp" "$dir/$v.cmp"); then
					ok "$name [$v = system output, $(wc -l <"$dir/sys.cmp") lines]"
				else
					bad "$name [$v differs from system output]" "$d"
				fi
			done
		fi
	fi
done
if [ $((pass + fail)) -eq 0 ]; then
	echo "c-test: no tests found"
	exit 1
fi
echo "c-test: $pass passed, $fail failed"
[ $fail -eq 0 ]
