#!/usr/bin/python3
"""The ABI/API comparison between a reference libibverbs (Debian's rdma-core 44)
and ours. Run by tests/abi/run.sh, one check per sub-command:

  layout   struct/union/enum/typedef layouts, from DWARF (pyelftools)
  consts   enum constants and object-like macros: values and presence
  api      static inline functions, function-like macros, prototypes
  headers  the headers compile cleanly under the flag sets the reference passes
  symbols  exported name@version set, default/hidden marking, SONAME, stray symbols
  link     libibverbs.so links, libibverbs.pc works

Every sub-command prints its detail lines, then ONE summary line, and exits 1 on
failure. "ref" is the reference side (Debian's headers/library), "ours" ours.
Written to be run with Debian's /usr/bin/python3 (python3-pyelftools).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PREFIXES = ("ibv_", "verbs_", "_ibv_", "_compat_ibv_", "ib_uverbs_", "ib_user_")
# Headers of the public API. arch.h and sa-kern-abi.h are obsolete (#warning) but
# installed by rdma-core, so programs can include them.
HEADERS = ["infiniband/verbs.h", "infiniband/verbs_api.h", "infiniband/ib_user_ioctl_verbs.h",
           "infiniband/tm_types.h", "infiniband/opcode.h", "infiniband/sa.h",
           "infiniband/arch.h", "infiniband/sa-kern-abi.h"]
MAX_DETAIL = int(os.environ.get("ABI_MAX_DETAIL", "60"))


# --------------------------------------------------------------------------- compiling

class Side:
    """One header set: an include directory (plus the system ones)."""

    def __init__(self, name, inc, ref_inc, work, system=False):
        self.name, self.inc, self.ref_inc = name, os.path.abspath(inc), os.path.abspath(ref_inc)
        self.system = system
        self.work = os.path.join(work, name)
        os.makedirs(self.work, exist_ok=True)

    @property
    def guarded(self):
        # Ours must never fall back to the reference headers through the default
        # include path (a header missing from include/ would silently be Debian's).
        return self.inc != self.ref_inc

    def flags(self):
        if self.inc == "/usr/include":
            return []
        return ["-isystem" if self.system else "-I", self.inc]

    def tu(self, extra="", headers=HEADERS):
        return "".join("#include <%s>\n" % h for h in headers) + extra

    def cc(self, src, args, out=None, fname="tu.c", compiler="gcc"):
        """Compiles src; returns (ok, stderr without -H lines, leaked reference headers)."""
        path = os.path.join(self.work, fname)
        with open(path, "w") as f:
            f.write(src)
        cmd = [compiler] + self.flags() + list(args) + [path]
        if out:
            cmd += ["-o", out]
        if self.guarded:
            cmd.append("-H")
        p = subprocess.run(cmd, capture_output=True, text=True)
        err, leaks = [], []
        for line in p.stderr.splitlines():
            m = re.match(r"^\.+ (\S+)$", line)
            if m:
                if os.path.abspath(m.group(1)).startswith(self.ref_inc + "/infiniband/"):
                    leaks.append(m.group(1))
                continue
            if line.startswith("Multiple include guards") or re.match(r"^/\S+$", line):
                continue
            err.append(line)
        return p.returncode == 0 and not leaks, "\n".join(err), sorted(set(leaks))


def die(msg):
    print(msg)
    sys.exit(1)


def leak_msg(side, leaks):
    return "%s: our headers pulled in %d reference header(s) %s%s (missing from %s?)" % (
        side.name, len(leaks), " ".join(leaks[:3]), " ..." if len(leaks) > 3 else "", side.inc)


def error_lines(stderr, fname):
    """Line numbers of fname that gcc reported errors on."""
    bad = set()
    for m in re.finditer(r"^[^:\n]*%s:(\d+):(?:\d+:)? (?:fatal )?error: (.*)$" % re.escape(fname),
                         stderr, re.M):
        bad.add(int(m.group(1)))
    return bad


def compile_dropping(side, header, items, render, args, fname, out=None, rounds=6):
    """Compiles header + one rendered line per item; items whose line has an error
    are dropped and the compile retried. Returns (kept items, dropped items, ok, stderr)."""
    items = list(items)
    dropped = []
    for _ in range(rounds):
        lines = [render(i) for i in items]
        base = header.count("\n") + 1
        ok, err, leaks = side.cc(header + "\n".join(lines) + "\n", args, out=out, fname=fname)
        if leaks:
            die(leak_msg(side, leaks))
        if ok:
            return items, dropped, True, err
        bad = error_lines(err, fname)
        idx = {base + k for k in range(len(items))} & bad
        if not idx:
            return items, dropped, False, err
        dropped += [items[k - base] for k in sorted(idx)]
        items = [it for k, it in enumerate(items) if base + k not in idx]
    return items, dropped, False, err


# --------------------------------------------------------------------------- DWARF

def dwarf_walk(obj):
    from elftools.elf.elffile import ELFFile
    with open(obj, "rb") as f:
        elf = ELFFile(f)
        dw = elf.get_dwarf_info()
        cus = list(dw.iter_CUs())
        assert len(cus) == 1
        cu = cus[0]
        lp = dw.line_program_for_CU(cu)
        files = lp["file_entry"]
        dirs = [b"."] + list(lp["include_directory"])

        def file_of(die):
            a = die.attributes.get("DW_AT_decl_file")
            if not a or a.value == 0 or a.value > len(files):
                return "?"
            fe = files[a.value - 1]
            return os.path.normpath(os.path.join(dirs[fe.dir_index].decode(), fe.name.decode()))

        top = cu.get_top_DIE()
        return [d for d in top.iter_children()], file_of


def name_of(die):
    a = die.attributes.get("DW_AT_name")
    return a.value.decode() if a else None


def target(die):
    return die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None


KW = {"DW_TAG_structure_type": "struct", "DW_TAG_union_type": "union",
      "DW_TAG_enumeration_type": "enum"}


def dims(die):
    out = ""
    for s in die.iter_children():
        if s.tag != "DW_TAG_subrange_type":
            continue
        if "DW_AT_count" in s.attributes:
            out += "[%d]" % s.attributes["DW_AT_count"].value
        elif "DW_AT_upper_bound" in s.attributes:
            ub = s.attributes["DW_AT_upper_bound"].value
            out += "[%d]" % (ub + 1 if isinstance(ub, int) and ub < (1 << 31) else 0)
        else:
            out += "[]"
    return out


def render(die, spelled):
    """A type as a string. spelled=False: the canonical type, typedefs resolved
    (except a typedef naming an anonymous struct/union/enum, e.g. pthread_mutex_t,
    which keeps its name); spelled=True: as written, typedef names kept."""
    if die is None:
        return "void"
    t = die.tag
    if t == "DW_TAG_base_type":
        return name_of(die)
    if t == "DW_TAG_typedef":
        tg = target(die)
        if spelled or (tg is not None and tg.tag in KW and name_of(tg) is None):
            return name_of(die)
        return render(tg, spelled)
    if t == "DW_TAG_pointer_type":
        return render(target(die), spelled) + " *"
    if t == "DW_TAG_const_type":
        return "const " + render(target(die), spelled)
    if t == "DW_TAG_volatile_type":
        return "volatile " + render(target(die), spelled)
    if t == "DW_TAG_restrict_type":
        return render(target(die), spelled) + " restrict"
    if t == "DW_TAG_atomic_type":
        return "_Atomic " + render(target(die), spelled)
    if t == "DW_TAG_array_type":
        return render(target(die), spelled) + dims(die)
    if t in KW:
        return "%s %s" % (KW[t], name_of(die) or "<anon>")
    if t == "DW_TAG_subroutine_type":
        ps = []
        for c in die.iter_children():
            if c.tag == "DW_TAG_formal_parameter":
                ps.append(render(target(c), spelled))
            elif c.tag == "DW_TAG_unspecified_parameters":
                ps.append("...")
        if not ps and die.attributes.get("DW_AT_prototyped"):
            ps = ["void"]
        return "(fn(%s) -> %s)" % (", ".join(ps), render(target(die), spelled))
    return "<%s>" % t


def size_of(die):
    if die is None:
        return 0
    t = die.tag
    if "DW_AT_byte_size" in die.attributes:
        return die.attributes["DW_AT_byte_size"].value
    if t in ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type",
             "DW_TAG_restrict_type", "DW_TAG_atomic_type"):
        return size_of(target(die))
    if t == "DW_TAG_pointer_type":
        return 8
    if t == "DW_TAG_array_type":
        n = size_of(target(die))
        for d in re.findall(r"\[(\d*)\]", dims(die)):
            n *= int(d) if d else 0
        return n
    return 0


def member_lines(die, prefix, base_bits, cpath, out, align_paths):
    """One line per member (recursively into anonymous struct/union members)."""
    anon = 0
    for m in die.iter_children():
        if m.tag != "DW_TAG_member":
            continue
        name = name_of(m)
        a = m.attributes
        off = 0
        if "DW_AT_data_member_location" in a:
            v = a["DW_AT_data_member_location"].value
            off = v * 8 if isinstance(v, int) else 0
        ty = target(m)
        bits = ""
        if "DW_AT_bit_size" in a:
            bs = a["DW_AT_bit_size"].value
            if "DW_AT_data_bit_offset" in a:
                off = a["DW_AT_data_bit_offset"].value
            elif "DW_AT_bit_offset" in a:  # DWARF 2-4, little endian
                storage = a["DW_AT_byte_size"].value if "DW_AT_byte_size" in a else size_of(ty)
                off = off + storage * 8 - a["DW_AT_bit_offset"].value - bs
            bits = " bitfield=%d" % bs
        if name is None:
            label = "<anon%d>" % anon
            anon += 1
            sub_c = cpath
        else:
            label = name
            sub_c = cpath + [name]
        path = prefix + label
        canon = render(ty, False)
        spelled = render(ty, True)
        out.append((path, "off=%d size=%d type=%s%s" % (base_bits + off, size_of(ty) * 8, canon, bits),
                    spelled))
        real = ty
        while real is not None and real.tag in ("DW_TAG_typedef", "DW_TAG_const_type",
                                                 "DW_TAG_volatile_type"):
            if real.tag == "DW_TAG_typedef" and name_of(target(real) or real) is not None:
                break
            real = target(real)
        # Expand embedded (not pointed-to) structs and unions, named or not, so
        # that a nested type ours names (cbindgen cannot emit anonymous ones) is
        # still compared member by member.
        if real is not None and real.tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
            member_lines(real, path + ".", base_bits + off, sub_c, out, align_paths)


def collect(side, args_extra=()):
    """Compiles the TU with full debug info; returns (types, enum constants)."""
    obj = os.path.join(side.work, "layout.o")
    ok, err, leaks = side.cc(side.tu(), ["-c", "-g", "-gdwarf-4", "-fno-eliminate-unused-debug-types",
                                         "-Wno-cpp", "-w"] + list(args_extra), out=obj,
                             fname="layout.c")
    if leaks:
        die(leak_msg(side, leaks))
    if not ok:
        die("%s: the headers do not compile:\n%s" % (side.name, err))
    dies, file_of = dwarf_walk(obj)
    types, consts = {}, {}
    for d in dies:
        nm = name_of(d)
        if d.tag == "DW_TAG_enumeration_type":
            for e in d.iter_children():
                if e.tag == "DW_TAG_enumerator":
                    consts[name_of(e)] = (e.attributes["DW_AT_const_value"].value, file_of(d))
        if nm is None or not nm.startswith(PREFIXES):
            continue
        if d.tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
            key = "%s %s" % (KW[d.tag], nm)
            if d.attributes.get("DW_AT_declaration"):
                types.setdefault(key, {"head": "incomplete", "members": [], "file": file_of(d)})
                continue
            mem = []
            member_lines(d, "", 0, [], mem, [])
            types[key] = {"head": "size=%d" % d.attributes["DW_AT_byte_size"].value,
                          "members": mem, "file": file_of(d), "complete": True}
        elif d.tag == "DW_TAG_enumeration_type":
            key = "enum " + nm
            if d.attributes.get("DW_AT_declaration"):
                continue
            mem = [(name_of(e), "value=%d" % e.attributes["DW_AT_const_value"].value, "")
                   for e in d.iter_children() if e.tag == "DW_TAG_enumerator"]
            types[key] = {"head": "size=%d" % size_of(d), "members": mem, "file": file_of(d),
                          "complete": True}
        elif d.tag == "DW_TAG_typedef":
            types["typedef " + nm] = {"head": "type=%s" % render(target(d), False),
                                      "members": [], "file": file_of(d)}
    return types, consts


def add_alignment(side, types):
    """sizeof/alignof of every complete named struct/union/enum, from a program."""
    names = [k for k, v in types.items() if v.get("complete")]
    src = side.tu("#include <stdio.h>\nint main(void)\n{\n" + "".join(
        '\tprintf("%%s %%zu %%zu\\n", "%s", sizeof(%s), __alignof__(%s));\n' % (n, n, n)
        for n in names) + "\treturn 0;\n}\n")
    exe = os.path.join(side.work, "align")
    ok, err, leaks = side.cc(src, ["-w", "-Wno-cpp"], out=exe, fname="align.c")
    if not ok:
        die("%s: alignment program does not build:\n%s" % (side.name, err))
    res = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    for line in res.splitlines():
        kind, nm, sz, al = line.split()
        types[kind + " " + nm]["head"] += " align=%s" % al


def dump(types, path):
    with open(path, "w") as f:
        for k in sorted(types):
            v = types[k]
            f.write("%s: %s\n" % (k, v["head"]))
            for m in v["members"]:
                f.write("  %s.%s: %s  /* %s */\n" % (k, m[0], m[1], m[2]) if m[2] else
                        "  %s.%s: %s\n" % (k, m[0], m[1]))


def load_dump(path):
    """The inverse of dump(): recorded reference layouts (tests/abi/rdma-core-64/)."""
    types = {}
    cur = None
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if not line.startswith("  "):
            key, head = line.split(": ", 1)
            cur = types[key] = {"head": head, "members": [], "file": "recorded",
                                "complete": head != "incomplete" and not key.startswith("typedef ")}
            continue
        left, rest = line.strip().split(": ", 1)
        kind, tag_path = left.split(" ", 1)
        path = tag_path.split(".", 1)[1]
        spelled = ""
        m = re.match(r"^(.*?)  /\* (.*) \*/$", rest)
        if m:
            rest, spelled = m.group(1), m.group(2)
        cur["members"].append((path, rest, spelled))
    return types


def ref_layout(a, ref):
    if a.ref_data:
        return load_dump(os.path.join(a.ref_data, "layout.txt"))
    rt, _ = collect(ref)
    add_alignment(ref, rt)
    return rt


def anon_equiv(ours_t, ref_t, ref_types):
    """True if ours_t is ref_t but with a name for a type the reference leaves
    anonymous (a name the reference does not have)."""
    def anon(m):
        key = "%s %s" % (m.group(1), m.group(2))
        return key if key in ref_types else "%s <anon>" % m.group(1)
    return re.sub(r"\b(struct|union) (\w+)", anon, ours_t) == ref_t


def compare_type(r, o, rt):
    """Problems of ours (o) against the reference (r): [text], plus counts of
    anonymous-named and differently spelled members (not failures)."""
    problems, named, spelled = [], 0, []
    if o is None:
        return ["missing in ours"], 0, []
    if r["head"] != o["head"]:
        problems.append("%s (ours: %s)" % (r["head"], o["head"]))
    om = {m[0]: m for m in o["members"]}
    rm = {m[0]: m for m in r["members"]}
    for m in r["members"]:
        if m[0] not in om:
            problems.append(".%s: missing (ref: %s)" % (m[0], m[1]))
        elif om[m[0]][1] != m[1] and anon_equiv(om[m[0]][1], m[1], rt):
            named += 1
        elif om[m[0]][1] != m[1]:
            problems.append(".%s: ref %s, ours %s" % (m[0], m[1], om[m[0]][1]))
        elif om[m[0]][2] != m[2]:
            spelled.append("%s spelled '%s' (ref '%s')" % (m[0], om[m[0]][2], m[2]))
    for m in o["members"]:
        if m[0] not in rm:
            problems.append(".%s: extra member in ours (%s)" % (m[0], m[1]))
    if [m[0] for m in r["members"]] != [m[0] for m in o["members"] if m[0] in rm]:
        problems.append("member order differs")
    return problems, named, spelled


# verbs_context "grows up": new members go before its first one, and programs reach
# them by container_of from the ibv_context at its end, so a uniform shift of the
# older members is compatible. Every other type may only grow at its end.
GROWS_DOWN = {"struct verbs_context"}


def reserved_split(path, old, new):
    """A reserved byte array that the newer reference shortened to give its tail to
    new members (e.g. ib_uverbs_query_port_resp_ex.reserved[6] -> [2] + active_speed_ex
    in rdma-core 64): same place, same element type, fewer elements."""
    if not path.split(".")[-1].startswith("reserved"):
        return False
    mo = re.match(r"size=(\d+) type=(.*)\[(\d+)\]$", old)
    mn = re.match(r"size=(\d+) type=(.*)\[(\d+)\]$", new)
    return bool(mo and mn and mo.group(2) == mn.group(2) and int(mn.group(3)) < int(mo.group(3)))


def grown_compatibly(k, old, new):
    """True if new (a newer reference's layout of k) keeps every member of old at
    its place: at the same offset (or, for GROWS_DOWN types, all shifted alike)."""
    if old.get("head") == "incomplete" or k.startswith("typedef "):
        return False
    if k.startswith("enum "):
        nm = dict((m[0], m[1]) for m in new["members"])
        return old["head"] == new["head"] and all(nm.get(m[0]) == m[1] for m in old["members"])
    nm = {m[0]: m[1] for m in new["members"]}
    shifts = set()
    for path, desc, _ in old["members"]:
        if path not in nm:
            return False
        po, pn = re.match(r"off=(\d+) (.*)$", desc), re.match(r"off=(\d+) (.*)$", nm[path])
        if po.group(2) != pn.group(2) and not reserved_split(path, po.group(2), pn.group(2)):
            return False
        shifts.add(int(pn.group(1)) - int(po.group(1)))
    return shifts <= {0} or (k in GROWS_DOWN and len(shifts) == 1)


def cmd_layout(a, ref, ours):
    rt = ref_layout(a, ref)
    ot, _ = collect(ours)
    add_alignment(ours, ot)
    sup = load_dump(os.path.join(a.superset, "layout.txt")) if a.superset else {}
    dump(rt, os.path.join(a.work, "layout.ref.txt"))
    dump(ot, os.path.join(a.work, "layout.ours.txt"))
    differ, spelled, shown, named = 0, 0, 0, 0
    grown = []
    kinds = {}
    for k in sorted(rt):
        kinds[k.split()[0]] = kinds.get(k.split()[0], 0) + 1
        problems, n, sp = compare_type(rt[k], ot.get(k), rt)
        if problems and k in sup and not compare_type(sup[k], ot.get(k), sup)[0] \
                and grown_compatibly(k, rt[k], sup[k]):
            # ours is the newer reference's layout, which keeps this one's members in place
            grown.append(k)
            continue
        named += n
        spelled += len(sp)
        if os.environ.get("ABI_SHOW_SPELLING"):
            for x in sp:
                print("  note: %s.%s, same type" % (k, x))
        if problems:
            differ += 1
            for p in problems:
                if shown < MAX_DETAIL:
                    print("  layout FAIL %s%s%s" % (k, "" if p.startswith(".") else ": ", p))
                shown += 1
    if grown:
        print("  layout note: %d type(s) have the layout of %s, grown compatibly (every member of "
              "the reference's at its place): %s" % (len(grown), a.superset, " ".join(grown)))
    if shown > MAX_DETAIL:
        print("  ... %d more problem lines (full dumps: %s/layout.{ref,ours}.txt)" %
              (shown - MAX_DETAIL, a.work))
    extra = sorted(set(ot) - set(rt))
    if extra:
        print("  layout note: %d type(s) only in ours (allowed): %s" % (len(extra), " ".join(extra[:20])))
    outside = sorted(k for k, v in ot.items() if k in rt and not v["file"].startswith(ours.inc + "/")
                     and ours.guarded)
    if outside:
        print("  layout note: %d compared type(s) of ours come from outside %s (system headers, "
              "e.g. rdma/*.h of linux-libc-dev)" % (len(outside), ours.inc))
    if named:
        print("  layout note: %d member(s) of anonymous struct/union type in the reference have a "
              "named type of ours (not a failure: members compared one by one)" % named)
    if spelled:
        print("  layout note: %d member(s) spelled with a different typedef of the same type "
              "(not a failure; ABI_SHOW_SPELLING=1 lists them)" % spelled)
    print("layout: %d types compared (%s), %d differ" % (
        len(rt), ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())), differ))
    return differ == 0


# --------------------------------------------------------------------------- macros

def macros(side):
    """Macros defined by the headers of the API (infiniband/*.h and the kernel's
    rdma/*.h they include): {name: (params or None, body, file)}."""
    ok, err, leaks = side.cc(side.tu(), ["-E", "-dD", "-Wno-cpp"], out=os.path.join(side.work, "dD.i"),
                             fname="dD.c")
    if leaks:
        die(leak_msg(side, leaks))
    if not ok:
        die("%s: preprocessing failed:\n%s" % (side.name, err))
    res, cur = {}, "?"
    for line in open(os.path.join(side.work, "dD.i")):
        m = re.match(r'^# \d+ "([^"]*)"', line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^#define (\w+)(\([^)]*\))? ?(.*)$", line.rstrip("\n"))
        if m and ("/infiniband/" in cur or "/rdma/" in cur):
            res[m.group(1)] = (m.group(2), m.group(3).strip(), cur)
        m = re.match(r"^#undef (\w+)", line)
        if m:
            res.pop(m.group(1), None)
    return res


def is_guard(name, body):
    return body == "" and re.search(r"_H_?$", name) is not None


TYPE_OF = ('#define __ABI_T(x) _Generic((x), int: "int", unsigned int: "unsigned int", '
           'long: "long", unsigned long: "unsigned long", long long: "long long", '
           'unsigned long long: "unsigned long long", default: "other")\n')


def ref_consts(a, ref):
    """The reference's constants: (integer names in order, number of enum constants,
    {name: "value type"}, other object-like macros {name: body})."""
    if a.ref_data:
        names, n_enum, vals, others = [], 0, {}, {}
        for line in open(os.path.join(a.ref_data, "consts.txt")):
            f = line.rstrip("\n").split(" ", 2)
            if not f[0] or f[0].startswith("#"):
                continue
            if f[0] == "define":
                others[f[1]] = f[2] if len(f) > 2 else ""
                continue
            names.append(f[1])
            n_enum += f[0] == "enum"
            vals[f[1]] = f[2]
        return names, n_enum, vals, others
    rmac = macros(ref)
    _, rcon = collect(ref)
    # enum constants from the API's headers
    enum_names = sorted(n for n, (v, f) in rcon.items() if "/infiniband/" in f or "/rdma/" in f)
    objlike = sorted(n for n, (p, b, f) in rmac.items() if p is None and not is_guard(n, b))
    # which object-like macros have an integer value (per the reference)
    hdr = ref.tu()
    ints, nonint, _, _ = compile_dropping(ref, hdr, objlike,
                                          lambda n: "enum { __abi_int_%s = (%s) };" % (n, n),
                                          ["-fsyntax-only", "-w", "-Wno-cpp"], "classify.c")
    names = enum_names + [n for n in ints if n not in rcon]
    vals = const_values(ref, names)
    if len(vals) != len(names):
        die("consts: the reference itself lacks %s" % sorted(set(names) - set(vals)))
    others = {n: rmac[n][1] for n in objlike if n not in ints}
    return names, len(enum_names), vals, others


def const_values(side, names):
    """{name: "value type"} of the integer constants, from a program built with side's headers."""
    items = list(names)
    for _ in range(6):
        src = side.tu("#include <stdio.h>\n" + TYPE_OF + "int main(void)\n{\n")
        base = src.count("\n") + 1
        body = "".join('\tprintf("%%s %%llu %%s\\n", "%s", (unsigned long long)(%s), __ABI_T(%s));\n'
                       % (n, n, n) for n in items)
        exe = os.path.join(side.work, "consts")
        ok, err, leaks = side.cc(src + body + "\treturn 0;\n}\n", ["-std=gnu11", "-w", "-Wno-cpp"],
                                 out=exe, fname="consts.c")
        if leaks:
            die(leak_msg(side, leaks))
        if ok:
            break
        bad = error_lines(err, "consts.c")
        drop = {base + k for k in range(len(items))} & bad
        if not drop:
            die("%s: constants program fails to build:\n%s" % (side.name, err))
        items = [n for k, n in enumerate(items) if base + k not in drop]
    else:
        die("%s: constants program fails to build:\n%s" % (side.name, err))
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return {l.split(" ", 1)[0]: l.split(" ", 1)[1] for l in out.splitlines()}


def cmd_consts(a, ref, ours):
    names, n_enum, r, rothers = ref_consts(a, ref)
    omac = macros(ours)
    o = const_values(ours, names)
    missing = [n for n in names if n in r and n not in o]
    vdiff = [n for n in names if n in r and n in o and r[n].split()[0] != o[n].split()[0]]
    tdiff = [n for n in names if n in r and n in o and n not in vdiff and r[n] != o[n]]
    shown = 0
    for n in missing:
        if shown < MAX_DETAIL:
            print("  consts FAIL %s: missing in ours (ref %s)" % (n, r[n]))
        shown += 1
    for n in vdiff:
        if shown < MAX_DETAIL:
            print("  consts FAIL %s: ref %s, ours %s" % (n, r[n], o[n]))
        shown += 1
    for n in tdiff:
        if shown < MAX_DETAIL:
            print("  consts FAIL %s: type differs: ref %s, ours %s" % (n, r[n], o[n]))
        shown += 1
    if shown > MAX_DETAIL:
        print("  ... %d more" % (shown - MAX_DETAIL))
    # Non-integer object-like macros (type aliases, pointers, attributes): must exist.
    others = sorted(rothers)
    absent = [n for n in others if n not in omac]
    for n in absent:
        print("  consts FAIL macro %s: not defined by ours (ref: #define %s %s)" % (n, n, rothers[n]))
    textdiff = [n for n in others if n in omac and
                re.sub(r"\s+", "", omac[n][1]) != re.sub(r"\s+", "", rothers[n])]
    for n in textdiff:
        print("  consts note: macro %s expands to '%s' in ours, '%s' in ref (not compared)" %
              (n, omac[n][1], rothers[n]))
    fails = len(missing) + len(vdiff) + len(tdiff) + len(absent)
    print("consts: %d integer constants compared (%d enum constants, %d macros), %d missing, "
          "%d value differ, %d type differ; %d other object-like macros, %d missing" % (
              len(names), n_enum, len(names) - n_enum, len(missing), len(vdiff),
              len(tdiff), len(others), len(absent)))
    return fails == 0


# --------------------------------------------------------------------------- functions

def aux_protos(side):
    """Function declarations and static inline definitions of the API headers,
    from gcc -aux-info: {name: (storage, declaration text, file)}."""
    aux = os.path.join(side.work, "aux.txt")
    ok, err, leaks = side.cc(side.tu(), ["-fsyntax-only", "-w", "-Wno-cpp", "-aux-info", aux],
                             fname="aux.c")
    if leaks:
        die(leak_msg(side, leaks))
    if not ok:
        die("%s: headers do not compile:\n%s" % (side.name, err))
    res = {}
    for line in open(aux):
        m = re.match(r"^/\* (\S+):\d+:\w+ \*/ (extern |static )?(.*?);(?: /\*.*)?$", line.rstrip("\n"))
        if not m or "/infiniband/" not in m.group(1):
            continue
        decl = m.group(3)
        n = re.search(r"(\w+) \(", decl)
        if not n:
            continue
        res[n.group(1)] = ((m.group(2) or "extern ").strip(), decl, m.group(1))
    return res


def ref_api(a, ref):
    """The reference's function-like macros [names] and functions {name: (storage, decl)}."""
    if a.ref_data:
        fmacros, rp = [], {}
        for line in open(os.path.join(a.ref_data, "api.txt")):
            f = line.rstrip("\n").split(" ", 2)
            if not f[0] or f[0].startswith("#"):
                continue
            if f[0] == "macro":
                fmacros.append(f[1])
            else:
                rp[f[1]] = ("static" if f[0] == "inline" else "extern", f[2], "recorded")
        return sorted(fmacros), rp
    rp = aux_protos(ref)
    rmac = macros(ref)
    return sorted(n for n, (p, b, f) in rmac.items() if p is not None and "/infiniband/" in f), rp


def cmd_api(a, ref, ours):
    fmacros, rp = ref_api(a, ref)
    op = aux_protos(ours)
    inlines = sorted(n for n, v in rp.items() if v[0] == "static")
    externs = sorted(n for n, v in rp.items() if v[0] == "extern")

    def check(side):
        lines, what = [], []
        for n in fmacros:
            lines += ["#ifndef %s" % n, "#error function-like macro %s is missing" % n, "#endif"]
            what += [None, ("macro", n), None]
        for n in inlines + externs:
            storage, decl, _ = rp[n]
            td = decl.replace(n + " (", "__abi_ft_%s (" % n, 1)
            lines.append("typedef %s; static __abi_ft_%s *const __abi_fp_%s __attribute__((used)) = &%s;"
                         % (td, n, n, n))
            what.append(("inline" if storage == "static" else "function", n))
        hdr = side.tu()
        base = hdr.count("\n") + 1
        ok, err, leaks = side.cc(hdr + "\n".join(lines) + "\n",
                                 ["-std=gnu11", "-c", "-Wall", "-Werror", "-Wno-cpp", "-Wno-deprecated-declarations", "-o", "/dev/null"],
                                 fname="api.c")
        if leaks:
            die(leak_msg(side, leaks))
        bad = error_lines(err, "api.c")
        failed = [what[l - base] for l in sorted(bad) if 0 <= l - base < len(what) and what[l - base]]
        stray = [l for l in bad if not (0 <= l - base < len(what))]
        return ok, failed, stray, err

    ok_r, failed_r, stray_r, err_r = (True, [], [], "") if a.ref_data else check(ref)
    if not ok_r:
        die("api: the generated test does not pass against the reference itself:\n%s" % err_r)
    ok_o, failed, stray, err = check(ours)
    shown = 0
    for kind, n in failed:
        if shown < MAX_DETAIL:
            why = "not defined" if kind == "macro" else (
                "missing or incompatible type; ref: %s%s" % (
                    rp[n][1], "" if n not in op else "; ours: " + op[n][1]))
            print("  api FAIL %s %s: %s" % (kind, n, why))
        shown += 1
    if not ok_o and not failed:
        print("  api FAIL ours: the test does not compile:\n%s" % "\n".join(err.splitlines()[:30]))
    fk = lambda k: sum(1 for x in failed if x[0] == k)
    extra_inl = sorted(n for n, v in op.items() if v[0] == "static" and n not in rp)
    if extra_inl:
        print("  api note: static inline functions only in ours: %s" % " ".join(extra_inl))
    print("api: %d inline functions (%d fail), %d function-like macros (%d missing), "
          "%d exported-function prototypes (%d missing/incompatible)" % (
              len(inlines), fk("inline"), len(fmacros), fk("macro"), len(externs), fk("function")))
    return ok_o and not failed


# --------------------------------------------------------------------------- headers

CONFIGS = [
    ("gcc", "-std=c99 -Wall -Wextra -Werror -pedantic"),
    ("gcc", "-std=c99 -Wall -Wextra -Werror"),
    ("gcc", "-std=c11 -Wall -Wextra -Werror -pedantic"),
    ("gcc", "-std=c11 -Wall -Wextra -Werror"),
    ("gcc", "-std=gnu89 -Wall -Werror"),
    ("gcc", "-std=gnu99 -Wall -Wextra -Werror"),
    ("gcc", "-std=gnu11 -Wall -Wextra -Werror -O2 -fkeep-inline-functions"),
    ("gcc", "-std=gnu17 -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes "
            "-Wshadow -Wpointer-arith -Wcast-qual -Wundef -Wredundant-decls"),
    ("gcc", "-std=gnu17 -Wall -Wextra -Werror -Wconversion -Wsign-conversion"),
    ("g++", "-Wall -Werror"),
    ("g++", "-std=c++11 -Wall -Wextra -Werror"),
    ("g++", "-std=c++17 -Wall -Wextra -Werror -pedantic"),
    ("g++", "-std=c++20 -Wall -Wextra -Werror -O2 -fkeep-inline-functions"),
]
MAIN_HEADERS = ["infiniband/verbs.h", "infiniband/sa.h", "infiniband/tm_types.h",
                "infiniband/opcode.h"]


def cmd_headers(a, ref, ours):
    """Warnings in system headers are suppressed, so each flag set is tried twice:
    as system headers (Debian's in /usr/include, ours with -isystem) and as
    ordinary headers (a copy of Debian's, ours, both with -I). Ours must pass
    wherever Debian's do."""
    import shutil
    copy = os.path.join(a.work, "refcopy")
    shutil.copytree(os.path.join(ref.inc, "infiniband"), os.path.join(copy, "infiniband"),
                    dirs_exist_ok=True)
    modes = [("system", ref, Side("ours-sys", ours.inc, ref.inc, a.work, system=True)),
             ("-I", Side("ref-I", copy, ref.inc, a.work), ours)]
    cases = [(c, f, MAIN_HEADERS, "verbs.h+sa.h+tm_types.h+opcode.h") for c, f in CONFIGS]
    for h in HEADERS:
        cases.append(("gcc", "-std=gnu11 -Wall -Wextra -Werror -Wno-cpp", [h], h + " alone"))
        cases.append(("g++", "-Wall -Wextra -Werror -Wno-cpp", [h], h + " alone"))
    held, failed, bonus = 0, 0, 0
    for mode, r, o in modes:
        for comp, flags, hs, label in cases:
            ext = ".cc" if comp == "g++" else ".c"
            src = lambda s: s.tu("int __abi_dummy;\n", hs)
            args = flags.split() + ["-c", "-o", "/dev/null"]
            ok_r, _, _ = r.cc(src(r), args, fname="hdr" + ext, compiler=comp)
            ok_o, err, leaks = o.cc(src(o), args, fname="hdr" + ext, compiler=comp)
            what = "%s %s [%s; as %s headers]" % (comp, flags, label, mode)
            if ok_r:
                held += 1
                if not ok_o:
                    failed += 1
                    print("  headers FAIL " + what)
                    if failed <= 5:
                        if leaks:
                            print("    " + leak_msg(o, leaks))
                        for l in err.splitlines()[:12]:
                            print("    " + l)
                else:
                    print("  headers ok   " + what)
            else:
                print("  headers n/a  %s: Debian's fail too; ours %s" % (what, "pass" if ok_o else "fail"))
                bonus += ok_o
    print("headers: %d compiler configurations Debian's headers pass, %d pass with ours, %d fail "
          "(%d more that only ours pass)" % (held, held - failed, failed, bonus))
    return failed == 0


# --------------------------------------------------------------------------- symbols

def dynsyms(lib):
    out = subprocess.run(["objdump", "-T", lib], capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]{16} (.{7}) (\S+)\s+[0-9a-f]+\s+(.*)$", line)
        if not m:
            continue
        flags, sect, rest = m.groups()
        if sect == "*UND*":
            continue
        f = rest.split()
        if len(f) == 1:
            ver, name = "", f[0]
        else:
            ver, name = f[0], f[-1]
        hidden = ver.startswith("(")
        syms.append((name, ver.strip("()"), hidden, flags))
    return syms


PUBLIC = re.compile(r"^IBVERBS_1\.\d+$")


def soname(lib):
    out = subprocess.run(["objdump", "-p", lib], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^\s*SONAME\s+(\S+)", out, re.M)
    return m.group(1) if m else None


def verdefs(lib):
    """Version definitions: [(node, parent or '')], without the file's own entry."""
    out = subprocess.run(["objdump", "-p", lib], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^Version definitions:\n(.*?)(?:\n\n|\Z)", out, re.S | re.M)
    res = []
    for line in (m.group(1).splitlines() if m else []):
        f = line.split()
        if line.startswith("\t") and res:
            res[-1] = (res[-1][0], f[0])
        elif len(f) == 4 and f[1] != "0x01":
            res.append((f[3], ""))
    return res


def read_exports(path):
    """An exports list (NODE name [non-default marker]): [(name, node, non-default)]."""
    res = []
    for line in open(path):
        f = line.split()
        if f and not f[0].startswith("#"):
            res.append((f[1], f[0], len(f) > 2))
    return res


def cmd_symbols(a, ref, ours):
    listed_syms = read_exports(a.exports)
    # Private-node names a public header declares (ibv_query_gid_type in 44,
    # ibv_wr_opcode_str in 64) are listed and compared like public ones.
    private = {(n, v) for n, v, _ in listed_syms if not PUBLIC.match(v)}
    private_nodes = {v for _, v in private}
    # The node-name symbols (NODE@@NODE, *ABS*) that older linkers emit are not exports.
    if a.ref_data:
        rs = [(n, v, h, "") for n, v, h in listed_syms]
        rv = []
        for n, v, h in listed_syms:
            if (v, "") not in rv:
                rv.append((v, ""))
    else:
        rs = [s for s in dynsyms(a.ref_lib) if s[0] != s[1]]
        rv = [v for v in verdefs(a.ref_lib) if PUBLIC.match(v[0]) or v[0] in private_nodes]
    sup = read_exports(a.superset_exports) if a.superset_exports else []
    sup_nodes = {v for _, v, _ in sup}
    sup_keys = {"%s%s%s" % (n, "@" if h else "@@", v) for n, v, h in sup}
    os_ = [s for s in dynsyms(a.our_lib) if s[0] != s[1]]
    ov = verdefs(a.our_lib)
    # Node names must match; the parent link of a Verdef is informational (no
    # loader reads it) and lld, the linker Rust uses, does not write it.
    ov_names = [o[0] for o in ov]
    for v in rv:
        if v in ov or v[0] not in ov_names:
            continue
        print("  symbols note: version node %s has parent %r in ours, %r in Debian's (not a failure)" % (
            v[0], dict(ov)[v[0]], v[1]))
    nodes_bad = [v for v in rv if v[0] not in ov_names]
    for v in nodes_bad:
        print("  symbols FAIL version node %s%s not defined by ours (ours: %s)" % (
            v[0], " (inheriting %s)" % v[1] if v[1] else "",
            [o for o in ov if o[0] == v[0]] or "absent"))
    extra_nodes = [o for o in ov if PUBLIC.match(o[0]) and o[0] not in [v[0] for v in rv]]
    newer = [o for o in extra_nodes if o[0] in sup_nodes]
    if newer:
        print("  symbols note: %d newer version node(s) of %s (allowed): %s" % (
            len(newer), a.superset_exports, " ".join(o[0] for o in newer)))
    extra_nodes = [o for o in extra_nodes if o[0] not in sup_nodes]
    for v in extra_nodes:
        print("  symbols FAIL extra public version node %s" % v[0])
    pub = lambda name, ver: PUBLIC.match(ver) or (name, ver) in private
    key = lambda s: "%s%s%s" % (s[0], "@" if s[2] else "@@", s[1])
    want = sorted(key(s) for s in rs if pub(s[0], s[1]))
    have = sorted(key(s) for s in os_ if pub(s[0], s[1]))
    ok = True
    # The committed reference list must agree with the reference library.
    listed = ["%s%s%s" % (n, "@" if h else "@@", v) for n, v, h in listed_syms]
    if sorted(listed) != want:
        ok = False
        print("  symbols FAIL %s disagrees with %s: only in list %s; only in library %s" % (
            a.exports, a.ref_lib, sorted(set(listed) - set(want)), sorted(set(want) - set(listed))))
    hw = set(have)
    base = lambda k: k.replace("@@", "@")
    hbase = {base(k): k for k in have}
    missing, marking = [], []
    for k in want:
        if k in hw:
            continue
        if base(k) in hbase:
            marking.append((k, hbase[base(k)]))
        else:
            missing.append(k)
    extra = [k for k in have if k not in set(want) and base(k) not in {base(w) for w in want}]
    newer = [k for k in extra if k in sup_keys]
    if newer:
        print("  symbols note: %d newer export(s) of %s (allowed): %s" % (
            len(newer), a.superset_exports, " ".join(newer)))
    extra = [k for k in extra if k not in sup_keys]
    for k in missing[:MAX_DETAIL]:
        print("  symbols FAIL missing %s" % k)
    if len(missing) > MAX_DETAIL:
        print("  ... %d more missing" % (len(missing) - MAX_DETAIL))
    # One library serves several private ABI versions, and a name has one
    # default version: in a private node, @ for the reference's @@ is fine.
    priv_ok = [(k, h) for k, h in marking if "@@" in k and not PUBLIC.match(k.split("@@")[1])]
    for k, h in priv_ok:
        print("  symbols note: %s exported as %s (private node, non-default: allowed)" % (k, h))
    marking = [m for m in marking if m not in priv_ok]
    for k, h in marking:
        print("  symbols FAIL %s exported as %s (default/hidden marking differs)" % (k, h))
    for k in extra:
        print("  symbols FAIL extra public symbol %s" % k)
    other = sorted(key(s) for s in os_ if not pub(s[0], s[1]) and s[1] not in ("Base", "")
                   and s[0] != s[1])
    if other:
        print("  symbols note: %d symbol(s) in other version nodes (allowed): %s" % (
            len(other), " ".join(other[:40]) + (" ..." if len(other) > 40 else "")))
    nodes = {s[1] for s in os_}
    stray = sorted(s[0] for s in os_ if s[1] in ("Base", "") and s[0] not in nodes)
    for n in stray[:MAX_DETAIL]:
        print("  symbols FAIL stray unversioned (Base) export: %s" % n)
    if len(stray) > MAX_DETAIL:
        print("  ... %d more stray exports" % (len(stray) - MAX_DETAIL))
    so = soname(a.our_lib)
    if so != "libibverbs.so.1":
        print("  symbols FAIL SONAME is %s, want libibverbs.so.1" % so)
    ok = ok and not missing and not marking and not extra and not stray and so == "libibverbs.so.1" \
        and not nodes_bad and not extra_nodes
    print("symbols: %d of %d present, %d missing, %d extra, %d wrongly marked @/@@; "
          "version nodes %d of %d alike, %d extra; %d stray Base exports; SONAME %s" % (
              len(want) - len(missing) - len(marking), len(want), len(missing), len(extra),
              len(marking), len(rv) - len(nodes_bad), len(rv), len(extra_nodes), len(stray), so))
    return ok


# --------------------------------------------------------------------------- record

def cmd_record(a, ref, ours):
    """Writes the reference headers' facts to a.record (layout.txt, consts.txt, api.txt),
    for a reference CI cannot have installed (rdma-core 64: tests/abi/record-64.sh)."""
    os.makedirs(a.record, exist_ok=True)
    head = "# %s\n" % a.note if a.note else ""
    types = ref_layout(a, ref)
    path = os.path.join(a.record, "layout.txt")
    dump(types, path)
    body = open(path).read()
    with open(path, "w") as f:
        f.write(head + body)
    names, n_enum, vals, others = ref_consts(a, ref)
    with open(os.path.join(a.record, "consts.txt"), "w") as f:
        f.write(head)
        for k, n in enumerate(names):
            f.write("%s %s %s\n" % ("enum" if k < n_enum else "int", n, vals[n]))
        for n in sorted(others):
            f.write("define %s %s\n" % (n, others[n]))
    fmacros, rp = ref_api(a, ref)
    with open(os.path.join(a.record, "api.txt"), "w") as f:
        f.write(head)
        for n in fmacros:
            f.write("macro %s\n" % n)
        for n in sorted(rp):
            f.write("%s %s %s\n" % ("inline" if rp[n][0] == "static" else "function", n, rp[n][1]))
    print("record: %d types, %d integer constants, %d other macros, %d function-like macros, "
          "%d functions written to %s" % (len(types), len(names), len(others), len(fmacros),
                                           len(rp), a.record))
    return True


# --------------------------------------------------------------------------- link

def cmd_link(a, ref, ours):
    libdir = os.path.dirname(os.path.abspath(a.our_lib))
    fails = []
    so = os.path.join(libdir, "libibverbs.so")
    prog = ("#include <infiniband/verbs.h>\nint main(void)\n{\n\tint n;\n"
            "\tstruct ibv_device **l = ibv_get_device_list(&n);\n\tif (l)\n"
            "\t\tibv_free_device_list(l);\n\treturn 0;\n}\n")
    exe = os.path.join(ours.work, "linked")
    if not os.path.exists(so):
        fails.append("%s does not exist" % so)
    else:
        src = os.path.join(ours.work, "link.c")
        with open(src, "w") as f:
            f.write(prog)
        p = subprocess.run(["gcc"] + ours.flags() + [src, "-o", exe, "-L" + libdir, "-libverbs",
                                                    "-Wl,-rpath," + libdir], capture_output=True, text=True)
        ok, err = p.returncode == 0, p.stderr
        if not ok:
            fails.append("linking a program with -L%s -libverbs fails:\n    %s" % (
                libdir, "\n    ".join(err.splitlines()[:10])))
        else:
            p = subprocess.run(["ldd", exe], capture_output=True, text=True)
            want = os.path.realpath(a.our_lib)
            got = [l.split("=>")[1].split()[0] for l in p.stdout.splitlines()
                   if "libibverbs.so.1 =>" in l]
            if not got or os.path.realpath(got[0]) != want:
                fails.append("linked program resolves libibverbs.so.1 to %s, want %s" % (got, want))
    pcdir = os.path.join(libdir, "pkgconfig")
    env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
    p = subprocess.run(["pkg-config", "--libs", "--cflags", "libibverbs"], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0 or "-libverbs" not in p.stdout:
        fails.append("pkg-config --libs --cflags libibverbs (PKG_CONFIG_PATH=%s): rc %d, '%s' %s" % (
            pcdir, p.returncode, p.stdout.strip(), p.stderr.strip()))
    else:
        print("  link: pkg-config --libs --cflags libibverbs -> %s" % p.stdout.strip())
        # the .pc must describe a usable library: point its dirs at the build tree
        q = subprocess.run(["pkg-config", "--libs", "--cflags", "--define-variable=libdir=" + libdir,
                            "--define-variable=includedir=" + ours.inc, "libibverbs"],
                           capture_output=True, text=True, env=env)
        src = os.path.join(ours.work, "link.c")
        r = subprocess.run(["gcc", src, "-o", exe + "-pc"] + q.stdout.split(), capture_output=True,
                           text=True)
        if r.returncode != 0:
            fails.append("building with the flags of the .pc (libdir/includedir redefined) fails:\n    %s"
                         % "\n    ".join(r.stderr.splitlines()[:10]))
        mv = subprocess.run(["pkg-config", "--modversion", "libibverbs"], capture_output=True,
                            text=True, env=env).stdout.strip()
        rv = subprocess.run(["pkg-config", "--modversion", "libibverbs"], capture_output=True,
                            text=True, env=dict(os.environ, PKG_CONFIG_PATH="",
                                                PKG_CONFIG_LIBDIR="/usr/lib/x86_64-linux-gnu/pkgconfig")
                            ).stdout.strip()
        if mv != rv:
            print("  link note: libibverbs.pc Version is '%s', Debian's is '%s' (not a failure)" % (mv, rv))
    for f in fails:
        print("  link FAIL " + f)
    print("link: %d of 3 checks pass (libibverbs.so links and resolves, .pc usable)" % (3 - min(3, len(fails))))
    return not fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check", choices=["layout", "consts", "api", "headers", "symbols", "link",
                                      "record"])
    ap.add_argument("--ref-inc", default="/usr/include")
    ap.add_argument("--our-inc", required=True)
    ap.add_argument("--ref-lib", default="/usr/lib/x86_64-linux-gnu/libibverbs.so.1")
    ap.add_argument("--our-lib")
    ap.add_argument("--exports")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ref-data", help="recorded reference facts (instead of --ref-inc/--ref-lib)")
    ap.add_argument("--superset", help="recorded facts of a newer reference whose additions "
                    "ours may carry (layout.txt; --superset-exports for symbols)")
    ap.add_argument("--superset-exports")
    ap.add_argument("--record", help="record: the directory to write")
    ap.add_argument("--note", help="record: a provenance line for the head of each file")
    a = ap.parse_args()
    a.work = os.path.join(os.path.abspath(a.work), a.check)
    os.makedirs(a.work, exist_ok=True)
    # The reference as system headers, like Debian's in /usr/include (diagnostics then
    # point at the expansion in our test program, which the checks rely on).
    ref = Side("ref", a.ref_inc, a.ref_inc, a.work, system=True)
    ours = Side("ours", a.our_inc, a.ref_inc, a.work)
    if a.check in ("layout", "consts", "api", "headers") and ours.guarded and not os.path.exists(os.path.join(ours.inc, "infiniband", "verbs.h")):
        print("  %s FAIL %s/infiniband/verbs.h does not exist" % (a.check, ours.inc))
    ok = globals()["cmd_" + a.check](a, ref, ours)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
