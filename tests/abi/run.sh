#!/usr/bin/env bash
# The permanent ABI tests (`make abi-test`): our libibverbs against Debian's
# rdma-core 44 (the reference), then against rdma-core 64's recorded public facts
# (tests/abi/rdma-core-64/, written by tests/abi/record-64.sh: layout64, consts64,
# api64, symbols64; see tests/abi/README.md). Six checks against 44 and four against 64, each printing detail lines and one
# summary line; the script exits non-zero if any fails. The work is done by
# abi_check.py (needs Debian's python3-pyelftools, hence /usr/bin/python3):
#
#   layout   every struct/union/enum (tag ibv_*, verbs_*, _ibv_*, _compat_ibv_*,
#            ib_uverbs_*, ib_user_*) of the headers, member by member, from DWARF
#   consts   every enum constant and integer object-like macro: value and C type;
#            every other object-like macro: defined
#   api      every static inline function and exported-function prototype of
#            Debian's headers exists in ours with the same type; every
#            function-like macro is defined
#   headers  the headers compile warning-free under every gcc/g++ flag set
#            Debian's headers pass (c99 -pedantic, c++, -O2, ...)
#   symbols  name@version / name@@version set, version nodes, SONAME, no stray exports
#   link     libibverbs.so links a program, libibverbs.pc works with pkg-config
#
# Overrides (environment), used to self-test the checks (Debian vs Debian):
#   ABI_OUR_INC   our include dir            (default: include)
#   ABI_OUR_LIB   our library                (default: build/lib/libibverbs.so.1)
#   ABI_REF_INC   reference include dir      (default: /usr/include)
#   ABI_REF_LIB   reference library          (default: Debian's libibverbs.so.1)
#   ABI_WORK      scratch dir                (default: build/abi-test)
#   ABI_CHECKS    which checks to run        (default: all ten)
# e.g. the self-test: tests/abi/run.sh --self-test
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PY=/usr/bin/python3
REF_LIB=${ABI_REF_LIB:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}

if [ "${1:-}" = "--self-test" ]; then
	# Debian against itself: Debian's headers, and a copy of Debian's library
	# (so that the path differs) with its own .pc; every check must pass.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/lib/pkgconfig"
	cp "$(readlink -f "$REF_LIB")" "$tmp/lib/libibverbs.so.1"
	ln -s libibverbs.so.1 "$tmp/lib/libibverbs.so"
	sed "s|^libdir=.*|libdir=$tmp/lib|" /usr/lib/x86_64-linux-gnu/pkgconfig/libibverbs.pc \
		>"$tmp/lib/pkgconfig/libibverbs.pc"
	ABI_CHECKS=${ABI_CHECKS:-layout consts api headers symbols link} \
		ABI_OUR_INC=/usr/include ABI_OUR_LIB=$tmp/lib/libibverbs.so.1 ABI_WORK=$tmp/work "$0"
	exit $?
fi

OUR_INC=${ABI_OUR_INC:-$ROOT/include}
OUR_LIB=${ABI_OUR_LIB:-$ROOT/build/lib/libibverbs.so.1}
REF_INC=${ABI_REF_INC:-/usr/include}
WORK=${ABI_WORK:-$ROOT/build/abi-test}
CHECKS=${ABI_CHECKS:-layout consts api headers symbols link layout64 consts64 api64 symbols64 symbols56 layout65 consts65 api65 symbols65}

for need in "$PY -c 'import elftools'" "gcc --version" "g++ --version" "objdump --version" \
	"pkg-config --version" "test -e $REF_INC/infiniband/verbs.h" "test -e $REF_LIB"; do
	if ! eval "$need" >/dev/null 2>&1; then
		echo "abi-test: missing prerequisite ($need); run scripts/install-deps.sh"
		exit 2
	fi
done
if [ ! -e "$OUR_LIB" ]; then
	echo "abi-test: $OUR_LIB does not exist; run make"
	exit 2
fi

rm -rf "$WORK"
mkdir -p "$WORK"
summary=()
failed=0
R64=$ROOT/tests/abi/rdma-core-64
R56=$ROOT/tests/abi/rdma-core-56.1
R65=$ROOT/tests/abi/rdma-core-65
for check in $CHECKS; do
	echo "== $check"
	name=${check%6[45]}; name=${name%56}
	case $check in
	symbols56)	# every export of Debian 13's rdma-core 56.1, its private ones
		# included (tests/abi/record-56.sh); what 64 and 65 added is allowed
		out=$("$PY" "$ROOT/tests/abi/abi_check.py" symbols --ref-data "$R56.exports" --our-inc "$OUR_INC" \
			--our-lib "$OUR_LIB" --exports "$R56.exports" --superset-exports "$R65.exports" \
			--work "$WORK/56" 2>&1) ;;
	*64)	# against rdma-core 64's recorded facts (tests/abi/record-64.sh); what
		# 65 added is allowed
		out=$("$PY" "$ROOT/tests/abi/abi_check.py" "$name" --ref-data "$R64" --our-inc "$OUR_INC" \
			--ref-inc "$REF_INC" --our-lib "$OUR_LIB" --exports "$R64.exports" \
			--superset "$R65" --superset-exports "$R65.exports" \
			--work "$WORK/64" 2>&1) ;;
	symbols65)	# every export of sid's libibverbs.so.1: rdma-core 65's public
		# nodes and its whole private node (tests/abi/private65/exports.txt),
		# so every provider plugin and direct-verbs library of 65 resolves
		awk '!/^#/ && NF && !seen[$1" "$2]++' "$R65.exports" "$ROOT/tests/abi/private65/exports.txt" \
			>"$WORK/65-all.exports"
		out=$("$PY" "$ROOT/tests/abi/abi_check.py" symbols --ref-data "$R65" --our-inc "$OUR_INC" \
			--ref-inc "$REF_INC" --our-lib "$OUR_LIB" --exports "$WORK/65-all.exports" \
			--work "$WORK/65" 2>&1) ;;
	*65)	# against rdma-core 65's recorded facts (tests/abi/record-65.sh)
		out=$("$PY" "$ROOT/tests/abi/abi_check.py" "$name" --ref-data "$R65" --our-inc "$OUR_INC" \
			--ref-inc "$REF_INC" --our-lib "$OUR_LIB" --exports "$R65.exports" \
			--work "$WORK/65" 2>&1) ;;
	*)	# against Debian's 44; what 65 (a superset of 64) added and grew
		# compatibly is allowed
		out=$("$PY" "$ROOT/tests/abi/abi_check.py" "$check" --ref-inc "$REF_INC" --our-inc "$OUR_INC" \
			--ref-lib "$REF_LIB" --our-lib "$OUR_LIB" --exports "$ROOT/tests/abi/rdma-core-44.exports" \
			--superset "$R65" --superset-exports "$R65.exports" \
			--work "$WORK" 2>&1) ;;
	esac
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep "^$name: " | tail -n1)
	[ -n "$line" ] || line=$(printf '%s\n' "$out" | tail -n1)
	if [ $rc -eq 0 ]; then
		summary+=("PASS $check: ${line#"$name: "}")
	else
		summary+=("FAIL $check: ${line#"$name: "}")
		failed=$((failed + 1))
	fi
done
echo "== summary (scratch files in $WORK)"
printf '%s\n' "${summary[@]}"
total=$(echo $CHECKS | wc -w)
echo "abi-test: $((total - failed)) of $total checks passed"
[ $failed -eq 0 ]
