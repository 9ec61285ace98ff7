#!/usr/bin/env python3
"""Writes the two-host benchmark report (make bench-two-hosts) from a run of
vm/run-two-hosts-bench.sh: RUN/shared/cases/LIB/CASE/ (rc_bench and
ib_write_bw outputs, callgrind files), RUN/results.tsv, RUN/host-info.

    python3 vm/two-hosts-bench.py RUN OUT.md
"""
import collections
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from report import read_kv, table_head, table_row  # noqa: E402

LIBS = ("debian", "ours")
NAME = {"debian": "rdma-core 44", "ours": "ours"}


def cg_dumps(pattern):
    """{dump name: Ir} of callgrind files (the final dump is named 'exit')"""
    out = {}
    for path in sorted(glob.glob(pattern)):
        name, ir = "exit", None
        with open(path, errors="replace") as f:
            for line in f:
                m = re.match(r"desc: Trigger: Client Request: (.*)", line)
                if m:
                    name = m.group(1).strip()
                m = re.match(r"(totals|summary): (\d+)", line)
                if m and (ir is None or m.group(1) == "totals"):
                    ir = int(m.group(2))
        if ir is not None:
            out[name] = ir
    return out


def cg_calls(path):
    """The call edges of a callgrind file: {(caller object, caller function,
    callee object, callee function): [calls, inclusive Ir]}, and its total Ir"""
    ids = {"ob": {}, "fn": {}}
    ob = fn = cob = cfn = call = None
    edges = collections.defaultdict(lambda: [0, 0])
    total = 0

    def name(kind, v):
        # name compression: "(id) name" defines id, "(id)" refers to it
        m = re.match(r"\((\d+)\)(?: (.*))?$", v)
        if not m:
            return v
        if m.group(2) is not None:
            ids[kind][m.group(1)] = m.group(2)
        return ids[kind].get(m.group(1), v)

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line[0].isdigit() or line[0] in "+-*":
                p = line.split()
                ir = int(p[1]) if len(p) > 1 else 0
                if call:
                    e = edges[(ob, fn, call[0], call[1])]
                    e[0] += call[2]
                    e[1] += ir
                    call = None
                else:
                    total += ir
                continue
            k, _, v = line.partition("=")
            if k == "ob":
                ob = name("ob", v)
            elif k == "fn":
                fn = name("fn", v)
                cob = None
            elif k == "cob":
                cob = name("ob", v)
            elif k == "cfn":
                cfn = name("fn", v)
            elif k == "calls":
                call = (cob or ob, cfn, int(v.split()[0]))
                cob = None
    return edges, total


LIB_OBJ = re.compile(r"libibverbs\.so|-rdmav\d+\.so")


def wbw_parts(path):
    """ib_write_bw's client under callgrind, in parts: the Ir of its calls
    into the library (libibverbs, its provider) and their number, the Ir of
    the function that loops on gettimeofday (perftest's clock calibration,
    get_cpu_mhz: it runs for a set time, so its count follows the speed of
    the guest), and the process's total"""
    edges, total = cg_calls(path)
    exe = lambda o: bool(o) and o.endswith("/ib_write_bw")
    lib_ir = lib_calls = 0
    callees = collections.defaultdict(lambda: [0, 0])
    for (co, _, eo, ef), (n, ir) in edges.items():
        if exe(co) and LIB_OBJ.search(eo or ""):
            lib_ir += ir
            lib_calls += n
            callees[(eo, ef)][0] += n
            callees[(eo, ef)][1] += ir
    loops = {(co, cf) for (co, cf, _, ef), (n, _) in edges.items()
             if exe(co) and "gettimeofday" in (ef or "") and n >= 1000}
    cal = sum(ir for (_, _, eo, ef), (_, ir) in edges.items() if (eo, ef) in loops)
    return {"total": total, "lib_ir": lib_ir, "lib_calls": lib_calls, "cal": cal,
            "callees": dict(callees)}


def wbw_completions(n, out):
    """signaled sends of one QP's n messages, as perftest moderates them: every
    cq_mod-th (its "CQ Moderation" line) and the last"""
    cq_mod = 1
    try:
        with open(out) as f:
            m = re.search(r"CQ Moderation\s*:\s*(\d+)", f.read())
            cq_mod = int(m.group(1)) if m else 1
    except OSError:
        pass
    return n // cq_mod + (1 if n % cq_mod else 0)


def rc_rows(path):
    """R and O lines of an rc_bench output"""
    r, o = {}, {}
    try:
        with open(path) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if p[0] == "R" and len(p) >= 3:
                    r[p[1]] = float(p[2])
                elif p[0] == "O" and len(p) >= 5:
                    o[p[1]] = (int(p[2]), int(p[3]), int(p[4]))
    except OSError:
        pass
    return r, o


