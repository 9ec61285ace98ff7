//! Which plugin drives a device: rdma-core 44's rules over a plugin's
//! `verbs_match_ent` table. The kernel driver id (netlink) first, then the
//! device name (`rdma_device:N<name>` against modalias patterns, for legacy
//! name matches), then the parent device's modalias (shell-style patterns;
//! PCI rows become `pci:v<VENDOR>d<DEVICE>sv*`). A plugin's own
//! `match_device` has the last word, and the kernel ABI must be in its range.
#![allow(unsafe_code)]

use crate::driver_abi::v34::{verbs_device_ops, verbs_match_ent, verbs_sysfs_dev};
use crate::driver_abi::{
    VERBS_MATCH_DRIVER_ID, VERBS_MATCH_MODALIAS, VERBS_MATCH_PCI, VERBS_MATCH_SENTINEL,
    VSYSFS_READ_MODALIAS,
};
use std::ffi::{CStr, CString};

/// fnmatch(3) with no flags, as rdma-core matches modaliases.
pub(crate) fn fnmatch(pattern: &CStr, value: &str) -> bool {
    let Ok(v) = CString::new(value) else {
        return false;
    };
    // SAFETY: two NUL-terminated strings.
    unsafe { libc::fnmatch(pattern.as_ptr(), v.as_ptr(), 0) == 0 }
}

/// One table row against a modalias-style value.
pub(crate) fn match_modalias(ent: &verbs_match_ent, value: &str) -> bool {
    match ent.kind {
        VERBS_MATCH_MODALIAS => {
            let p = ent.u as usize as *const std::ffi::c_char;
            // SAFETY: a MODALIAS row's `u` is a C string of the plugin's
            // static data (or NULL, refused here).
            !p.is_null() && fnmatch(unsafe { CStr::from_ptr(p) }, value)
        }
        VERBS_MATCH_PCI => {
            let p = format!("pci:v{:08X}d{:08X}sv*", ent.vendor, ent.device);
            CString::new(p).is_ok_and(|p| fnmatch(&p, value))
        }
        _ => false,
    }
}

/// The rows of a plugin's table, up to its sentinel.
pub(crate) fn table(ops: &verbs_device_ops) -> &[verbs_match_ent] {
    let t = ops.match_table;
    if t.is_null() {
        return &[];
    }
    let mut n = 0;
    // SAFETY: a plugin's match table is a static array ending with a
    // sentinel row (kind 0), per driver.h.
    unsafe {
        while (*t.add(n)).kind != VERBS_MATCH_SENTINEL {
            n += 1;
        }
        std::slice::from_raw_parts(t, n)
    }
}

pub(crate) fn by_driver_id(ops: &verbs_device_ops, driver_id: u32) -> Option<&verbs_match_ent> {
    if driver_id == crate::netlink::RDMA_DRIVER_UNKNOWN {
        return None;
    }
    table(ops)
        .iter()
        .find(|e| e.kind == VERBS_MATCH_DRIVER_ID && e.u == u64::from(driver_id))
}

fn c_str(a: &[std::ffi::c_char]) -> String {
    let b: Vec<u8> = a
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&b).into_owned()
}

fn by_name<'a>(ops: &'a verbs_device_ops, sd: &verbs_sysfs_dev) -> Option<&'a verbs_match_ent> {
    let v = format!("rdma_device:N{}", c_str(&sd.ibdev_name));
    table(ops).iter().find(|e| match_modalias(e, &v))
}

fn by_modalias<'a>(
    ops: &'a verbs_device_ops,
    sd: &mut verbs_sysfs_dev,
    read_modalias: impl FnOnce() -> Option<String>,
) -> Option<&'a verbs_match_ent> {
    if sd.flags & VSYSFS_READ_MODALIAS == 0 {
        sd.flags |= VSYSFS_READ_MODALIAS;
        let m = read_modalias().unwrap_or_default();
        crate::device::copy_c_str(&mut sd.modalias, &m);
    }
    let m = c_str(&sd.modalias);
    if m.is_empty() {
        return None;
    }
    table(ops).iter().find(|e| match_modalias(e, &m))
}

/// rdma-core's match_device: sets `sd.match` and says whether `ops` drives it.
pub(crate) fn matches(
    ops: &verbs_device_ops,
    sd: &mut verbs_sysfs_dev,
    read_modalias: impl FnOnce() -> Option<String>,
) -> bool {
    if !ops.match_table.is_null() {
        let m = by_driver_id(ops, sd.driver_id)
            .or_else(|| by_name(ops, sd))
            .or_else(|| by_modalias(ops, sd, read_modalias));
        sd.r#match = m.map_or(std::ptr::null(), |m| m as *const _);
    }
    match ops.match_device {
        // SAFETY: the plugin's own matcher, on the sysfs record it is meant for.
        Some(f) => {
            if !unsafe { f(sd) } {
                return false;
            }
        }
        None => {
            if sd.r#match.is_null() {
                return false;
            }
        }
    }
    if sd.abi_ver < ops.match_min_abi_version || sd.abi_ver > ops.match_max_abi_version {
        if super::load::show_warnings() {
            eprintln!(
                "libibverbs: Warning: Driver {} does not support the kernel ABI of {} (supports {} to {}) for device {}",
                super::name_of(ops),
                sd.abi_ver,
                ops.match_min_abi_version,
                ops.match_max_abi_version,
                c_str(&sd.ibdev_path)
            );
        }
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ent(kind: u8, u: u64, vendor: u16, device: u16) -> verbs_match_ent {
        verbs_match_ent {
            driver_data: std::ptr::null_mut(),
            u,
            vendor,
            device,
            kind,
        }
    }

    #[test]
    fn modalias_rows() {
        let pat = c"pci:v00001D0Fd0000EFA0sv*";
        let m = ent(VERBS_MATCH_MODALIAS, pat.as_ptr() as u64, 0, 0);
        assert!(match_modalias(
            &m,
            "pci:v00001D0Fd0000EFA0sv00001D0Fsd00000000bc02sc00i00"
        ));
        assert!(!match_modalias(
            &m,
            "pci:v00001D0Fd0000EFA1sv00001D0Fsd00000000bc02sc00i00"
        ));
        let p = ent(VERBS_MATCH_PCI, 0, 0x15b3, 0x1017);
        assert!(match_modalias(
            &p,
            "pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00"
        ));
        assert!(!match_modalias(
            &p,
            "pci:v000015B3d00001018sv000015B3sd00000020bc02sc00i00"
        ));
        let n = c"rdma_device:*Nrxe*";
        let r = ent(VERBS_MATCH_MODALIAS, n.as_ptr() as u64, 0, 0);
        assert!(match_modalias(&r, "rdma_device:Nrxe0"));
        assert!(!match_modalias(
            &ent(VERBS_MATCH_DRIVER_ID, 14, 0, 0),
            "rdma_device:Nrxe0"
        ));
    }
}
