//! Which rdma-core release a plugin was built from, where one private ABI
//! version spans releases whose calls differ. IBVERBS_PRIVATE_34 covers
//! rdma-core 34..56; from 55 on, `ibv_cmd_reg_dmabuf_mr` takes an eighth
//! argument (the driver's command buffer chain), which a caller built
//! against 44's driver.h does not pass: its slot holds whatever the
//! caller's stack held. 55 also added `ibv_cmd_create_cq_ex2`, so a plugin
//! file that imports it was built against the eight-argument call. A plugin
//! that does not may be a 55..56 one that has no use for either (efa,
//! irdma, bnxt_re pass no chain); its eighth argument is never read.
//!
//! 45 also appended `wr_flush` to `ibv_qp_ex`, moving `verbs_qp`'s
//! `comp_mask` and `xrcd`, and 50 appended `active_speed_ex` to
//! `ibv_port_attr` (which `ibv_cmd_query_port` fills), with the same
//! imports: that release is read from the
//! `libibverbs.so.1.<abi>.<release>.<patch>` its package installed in the
//! plugin directory's parent. Where none is found, 44's layout is taken
//! (the host's own, as before).
#![allow(unsafe_code)]

use crate::driver_abi::v34::verbs_device_ops;
use crate::driver_abi::{Pabi, V34, V34_45, V34_50};
use std::ffi::CStr;
use std::path::Path;
use std::sync::Mutex;

/// The symbol rdma-core 55 added beside the eight-argument
/// `ibv_cmd_reg_dmabuf_mr`.
const MARK_55: &str = "ibv_cmd_create_cq_ex2";

/// Answers per plugin (its ops table's address), once each.
static SEEN: Mutex<Vec<(usize, bool)>> = Mutex::new(Vec::new());

/// Whether the plugin owning `ops` calls `ibv_cmd_reg_dmabuf_mr` with the
/// driver chain (rdma-core 55 and later).
pub(crate) fn passes_dmabuf_driver(ops: *const verbs_device_ops) -> bool {
    let key = ops as usize;
    if let Some(&(_, v)) = SEEN
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|e| e.0 == key)
    {
        return v;
    }
    let v = file_of(ops).is_some_and(|path| {
        std::fs::read(&path).is_ok_and(|elf| imports(&elf, MARK_55) == Some(true))
    });
    SEEN.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((key, v));
    v
}

/// The v34 row of the plugin owning `ops`: 45..49's or 50..56's layout
/// when the release that installed it is one of those, else 44's.
pub(crate) fn v34_row(ops: *const verbs_device_ops) -> &'static Pabi {
    row_of_release(file_of(ops).and_then(|f| installed_release(&f)))
}

fn row_of_release(release: Option<u32>) -> &'static Pabi {
    match release {
        Some(r) if r >= 50 => &V34_50,
        Some(r) if r >= 45 => &V34_45,
        _ => &V34,
    }
}

/// The newest rdma-core release whose `libibverbs.so.1.A.R.P` is in the
/// parent of `plugin`'s directory (lib/ for lib/libibverbs/libX-rdmav34.so).
fn installed_release(plugin: &Path) -> Option<u32> {
    let lib = plugin.parent()?.parent()?;
    std::fs::read_dir(lib)
        .ok()?
        .filter_map(|e| release_of_name(e.ok()?.file_name().to_str()?))
        .max()
}

/// R of `libibverbs.so.1.A.R.P`.
fn release_of_name(name: &str) -> Option<u32> {
    let mut f = name.strip_prefix("libibverbs.so.1.")?.split('.');
    let (a, r, p) = (f.next()?, f.next()?, f.next()?);
    if f.next().is_some() || a.parse::<u32>().is_err() || p.parse::<u32>().is_err() {
        return None;
    }
    r.parse().ok()
}

/// The file of the loaded object that holds `addr`.
fn file_of<T>(addr: *const T) -> Option<std::path::PathBuf> {
    if addr.is_null() {
        return None;
    }
    // SAFETY: dladdr only reads the loader's tables; `info` is ours.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::dladdr(addr.cast(), &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr's NUL-terminated name, owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    let name: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(name.to_bytes());
    Some(name.into())
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?)).ok()
}

