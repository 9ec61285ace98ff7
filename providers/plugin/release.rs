//! Which rdma-core release a plugin was built from, where one private ABI
//! version spans releases whose calls differ. IBVERBS_PRIVATE_34 covers
//! rdma-core 34..56; from 55 on, `ibv_cmd_reg_dmabuf_mr` takes an eighth
//! argument (the driver's command buffer chain), which a caller built
//! against 44's driver.h does not pass: its slot holds whatever the
//! caller's stack held. 55 also added `ibv_cmd_create_cq_ex2`, so a plugin
//! file that imports it was built against the eight-argument call. A plugin
//! that does not may be a 55..56 one that has no use for either (efa,
//! irdma, bnxt_re pass no chain); its eighth argument is never read.
#![allow(unsafe_code)]

use crate::driver_abi::v34::verbs_device_ops;
use std::ffi::CStr;
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
