# Shared by vm/guest/tests.sh (one host) and vm/guest/two-hosts.sh: which
# library a process must load, the proof that it did, and the output checks.
# Sourced; needs REPO and OURS.

# (CTEST_* tell the project's C tests which library they must find loaded.)
libenv() {
  case $1 in
    debian) echo "IBV_TEST_LIB=debian CTEST_IMPL=system CTEST_EXPECT_LIB=/usr/lib/x86_64-linux-gnu/libibverbs.so.1" ;;
    ours) echo "LD_LIBRARY_PATH=$REPO/build/lib CTEST_IMPL=ours CTEST_EXPECT_LIB=$OURS" ;;
    preload) echo "LD_PRELOAD=$OURS CTEST_IMPL=ours CTEST_EXPECT_LIB=$OURS" ;;
    memcheck) echo "LD_LIBRARY_PATH=$REPO/build/lib CTEST_IMPL=ours CTEST_EXPECT_LIB=$OURS" ;;
    installed) echo "CTEST_IMPL=ours CTEST_EXPECT_LIB=/usr/lib/x86_64-linux-gnu/libibverbs.so.1" ;;
    plugin) echo "LD_LIBRARY_PATH=$REPO/build/lib IBV_PROVIDERS=plugin CTEST_IMPL=ours CTEST_EXPECT_LIB=$OURS" ;;
  esac
}

# proof LIB DIR TAG: every process of TAG initialised the intended library.
proof() {
  local lib=$1 d=$2 tag=$3 f want got ok=1 n=0
  case $lib in
    debian|installed) want='/usr/lib/x86_64-linux-gnu/libibverbs.so.1|/lib/x86_64-linux-gnu/libibverbs.so.1' ;;
    *) want=$OURS ;;
  esac
  for f in "$d/ld.$tag".*; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    got=$(grep -m1 -oE 'calling init: [^ ]*libibverbs\.so\.1' "$f" | sed 's/calling init: //')
    # valgrind's own launcher process loads no libibverbs.
    if [ -z "$got" ] && [ "$lib" = memcheck ]; then n=$((n - 1)); continue; fi
    # programs that are not linked with libibverbs (none here) would show nothing
    if [ -z "$got" ]; then ok=0; echo "no libibverbs.so.1 initialised (pid ${f##*.})"; continue; fi
    echo "$got" | grep -qxE "$want" || { ok=0; echo "loaded $got, not the $lib library"; }
  done
  [ $n -gt 0 ] || { ok=0; echo "no LD_DEBUG trace"; }
  [ $ok = 1 ]
}

# First line of stderr that says why (for the report).
why() {
  { grep -m1 -iE 'error|not found|cannot|couldn|failed|fatal|unable' "$1" || grep -m1 -v '^\s*$' "$1"; } 2>/dev/null | cut -c1-200
}

# rping -v prints each ping's data ("ping data: rdma-ping-N: " then letters
# cycling A..z from a start letter that advances per ping, 64 bytes with the
# NUL); -V makes the client compare what came back over RDMA READ/WRITE.
# Both sides must print every ping, with exactly the expected bytes.
rping_data() { # DIR (count 10, size 64)
  local f pre
  for f in client server; do
    pre="ping data: "; [ $f = server ] && pre="server ping data: "
    awk -v pre="$pre" -v n=10 -v size=64 -v who=$f '
      BEGIN { for (c = 65; c <= 122; c++) chr[c] = sprintf("%c", c) }
      index($0, pre) == 1 { got[k++] = substr($0, length(pre) + 1) }
      END {
        if (k != n) { print who ": " k " pings printed, not " n; exit 1 }
        for (i = 0; i < n; i++) {
          s = "rdma-ping-" i ": "; c = 65 + i
          while (length(s) < size - 1) { s = s chr[c]; c++; if (c > 122) c = 65 }
          if (got[i] != s) { print who ": ping " i " data differs: " got[i]; exit 1 }
        }
      }' "$1/$f.out" || return 1
  done
  grep -q 'data mismatch' "$1/client.err" "$1/server.err" && { echo "data mismatch reported"; return 1; }
  return 0
}