/// Whether a little-endian ELF64 file's dynamic symbol table has `name`
/// undefined (imported); None if the file is not one we can read.
pub(crate) fn imports(elf: &[u8], name: &str) -> Option<bool> {
    const SHT_DYNSYM: u32 = 11;
    const SYM_SIZE: usize = 24;
    if elf.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(elf, 0x28)?, u16_at(elf, 0x3a)?, u16_at(elf, 0x3c)?);
    let section = |i: usize| shoff.checked_add(i.checked_mul(usize::from(shentsize))?);
    for i in 0..usize::from(shnum) {
        let s = section(i)?;
        if u32_at(elf, s + 4)? != SHT_DYNSYM {
            continue;
        }
        let (off, size) = (u64_at(elf, s + 0x18)?, u64_at(elf, s + 0x20)?);
        let strtab = section(usize::try_from(u32_at(elf, s + 0x28)?).ok()?)?;
        let str_off = u64_at(elf, strtab + 0x18)?;
        let syms = elf.get(off..off.checked_add(size)?)?;
        for sym in syms.chunks_exact(SYM_SIZE) {
            let st_name = usize::try_from(u32_at(sym, 0)?).ok()?;
            let shndx = u16_at(sym, 6)?;
            let start = str_off.checked_add(st_name)?;
            let tail = elf.get(start..)?;
            let n = &tail[..tail.iter().position(|&c| c == 0)?];
            if n == name.as_bytes() && shndx == 0 {
                return Some(true);
            }
        }
        return Some(false);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MLX5_44: &str = "/usr/lib/x86_64-linux-gnu/libmlx5.so.1";

    #[test]
    fn release_names_of_libibverbs() {
        assert_eq!(release_of_name("libibverbs.so.1.14.56.1"), Some(56));
        assert_eq!(release_of_name("libibverbs.so.1.14.44.0"), Some(44));
        assert_eq!(release_of_name("libibverbs.so.1.15.65.0"), Some(65));
        for n in [
            "libibverbs.so.1",
            "libibverbs.so.1.14.56",
            "libibverbs.so.1.14.x.1",
        ] {
            assert_eq!(release_of_name(n), None, "{n}");
        }
        assert_eq!(release_of_name("libibverbs.so.1.14.56.1.bak"), None);
    }

    #[test]
    fn v34_layout_by_installing_release() {
        assert_eq!(row_of_release(None).qp_ex_size, 352);
        assert_eq!(row_of_release(Some(44)).qp_ex_size, 352);
        assert_eq!(row_of_release(Some(45)).qp_ex_size, 360);
        assert_eq!(row_of_release(Some(56)).qp_ex_size, 360);
        assert!(!row_of_release(Some(44)).moves_qp_mask());
        assert!(row_of_release(Some(56)).moves_qp_mask());
        // 50 appended active_speed_ex to ibv_port_attr.
        for (r, n) in [
            (None, 52),
            (Some(44), 52),
            (Some(49), 52),
            (Some(50), 56),
            (Some(56), 56),
        ] {
            assert_eq!(row_of_release(r).port_attr_size, n, "{r:?}");
        }
    }

    #[test]
    fn installed_release_is_read_beside_the_plugin_directory() {
        let d = std::env::temp_dir().join(format!("qplayout-{}", std::process::id()));
        let plugins = d.join("libibverbs");
        std::fs::create_dir_all(&plugins).unwrap();
        let plugin = plugins.join("librxe-rdmav34.so");
        assert_eq!(installed_release(&plugin), None);
        std::fs::write(d.join("libibverbs.so.1.14.44.0"), b"").unwrap();
        assert_eq!(installed_release(&plugin), Some(44));
        std::fs::write(d.join("libibverbs.so.1.14.56.1"), b"").unwrap();
        assert_eq!(installed_release(&plugin), Some(56));
        std::fs::remove_dir_all(&d).unwrap();
        // Debian 12's own rxe plugin: 44's layout.
        let rxe = Path::new("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so");
        if rxe.exists() {
            assert_eq!(installed_release(rxe), Some(44));
        }
        // Debian 13's (rdma-core 56.1), where its release root was built.
        let rxe = Path::new(
            "/var/cache/libibverbs-rs/roots/trixie/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so",
        );
        if rxe.exists() {
            assert_eq!(installed_release(rxe), Some(56));
        }
    }

    #[test]
    fn a_plugin_file_names_what_it_imports() {
        // Debian 12's mlx5 (rdma-core 44): the seven-argument caller.
        let Ok(elf) = std::fs::read(MLX5_44) else {
            panic!("{MLX5_44} missing: scripts/install-deps.sh installs ibverbs-providers");
        };
        assert_eq!(imports(&elf, "ibv_cmd_create_cq_ex"), Some(true));
        assert_eq!(imports(&elf, MARK_55), Some(false));
        // Defined there, not imported.
        assert_eq!(imports(&elf, "mlx5dv_open_device"), Some(false));
        assert_eq!(imports(b"not an elf file", "x"), None);
        assert_eq!(imports(&elf[..64], "x"), None);
    }

    #[test]
    fn an_unknown_caller_gets_no_driver_chain() {
        assert!(!passes_dmabuf_driver(std::ptr::null()));
        // Our own table, not a plugin's file: nothing marks it 55.
        static OPS: u8 = 0;
        assert!(!passes_dmabuf_driver((&raw const OPS).cast()));
    }
}