def msgrate(path):
    """ib_write_bw's MsgRate (Mpps): column 5 of the line after '#bytes'"""
    try:
        with open(path) as f:
            head = False
            for line in f:
                if re.match(r"\s*#bytes", line):
                    head = True
                    continue
                p = line.split()
                if head and p and p[0].isdigit() and len(p) >= 5:
                    return float(p[4])
    except OSError:
        pass
    return None


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def fmt(v, nd=0):
    return "n/a" if v is None else f"{v:,.{nd}f}"


def main():
    run, out = sys.argv[1], sys.argv[2]
    cases = f"{run}/shared/cases"
    host = read_kv(f"{run}/host-info")
    results = []
    try:
        with open(f"{run}/results.tsv") as f:
            results = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    except OSError:
        pass
    passed = sum(1 for r in results if len(r) > 2 and r[2] == "pass")
    failed = [r for r in results if len(r) > 2 and r[2] != "pass"]

    # instructions per round trip (rc_bench under callgrind, both sides)
    ir = {}
    for lib in LIBS:
        d = f"{cases}/{lib}/rc_bench-cg"
        for side in ("client", "server"):
            row = f"rc_roundtrip_{side}"
            dumps = cg_dumps(f"{d}/cg.{side}*")
            _, o = rc_rows(f"{d}/{side}.out")
            need = ("region_overhead", "empty_poll", "toggle_pair")
            if row in dumps and row in o and all(k in dumps for k in need):
                ops, nb, empties = o[row]
                ep = dumps["empty_poll"] / 1000
                tp = dumps["toggle_pair"] / 1000
                ir[(lib, row)] = (dumps[row] - nb * dumps["region_overhead"] - empties * ep
                                  - ops * tp) / ops
                ir[(lib, row + "_empty")] = ep
                ir[(lib, row + "_waits")] = empties / ops
        # ib_write_bw's client at two message counts: per message, the
        # difference; set-up and teardown cancel out
        pts = []
        for d in glob.glob(f"{cases}/{lib}/ib_write_bw-cg*"):
            n = int(re.sub(r".*-cg", "", d))
            f = sorted(glob.glob(f"{d}/cg.client*"))
            if f:
                pts.append((n, wbw_parts(f[0]), wbw_completions(n, f"{d}/client.out")))
        pts.sort(key=lambda p: p[0])
        if len(pts) >= 2 and pts[-1][0] > pts[0][0]:
            (n1, a, c1), (n2, b, c2) = pts[0], pts[-1]
            dn = n2 - n1
            # in the message loop perftest calls the library only for
            # ibv_post_send (once a message) and ibv_poll_cq: the calls beyond
            # the posts are polls, those beyond the completions empty ones
            polls = b["lib_calls"] - a["lib_calls"] - dn
            empties = polls - (c2 - c1)
            post = [k for k, v in b["callees"].items()
                    if v[0] == n2 and a["callees"].get(k, [0])[0] == n1]
            # an empty poll's Ir: the poll function's Ir per call in the run
            # that polled most (then nearly all its polls are empty)
            ep = None
            changed = [k for k, v in b["callees"].items()
                       if k not in post and v[0] != a["callees"].get(k, [0])[0]]
            if changed:
                r = max((a, b), key=lambda x: sum(x["callees"].get(k, [0])[0] for k in changed))
                calls = sum(r["callees"].get(k, [0, 0])[0] for k in changed)
                if calls:
                    ep = sum(r["callees"].get(k, [0, 0])[1] for k in changed) / calls
            if ep is None:
                ep = ir.get((lib, "rc_roundtrip_client_empty"))
            ir[(lib, "wbw_poll_ir")] = ep
            lib_ir = b["lib_ir"] - a["lib_ir"]
            ir[(lib, "wbw")] = (b["total"] - a["total"]) / dn
            if ep is not None:
                ir[(lib, "wbw_lib")] = (lib_ir - empties * ep) / dn
                ir[(lib, "wbw_empty_ir")] = empties * ep / dn
            ir[(lib, "wbw_polls")] = polls / dn
            ir[(lib, "wbw_empties")] = empties / dn
            ir[(lib, "wbw_cal")] = (b["cal"] - a["cal"]) / dn
            ir[(lib, "wbw_own")] = (b["total"] - a["total"] - lib_ir - (b["cal"] - a["cal"])) / dn
            if len(post) == 1:
                ir[(lib, "wbw_post")] = b["callees"][post[0]][1] / n2
            ir[(lib, "wbw_pts")] = (f"{n1}: {a['total']:,} Ir, of which {a['lib_ir']:,} in "
                                    f"{a['lib_calls']:,} calls of the library and {a['cal']:,} "
                                    f"in the calibration; {n2}: {b['total']:,}, {b['lib_ir']:,} "
                                    f"in {b['lib_calls']:,}, {b['cal']:,}")

    # the timed rounds
    rt = {lib: [] for lib in LIBS}
    wbw = {lib: [] for lib in LIBS}
    for lib in LIBS:
        for d in sorted(glob.glob(f"{cases}/{lib}/rc_bench-t*")):
            r, _ = rc_rows(f"{d}/client.out")
            if "rc_roundtrip_client" in r:
                rt[lib].append(r["rc_roundtrip_client"])
        for d in sorted(glob.glob(f"{cases}/{lib}/ib_write_bw-t*")):
            v = msgrate(f"{d}/client.out")
            if v is not None:
                wbw[lib].append(v)

    def med(v):
        return statistics.median(v) if v else None

    L = []
    w = L.append
    w("# Benchmarks across two hosts: our libibverbs vs Debian's rdma-core 44")
    w("")
    w("Written by `make bench-two-hosts` (vm/run-two-hosts-bench.sh, vm/two-hosts-bench.py); "
      "the one-host figures are in [BENCHMARKS.md](BENCHMARKS.md). Two qemu TCG guests, each "
      "with its own kernel and rxe0 on its own virtio-net NIC, joined by qemu UDP sockets on "
      "127.0.0.1 (vm/README.md, \"Two hosts\"); every server on guest a, every client on "
      "guest b; both ends of a pair on the same library, Debian's and ours in the same pair "
      "of boots.")
    w("")
    w(f"- date {host.get('date', '?')}, ours {host.get('ours', '?')}, Debian libibverbs "
      f"{host.get('debian_libibverbs', '?')}, perftest {host.get('perftest', '?')}, "
      f"{host.get('valgrind', '?')}")
    w(f"- host: {host.get('host_cpu', '?')}, {host.get('host_cpus', '?')} cores shared with "
      f"other work (load {host.get('load_before', '?')} before, {host.get('load_after', '?')} "
      f"after); {host.get('qemu', '?')}; guest kernel {host.get('kernel', '?')}, 1 TCG CPU "
      f"and 1 GiB each; VMs up {host.get('vm_seconds', '?')} s")
    w(f"- cases: {passed} passed, {len(failed)} failed"
      + ("" if not failed else " (" + "; ".join(f"{r[0]} {r[1]}: {r[4] if len(r) > 4 else ''}"[:120] for r in failed) + ")"))
    w("")
    w("## Instructions (callgrind, user space): the reproducible figure")
    w("")
    table_head(w, "row", "rdma-core 44", "ours", "ours/rdma-core")

    def both(key, nd=0):
        a, b = ir.get(("debian", key)), ir.get(("ours", key))
        return fmt(a, nd), fmt(b, nd), ratio(b, a)

    for key, label in (("rc_roundtrip_client", "`rc_roundtrip` client (b), Ir per round trip"),
                       ("rc_roundtrip_server", "`rc_roundtrip` server (a), Ir per round trip"),
                       ("wbw_lib", "`ib_write_bw -s 64` client (b), the library's Ir per message"),
                       ("wbw_post", "the same, `ibv_post_send` alone, Ir per call")):
        table_row(w, label, *both(key))
    table_row(w, "an empty `ibv_poll_cq` (rc_bench's wait, client)", *both("rc_roundtrip_client_empty", 1))
    w("")
    w("`rc_roundtrip` (vm/guest/rc_bench.c): the client sends 8 B, waits for the echo, polls "
      "its completion and re-posts the receive; the server the same the other way; sends "
      "signaled every 16th, reaped from the same CQ. Only the timed batches are collected "
      "(`CALLGRIND_TOGGLE_COLLECT`, as bench/ibv_bench.c), and the wait for the peer is not in "
      "the library: it spins on the receive buffer with collection paused, so the figure is the "
      "library's cost of a round trip (post_send, poll_cq, post_recv, a 16th of a send "
      "completion, and the loop's few), not how long the peer took. The pauses, the timed "
      "region's own overhead and the few empty polls left (the data seen before its "
      "completion) are measured in the same process and subtracted. Empty polls per round "
      "trip in this run: "
      + ", ".join(f"{NAME[l]} {ir[(l, 'rc_roundtrip_client_waits')]:.0f} (client)"
                  for l in LIBS if (l, 'rc_roundtrip_client_waits') in ir) + ".")
    w("")
    w("`ib_write_bw` (perftest 4.5, `-s 64 -F`, one QP): the client process under callgrind "
      "at two message counts n1 < n2, each figure (X(n2) - X(n1)) / (n2 - n1), so that the "
      "set-up and teardown cancel out. The library's part is the inclusive Ir of every call "
      "from the `ib_write_bw` executable into libibverbs and its provider (callgrind's call "
      "graph): in the message loop those are `ibv_post_send`, once a message, and "
      "`ibv_poll_cq` (both inline in verbs.h: calls of the provider's functions). The calls "
      "beyond the posts are polls; beyond the signaled completions (one in perftest's "
      "`CQ Moderation`, 100, and the last) they are empty polls, whose Ir is taken out at "
      "the poll function's Ir per call in the run that polled most (nearly all of its "
      "polls empty; rc_bench's figure above, if no poll count changed). The rest "
      "of the process is perftest's: its own loop, and its clock calibration "
      "(`get_cpu_mhz`, the function of the executable that calls gettimeofday in a loop for a "
      "set time, so that its count follows how fast the guest ran, not the library: it does "
      "not cancel out between the two runs).")
    w("")
    table_head(w, "`ib_write_bw` client, per message", "rdma-core 44", "ours", "ours/rdma-core")
    table_row(w, "the library (as above)", *both("wbw_lib"))
    table_row(w, "polls of the CQ (count)", *both("wbw_polls", 3)[:2], "timing")
    table_row(w, "of which empty (count)", *both("wbw_empties", 3)[:2], "timing")
    table_row(w, "their Ir", *both("wbw_empty_ir", 1)[:2], "timing")
    table_row(w, "a poll, Ir per call (in the run with the most polls)", *both("wbw_poll_ir", 1))
    table_row(w, "perftest's own loop, Ir", *both("wbw_own")[:2], "same code")
    table_row(w, "perftest's clock calibration, Ir", *both("wbw_cal")[:2], "timing")
    table_row(w, "the whole process, Ir", *both("wbw")[:2], "not a comparison")
    w("")
    w("Points (the client's Ir): "
      + "; ".join(f"{NAME[l]} {ir[(l, 'wbw_pts')]}" for l in LIBS if (l, 'wbw_pts') in ir) + ".")
    w("")
    w("## Timed (noisy: TCG, two guests on 2 shared cores)")
    w("")
    table_head(w, "row", "rdma-core 44", "ours", "ours/rdma-core")
    a, b = med(rt["debian"]), med(rt["ours"])
    table_row(w, f"`rc_roundtrip`, µs per round trip (median of {len(rt['debian'])}/{len(rt['ours'])} rounds)",
              fmt(a and a / 1000, 1), fmt(b and b / 1000, 1), ratio(b, a))
    a, b = med(wbw["debian"]), med(wbw["ours"])
    table_row(w, f"`ib_write_bw -s 64` MsgRate, Mpps (median of {len(wbw['debian'])}/{len(wbw['ours'])} rounds; higher is better)",
              fmt(a, 4), fmt(b, 4), ratio(b, a))
    w("")
    w("Each round runs both libraries, the order flipping from round to round; the time is "
      "mostly the two emulated kernels' rxe and virtio-net work and the guests' share of the "
      "loaded cores, not the library (the instruction counts above are the comparison; these "
      "moved with the load). Rounds: "
      + "; ".join(f"{NAME[l]} rc_roundtrip " + ", ".join(f"{v / 1000:.1f}" for v in rt[l])
                  + " µs, MsgRate " + ", ".join(f"{v:.4f}" for v in wbw[l]) for l in LIBS) + ".")
    w("")
    w("## Reproduce")
    w("")
    w("    make bench-two-hosts      # boots the two guests once, writes BENCHMARKS-two-hosts.md")
    w("")
    w("Settings (small defaults: under TCG with the cores shared, a timed round trip took "
      "1.5 to 45 ms): `BENCH_ROUNDS` (timed rounds, default 2), `BENCH_RT_N` (round trips per batch, "
      "default 100; 5 batches + 1 warm-up), `BENCH_WBW_N` (ib_write_bw messages, default "
      "1000), `BENCH_CG_RT_N` (round trips per batch under callgrind, default 50), "
      "`BENCH_CG_WBW_N` (the two message counts, default \"100 500\"). Raw outputs: "
      "`vm/out/bench-two-hosts/shared/cases/LIB/CASE/` (callgrind files `cg.client*`, "
      "`cg.server*`); `python3 vm/two-hosts-bench.py vm/out/bench-two-hosts "
      "BENCHMARKS-two-hosts.md` rewrites this file from them.")
    with open(out, "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"bench-two-hosts: wrote {out}: {passed} cases passed, {len(failed)} failed")
    for key in ("rc_roundtrip_client", "rc_roundtrip_server", "wbw_lib", "wbw"):
        a, b = ir.get(("debian", key)), ir.get(("ours", key))
        print(f"bench-two-hosts: {key}: rdma-core {fmt(a)} Ir/op, ours {fmt(b)} Ir/op, ratio {ratio(b, a)}")
    return 0 if not failed and ir else 1


if __name__ == "__main__":
    sys.exit(main())
