#!/usr/bin/env python3
"""Fails on an import circle among the Rust files of src/ and providers/.

Reads `use` declarations and qualified paths (crate::, super::, self::, a
child module or an imported name) as text, resolves each to the file that
defines the name (through `pub use` re-exports, which are not edges
themselves), and reports every strongly connected group of two or more
files. Test code (`#[cfg(test)]` modules and their files) is left out.
Every circle is an error: none is tolerated.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

ITEM = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|const\s+|async\s+|extern\s+\"C\"\s+)*"
    r"(fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+(?:mut\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", re.M)
PATH_ATTR = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*$')
USE = re.compile(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
QPATH = re.compile(r"(?<![A-Za-z0-9_:])((?:[A-Za-z_][A-Za-z0-9_]*::)+[A-Za-z_][A-Za-z0-9_]*)")


LEXEME = re.compile(
    r'//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'',
    re.S,
)


def strip(text):
    """Comments, string and char literals blanked, line structure kept."""
    return LEXEME.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def block_end(text, start):
    """Index after the brace block opening at or after `start`."""
    i = text.find("{", start)
    depth = 0
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def drop_tests(text):
    """Removes `#[cfg(test)]` items; returns the text and the test modules declared."""
    test_mods = set()
    while True:
        m = re.search(r"#\[cfg\((?:test|all\(test[^\]]*|any\(test[^\]]*)\)\]\s*", text)
        if not m:
            return text, test_mods
        rest = text[m.end() :]
        dm = re.match(r"(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", rest)
        if dm:
            test_mods.add(dm.group(1))
            end = m.end() + dm.end()
        else:
            semi, brace = rest.find(";"), rest.find("{")
            if brace >= 0 and (semi < 0 or brace < semi):
                end = block_end(text, m.end())
            else:
                end = m.end() + semi + 1
        text = text[: m.start()] + re.sub(r"[^\n]", " ", text[m.start() : end]) + text[end:]


def expand_use(tree):
    """`a::{b, c::{d as e}}` -> [(["a","b"], "b"), (["a","c","d"], "e")]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def go(prefix, s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        parts.append(cur)
        for p in parts:
            if not p:
                continue
            if "{" in p:
                head, inner = p.split("{", 1)
                go(prefix + [x for x in head.split("::") if x], inner[:-1])
            else:
                alias = None
                if "as" in p and re.search(r"[a-zA-Z0-9_]as[A-Za-z_]", p):
                    p, alias = re.split(r"(?<=[A-Za-z0-9_])as(?=[A-Za-z_])", p, maxsplit=1)
                segs = prefix + [x for x in p.split("::") if x]
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                if segs:
                    out.append((segs, alias or segs[-1]))

    go([], tree)
    return out


class Crate:
    def __init__(self):
        self.files = {}  # module path (tuple) -> file
        self.children = {}  # module path -> set of child names
        self.defs = {}  # module path -> set of names
        self.reexports = {}  # module path -> {name: (abs path)}
        self.globs = {}  # module path -> [abs module paths re-exported with *]
        self.uses = {}  # module path -> [(abs path, alias)] (non-pub)
        self.texts = {}

    def load(self, path, file, is_dir_owner):
        raw = open(file, encoding="utf-8").read()
        text, test_mods = drop_tests(strip(raw))
        self.files[path] = file
        self.texts[path] = text
        self.children[path] = set()
        self.defs[path] = set(m.group(2) for m in ITEM.finditer(text))
        base = os.path.dirname(file) if is_dir_owner else os.path.splitext(file)[0]
        raw_lines = raw.split("\n")
        for m in MOD.finditer(text):
            name = m.group(1)
            if name in test_mods:
                continue
            line_no = text.count("\n", 0, m.start())
            attr = PATH_ATTR.search(raw_lines[line_no - 1]) if line_no > 0 else None
            if attr:
                child = os.path.normpath(os.path.join(os.path.dirname(file) if is_dir_owner else base, attr.group(1)))
                owner = os.path.basename(child) == "mod.rs"
            else:
                child = os.path.join(base, name + ".rs")
                owner = False
                if not os.path.exists(child):
                    child = os.path.join(base, name, "mod.rs")
                    owner = True
            if os.path.exists(child):
                self.children[path].add(name)
                self.load(path + (name,), child, owner)

    def absolute(self, mod, segs):
        """A path as written in module `mod`, made absolute (a list), or None (extern)."""
        if not segs:
            return None
        s0 = segs[0]
        if s0 == "crate":
            return ["crate"] + segs[1:]
        if s0 == "self":
            return list(mod) + segs[1:]
        if s0 == "super":
            m = list(mod)
            while segs and segs[0] == "super":
                m = m[:-1]
                segs = segs[1:]
            return m + segs
        if s0 in self.children.get(mod, ()):
            return list(mod) + segs
        for full, alias in self.uses.get(mod, []) + [(v, k) for k, v in self.reexports.get(mod, {}).items()]:
            if alias == s0:
                return list(full) + segs[1:]
        return None

    def parse_uses(self):
        for mod, text in self.texts.items():
            self.uses[mod], self.reexports[mod], self.globs[mod] = [], {}, []
            for m in USE.finditer(text):
                public = bool(m.group(1))
                for segs, alias in expand_use(m.group(2)):
                    glob = segs[-1] == "*"
                    if glob:
                        segs = segs[:-1]
                    full = self.absolute(mod, segs) if segs[0] in ("crate", "self", "super") or segs[0] in self.children[mod] else None
                    if full is None:
                        continue
                    if glob:
                        if public:
                            self.globs[mod].append(tuple(full))
                        else:
                            self.uses[mod].append((tuple(full), "*"))
                    elif public:
                        self.reexports[mod][alias] = tuple(full)
                    else:
                        self.uses[mod].append((tuple(full), alias))
        # Second pass: uses through imported names (`use super::x; use x::y`).
        for mod in self.texts:
            fixed = []
            for full, alias in self.uses[mod]:
                fixed.append((full, alias))
            self.uses[mod] = fixed

    def resolve(self, full, depth=0):
        """The file defining the item at absolute path `full`, or None."""
        if depth > 8 or not full or full[0] != "crate":
            return None
        mod = ("crate",)
        segs = list(full[1:])
        while segs and segs[0] in self.children.get(mod, ()):
            mod = mod + (segs.pop(0),)
        if not segs:
            return None  # a module itself: its uses are followed instead
        name = segs[0]
        if name in self.defs[mod]:
            return self.files[mod]
        if name in self.reexports[mod]:
            return self.resolve(list(self.reexports[mod][name]) + segs[1:], depth + 1)
        for g in self.globs[mod]:
            r = self.resolve(list(g) + segs, depth + 1)
            if r:
                return r
        return self.files[mod]

    def edges(self):
        out = {}
        for mod, text in self.texts.items():
            me = self.files[mod]
            deps = out.setdefault(me, set())
            targets = []
            body = USE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
            for full, alias in self.uses[mod]:
                if alias == "*":
                    r = self.resolve(list(full) + ["*"])
                    if r:
                        targets.append(r)
                    continue
                targets.append(self.resolve(list(full)))
            for m in QPATH.finditer(body):
                segs = m.group(1).split("::")
                full = self.absolute(mod, segs)
                if full:
                    targets.append(self.resolve(full))
            for t in targets:
                if t and t != me:
                    deps.add(t)
        return out


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    os.chdir(ROOT)
    crate = Crate()
    crate.load(("crate",), "src/lib.rs", True)
    crate.parse_uses()
    graph = crate.edges()
    circles = sccs(graph)
    for files in circles:
        print(f"check-imports: CIRCLE: {' '.join(files)}")
        for f in files:
            for t in sorted(graph[f] & set(files)):
                print(f"  {f} -> {t}")
    print(f"check-imports: {len(graph)} files, {sum(map(len, graph.values()))} imports, "
          f"{len(circles)} circle(s)")
    sys.exit(1 if circles else 0)

if __name__ == "__main__":
    main()
