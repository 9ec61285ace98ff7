//! Finding and loading rdma-core's provider plugins, as rdma-core 44 does:
//! the `driver <name>` lines of the `.driver` files in the config directory,
//! `RDMAV_DRIVERS` (else `IBV_DRIVERS`) first, each name tried as
//! `<name>-rdmavN.so` when it is a path, then `lib<name>-rdmavN.so` in the
//! provider directory, then by the library search path, for every private
//! ABI version N hosted (newest first: whichever the directory holds). A
//! plugin registers itself from its constructor (`verbs_register_driver_N`,
//! which names its version). Loading happens
//! once, the first time a device needs a plugin; a plugin that is missing or
//! fails to load is skipped silently unless `IBV_SHOW_WARNINGS` is set.
#![allow(unsafe_code)]

use crate::driver_abi::HOSTED;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Where `.driver` files live (rdma-core's `IBV_CONFIG_DIR`); `IBV_CONFIG_DIR`
/// in the environment overrides it (for tests).
pub(crate) const CONFIG_DIR: &str = "/etc/libibverbs.d";
/// Where Debian's plugins live (rdma-core's `VERBS_PROVIDER_DIR`);
/// `IBV_PROVIDER_DIR` overrides it.
pub(crate) const PROVIDER_DIR: &str = "/usr/lib/x86_64-linux-gnu/libibverbs";
pub(crate) fn show_warnings() -> bool {
    std::env::var_os("IBV_SHOW_WARNINGS").is_some()
}

fn warn(args: std::fmt::Arguments<'_>) {
    if show_warnings() {
        eprintln!("libibverbs: Warning: {args}");
    }
}

/// The `driver` names of one config file; other directives are warned about.
pub(crate) fn parse_config(text: &str, path: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim_start_matches([' ', '\t']);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split([' ', '\t']);
        let key = fields.next().unwrap_or("");
        let rest = line[key.len()..].trim_start_matches([' ', '\t']);
        if key == "driver" && line.len() > key.len() {
            names.push(rest.split([' ', '\t']).next().unwrap_or("").to_owned());
        } else {
            warn(format_args!(
                "ignoring bad config directive '{key}' in file '{}'.",
                path.display()
            ));
        }
    }
    names
}

/// Every driver name of the config directory, in the order rdma-core loads
/// them (it prepends each name to its list, so the last read goes first).
pub(crate) fn config_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        warn(format_args!(
            "couldn't open config directory '{}'.",
            dir.display()
        ));
        return Vec::new();
    };
    let mut names = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => names.extend(parse_config(&text, &path)),
            Err(_) => warn(format_args!(
                "couldn't read config file {}.",
                path.display()
            )),
        }
    }
    names.reverse();
    names
}

/// The names from RDMAV_DRIVERS (else IBV_DRIVERS), split at ':' and ';';
/// ignored when the process runs set-uid.
pub(crate) fn env_names() -> Vec<String> {
    // SAFETY: getuid/geteuid cannot fail.
    if unsafe { libc::getuid() != libc::geteuid() } {
        return Vec::new();
    }
    let v = std::env::var("RDMAV_DRIVERS").or_else(|_| std::env::var("IBV_DRIVERS"));
    v.map(|s| s.split([':', ';']).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The file names `load_one` tries for a driver name, in order: each
/// hosted version's in the provider directory, then by the search path.
pub(crate) fn candidates(name: &str, provider_dir: &Path) -> Vec<PathBuf> {
    let sfx = || HOSTED.iter().map(|p| p.suffix());
    if name.starts_with('/') {
        return sfx().map(|s| PathBuf::from(format!("{name}{s}"))).collect();
    }
    sfx()
        .map(|s| provider_dir.join(format!("lib{name}{s}")))
        .chain(sfx().map(|s| PathBuf::from(format!("lib{name}{s}"))))
        .collect()
}

fn dlopen(path: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: a NUL-terminated path; the plugin's constructors run now and
    // call verbs_register_driver_N. The handle is kept open for good.
    let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW) };
    if h.is_null() {
        // SAFETY: dlerror returns a C string owned by libc, or NULL.
        let e = unsafe { libc::dlerror() };
        return Err(if e.is_null() {
            "unknown error".into()
        } else {
            // SAFETY: checked non-NULL just above.
            unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
        });
    }
    Ok(())
}

fn load_one(name: &str, provider_dir: &Path) {
    let (mut last, mut found) = (None, None);
    for path in candidates(name, provider_dir) {
        match dlopen(&path) {
            Ok(()) => return,
            // A file that is there but does not load says more than the
            // suffixes that are not there.
            Err(e) if found.is_none() && path.is_file() => found = Some((path, e)),
            Err(e) => last = Some((path, e)),
        }
    }
    if let Some((path, e)) = found.or(last) {
        warn(format_args!(
            "couldn't load driver '{}': {e}",
            path.display()
        ));
    }
}

/// Loads every configured plugin, once per process.
pub(crate) fn load_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        super::log::init_verbs_log();
        let conf = std::env::var_os("IBV_CONFIG_DIR").map_or(CONFIG_DIR.into(), PathBuf::from);
        let dir = std::env::var_os("IBV_PROVIDER_DIR").map_or(PROVIDER_DIR.into(), PathBuf::from);
        let names = env_names().into_iter().chain(config_names(&conf));
        for n in names {
            load_one(&n, &dir);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_lines() {
        let p = Path::new("x.driver");
        assert_eq!(parse_config("driver mlx5\n", p), ["mlx5"]);
        assert_eq!(
            parse_config("  # c\n\n\tdriver \t/opt/p/libfoo  x\n", p),
            ["/opt/p/libfoo"]
        );
        assert!(parse_config("drivers rxe\ndriver\n", p).is_empty());
    }

    #[test]
    fn file_names() {
        let d = Path::new("/usr/lib/x86_64-linux-gnu/libibverbs");
        assert_eq!(
            candidates("rxe", d),
            [
                d.join("librxe-rdmav65.so"),
                d.join("librxe-rdmav34.so"),
                PathBuf::from("librxe-rdmav65.so"),
                PathBuf::from("librxe-rdmav34.so")
            ]
        );
        assert_eq!(
            candidates("/opt/libx", d),
            [
                PathBuf::from("/opt/libx-rdmav65.so"),
                PathBuf::from("/opt/libx-rdmav34.so")
            ]
        );
    }
}
