#!/usr/bin/env bash
# Undefined behaviour checks of the modules with `unsafe` (make ub-test):
# the unit tests of the rxe ring, mapping, lock and WQE encoders, the
# object registry, the uverbs pod/ioctl layer and netlink, run
#   1. under Miri (nightly; rings are heap blocks, see providers/rxe/mmap.rs);
#      tests that make foreign calls (mmap, memfd, sockets) are
#      #[cfg_attr(miri, ignore)] and run in 2 and 3;
#   2. under AddressSanitizer (nightly -Zsanitizer=address; std is not
#      rebuilt, so it is our code that is instrumented);
#   3. under valgrind memcheck (the release test binary): 0 errors, no
#      definite leaks.
# UB_ONLY=miri|asan|memcheck runs one.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
FILTERS=(providers::rxe:: object:: uverbs:: netlink::)
# netlink under Miri: its `unsafe` is the socket (foreign calls Miri cannot run)
# and its parsers are pure safe code the fuzzer covers; Miri takes over 15 min
# on its tests here.
MIRI_FILTERS=(providers::rxe:: object:: uverbs::)
host=$(rustc -vV | sed -n 's/^host: //p')
want() { [ -z "${UB_ONLY:-}" ] || [ "$UB_ONLY" = "$1" ]; }

summary() { grep -E '^test result' | tail -1; }

if want miri; then
  echo "ub-test: Miri"
  out=$(cargo +nightly miri test --lib -- "${MIRI_FILTERS[@]}" 2>&1) || { echo "$out" | tail -80; echo "ub-test: Miri FAILED"; exit 1; }
  echo "ub-test: Miri: $(echo "$out" | summary)"
fi

if want asan; then
  echo "ub-test: AddressSanitizer"
  out=$(RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
        ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
        cargo +nightly test --lib --target "$host" --target-dir target/asan -- "${FILTERS[@]}" 2>&1) \
    || { echo "$out" | tail -80; echo "ub-test: ASan FAILED"; exit 1; }
  echo "ub-test: ASan: $(echo "$out" | summary)"
fi

if want memcheck; then
  echo "ub-test: valgrind memcheck"
  bin=$(cargo test --release --lib --no-run --message-format=json 2>/dev/null \
        | python3 -c 'import sys, json
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "ibverbs":
        print(m["executable"])' | tail -1)
  log=$(mktemp)
  # --test-threads=1: one thread at a time keeps the run short under valgrind.
  if ! valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
       --log-file="$log" "$bin" --test-threads=1 "${FILTERS[@]}" >"$log.out" 2>&1; then
    cat "$log" "$log.out" | tail -80; echo "ub-test: memcheck FAILED"; exit 1
  fi
  echo "ub-test: memcheck: $(summary <"$log.out"), $(grep -c . "$log" || true) lines of valgrind output (errors: 0)"
  rm -f "$log" "$log.out"
fi
echo "ub-test: ok"
