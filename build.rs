//! Writes the version script and the `.symver` directives from `src/exports.txt`,
//! and gives the library its SONAME. Rust has no symbol versioning of its own.
use std::{env, fmt::Write as _, fs, path::PathBuf};

struct Export {
    node: String,
    name: String,
    /// Rust path of the implementation of an older, non-default version.
    compat: Option<String>,
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let table = manifest.join("src/exports.txt");
    println!("cargo:rerun-if-changed={}", table.display());
    println!("cargo:rerun-if-changed=build.rs");

    let exports: Vec<Export> = fs::read_to_string(&table)
        .expect("src/exports.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut f = l.split_whitespace();
            Export {
                node: f.next().unwrap().to_owned(),
                name: f.next().expect("symbol name").to_owned(),
                compat: f.next().map(str::to_owned),
            }
        })
        .collect();

    // Nodes in first-seen order; each public node inherits the one before it.
    // A node lists its older-ABI names too: lld keeps `name@NODE` global only
    // if the node's script says so.
    let mut nodes: Vec<&str> = Vec::new();
    for e in &exports {
        if !nodes.contains(&e.node.as_str()) {
            nodes.push(&e.node);
        }
    }
    let mut script = String::new();
    let mut prev: Option<&str> = None;
    for (i, node) in nodes.iter().enumerate() {
        writeln!(script, "{node} {{").unwrap();
        let names: Vec<&str> = exports
            .iter()
            .filter(|e| e.node == *node)
            .map(|e| e.name.as_str())
            .collect();
        if !names.is_empty() {
            writeln!(script, "  global:").unwrap();
            for n in names {
                writeln!(script, "    {n};").unwrap();
            }
        }
        if i == 0 {
            writeln!(script, "  local: *;").unwrap();
        }
        let private = node.contains("PRIVATE");
        match prev {
            Some(p) if !private => writeln!(script, "}} {p};").unwrap(),
            _ => writeln!(script, "}};").unwrap(),
        }
        if !private {
            prev = Some(node);
        }
    }
    let map = out.join("libibverbs.map");
    fs::write(&map, script).unwrap();

    // `.symver NAME, NAME@@NODE` pins the default version in the object itself, so it
    // wins over the anonymous version script rustc passes for a cdylib.
    let mut asm = String::from("core::arch::global_asm!(\n");
    let mut operands = String::new();
    // A name listed again without a path (a later private ABI version that
    // kept its signature) is a non-default alias of the same function.
    let mut defaulted = std::collections::HashSet::new();
    for (i, e) in exports.iter().enumerate() {
        match &e.compat {
            // Versioned by its own C file (see compile_c).
            Some(c) if c == "=c" => {}
            None if !defaulted.insert(e.name.as_str()) => writeln!(
                asm,
                "    \".globl __ibv_compat_{i}\", \".type __ibv_compat_{i},@function\", \".set __ibv_compat_{i}, {0}\", \".symver __ibv_compat_{i}, {0}@{1}\",",
                e.name, e.node
            )
            .unwrap(),
            None => writeln!(asm, "    \".symver {0}, {0}@@{1}\",", e.name, e.node).unwrap(),
            Some(path) => {
                let alias = format!("__ibv_compat_{i}");
                writeln!(
                    asm,
                    "    \".globl {alias}\", \".type {alias},@function\", \".set {alias}, {{c{i}}}\", \".symver {alias}, {}@{}\",",
                    e.name, e.node
                )
                .unwrap();
                writeln!(operands, "    c{i} = sym crate::{path},").unwrap();
            }
        }
    }
    asm.push_str(&operands);
    asm.push_str(");\n");
    if exports.is_empty() {
        asm.clear();
    }
    fs::write(out.join("symver.rs"), asm).unwrap();

    if !exports.is_empty() {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
            map.display()
        );
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libibverbs.so.1");
    compile_c(&manifest, &out);
}

/// What stable Rust cannot express, in a few lines of C built with the
/// system compiler (`$CC`, else `cc`) into a static archive linked whole
/// into the library: the C-variadic entry points (`__verbs_log`), and the
/// hosted-call frame as an initial-exec thread-local.
fn compile_c(manifest: &std::path::Path, out: &std::path::Path) {
    use std::process::Command;
    println!("cargo:rerun-if-env-changed=CC");
    let lib = out.join("libibverbs_c.a");
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut objs = Vec::new();
    for (src, name) in [
        ("src/verbs/driver_log.c", "driver_log.o"),
        ("providers/plugin/call_slot.c", "call_slot.o"),
    ] {
        let src = manifest.join(src);
        println!("cargo:rerun-if-changed={}", src.display());
        let obj = out.join(name);
        let ok = Command::new(&cc)
            .args(["-c", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&obj)
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "{cc} failed on {}", src.display());
        objs.push(obj);
    }
    let _ = fs::remove_file(&lib);
    let ar = env::var("AR").unwrap_or_else(|_| "ar".into());
    let ok = Command::new(&ar)
        .arg("crs")
        .arg(&lib)
        .args(&objs)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "{ar} failed on {}", lib.display());
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static:+whole-archive=ibverbs_c");
}
