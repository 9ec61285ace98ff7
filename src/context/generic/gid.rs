//! GID table entries: the QUERY_GID_ENTRY / QUERY_GID_TABLE ioctls, and on
//! kernels without them the sysfs files `ports/N/gids/I`,
//! `ports/N/gid_attrs/types/I` and `ports/N/gid_attrs/ndevs/I`.
//!
//! As in rdma-core, the GID table is the library's, not a provider op: the
//! verbs and the library's own users (AH creation, AH from a completion)
//! call [`query_gid_ex`] / [`query_gid_table`] or [`query_gid`] and
//! [`query_gid_type_sysfs`] for every provider.
#![allow(unsafe_code)]

use crate::abi::*;
use crate::context::Context;
use crate::entry::{Errno, Result};
use crate::sysfs::read_sysfs_file_buf;
use crate::uverbs::IoctlCmd;
use crate::uverbs::ids::*;
use std::path::PathBuf;

/// Which parts of an entry the sysfs fallback reads.
pub(crate) const GID_ATTR_GID: u32 = 1 << 0;
pub(crate) const GID_ATTR_TYPE: u32 = 1 << 1;
pub(crate) const GID_ATTR_NDEV_IFINDEX: u32 = 1 << 2;
pub(crate) const GID_ATTR_ALL: u32 = GID_ATTR_GID | GID_ATTR_TYPE | GID_ATTR_NDEV_IFINDEX;

/// Size of `struct ib_uverbs_gid_entry`, the same layout as `ibv_gid_entry`.
pub(crate) const GID_ENTRY_SIZE: usize = size_of::<ibv_gid_entry>();

/// The 16 bytes of a GID.
pub(crate) fn raw(g: &ibv_gid) -> [u8; 16] {
    // SAFETY: both members of the union are plain bytes of the same size.
    unsafe { g.raw }
}

/// ibv_query_gid through the provider: an empty slot reads as the zero GID.
pub(crate) fn query_gid(ctx: &Context, port: u32, index: u32) -> Result<[u8; 16]> {
    match query_gid_ex(ctx, port, index, 0, GID_ATTR_GID) {
        Ok(e) => Ok(raw(&e.gid)),
        Err(Errno(libc::ENODATA)) => Ok([0; 16]),
        Err(e) => Err(e),
    }
}

/// ibv_query_gid_type through the provider: `enum ibv_gid_type_sysfs`, 0 for
/// IB / RoCE v1 (and empty slots), 1 for RoCE v2.
pub(crate) fn query_gid_type_sysfs(ctx: &Context, port: u32, index: u32) -> Result<u32> {
    match query_gid_ex(ctx, port, index, 0, GID_ATTR_TYPE) {
        Ok(e) => Ok(if e.gid_type == IBV_GID_TYPE_ROCE_V2 {
            SYSFS_V2
        } else {
            SYSFS_V1
        }),
        Err(Errno(libc::ENODATA)) => Ok(SYSFS_V1),
        Err(e) => Err(e),
    }
}

/// Whether an ioctl error means the kernel lacks the method (use sysfs).
fn kernel_lacks(e: Errno) -> bool {
    matches!(e.0, libc::ENOTTY | libc::EPROTONOSUPPORT)
}

fn zero_entry() -> ibv_gid_entry {
    ibv_gid_entry {
        gid: ibv_gid { raw: [0; 16] },
        gid_index: 0,
        port_num: 0,
        gid_type: 0,
        ndev_ifindex: 0,
    }
}

pub(crate) fn entry_from_bytes(b: &[u8; GID_ENTRY_SIZE]) -> ibv_gid_entry {
    let u32_at = |o: usize| u32::from_ne_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let mut raw = [0u8; 16];
    raw.copy_from_slice(&b[..16]);
    ibv_gid_entry {
        gid: ibv_gid { raw },
        gid_index: u32_at(16),
        port_num: u32_at(20),
        gid_type: u32_at(24),
        ndev_ifindex: u32_at(28),
    }
}

/// The bytes of an entry, as the kernel writes them.
pub(crate) fn entry_bytes(e: &ibv_gid_entry) -> [u8; GID_ENTRY_SIZE] {
    let mut b = [0u8; GID_ENTRY_SIZE];
    // SAFETY: both union members are plain bytes of the same size.
    b[..16].copy_from_slice(unsafe { &e.gid.raw });
    b[16..20].copy_from_slice(&e.gid_index.to_ne_bytes());
    b[20..24].copy_from_slice(&e.port_num.to_ne_bytes());
    b[24..28].copy_from_slice(&e.gid_type.to_ne_bytes());
    b[28..32].copy_from_slice(&e.ndev_ifindex.to_ne_bytes());
    b
}

fn is_zero(e: &ibv_gid_entry) -> bool {
    // SAFETY: as in entry_bytes.
    unsafe { e.gid.raw == [0; 16] }
}

/// One entry. ENODATA for an empty slot; `fallback_mask` says what the sysfs
/// fallback needs to read (the ioctl always reports everything).
pub(crate) fn query_gid_ex(
    ctx: &Context,
    port: u32,
    index: u32,
    flags: u32,
    fallback_mask: u32,
) -> Result<ibv_gid_entry> {
    let mut buf = [0u8; GID_ENTRY_SIZE];
    let r = {
        let mut c = IoctlCmd::new(
            "QUERY_GID_ENTRY",
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_QUERY_GID_ENTRY,
        );
        c.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port.into());
        c.const_in(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, index.into());
        c.u32_in(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, flags);
        c.ptr_out(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &mut buf);
        ctx.uverbs.ioctl(&mut c)
    };
    match r {
        Ok(()) => Ok(entry_from_bytes(&buf)),
        Err(e) if kernel_lacks(e) => {
            if flags != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            let mut entry = zero_entry();
            sysfs_entry(ctx, port, index, &mut entry, fallback_mask, None)?;
            if fallback_mask & GID_ATTR_GID != 0 && is_zero(&entry) {
                return Err(Errno(libc::ENODATA));
            }
            Ok(entry)
        }
        Err(e) => Err(e),
    }
}

/// The valid entries of every port, written at `entry_size` strides into
/// `out` (whose length says how many fit). Returns how many were written.
pub(crate) fn query_gid_table(
    ctx: &Context,
    out: &mut [u8],
    entry_size: usize,
    flags: u32,
) -> Result<usize> {
    let mut num: u64 = 0;
    let r = {
        let mut c = IoctlCmd::new(
            "QUERY_GID_TABLE",
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_QUERY_GID_TABLE,
        );
        c.const_in(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, entry_size as u64);
        c.u32_in(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, flags);
        c.ptr_out(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, &mut *out);
        c.ptr_out_pod(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &mut num);
        ctx.uverbs.ioctl(&mut c)
    };
    match r {
        Ok(()) => Ok(num as usize),
        Err(e) if kernel_lacks(e) => {
            if flags != 0 {
                return Err(Errno::EOPNOTSUPP);
            }
            table_from_sysfs(ctx, out, entry_size)
        }
        Err(e) => Err(e),
    }
}

fn table_from_sysfs(ctx: &Context, out: &mut [u8], entry_size: usize) -> Result<usize> {
    // SAFETY: plain C data; all-zero is valid.
    let mut dev: ibv_device_attr = unsafe { std::mem::zeroed() };
    ctx.ops.query_device(ctx, &mut dev)?;
    let max = out.len().checked_div(entry_size).unwrap_or(0);
    let mut n = 0usize;
    for port in 1..=u32::from(dev.phys_port_cnt) {
        // SAFETY: plain C data; all-zero is valid.
        let mut pa: ibv_port_attr = unsafe { std::mem::zeroed() };
        ctx.ops.query_port(ctx, port as u8, &mut pa)?;
        for index in 0..pa.gid_tbl_len.max(0) as u32 {
            let mut e = zero_entry();
            sysfs_entry(ctx, port, index, &mut e, GID_ATTR_ALL, Some(pa.link_layer))?;
            if is_zero(&e) {
                continue;
            }
            if n == max {
                return Err(Errno::EINVAL);
            }
            let b = entry_bytes(&e);
            let dst = &mut out[n * entry_size..(n + 1) * entry_size];
            let k = entry_size.min(GID_ENTRY_SIZE);
            dst[..k].copy_from_slice(&b[..k]);
            n += 1;
        }
    }
    Ok(n)
}

fn port_file(ctx: &Context, port: u32, rest: std::fmt::Arguments<'_>) -> PathBuf {
    ctx.device
        .sysfs
        .ibdev_path
        .join(format!("ports/{port}/{rest}"))
}

fn read_file(path: &std::path::Path, buf: &mut [u8]) -> Result<String> {
    let n = read_sysfs_file_buf(path, buf)?;
    Ok(String::from_utf8_lossy(&buf[..n]).into_owned())
}

/// "fe80:0000:...": eight groups of four hex digits.
pub(crate) fn parse_sysfs_gid(s: &str) -> Option<[u8; 16]> {
    let mut raw = [0u8; 16];
    let b = s.as_bytes();
    for i in 0..8 {
        let start = i * 5;
        let group = b.get(start..)?;
        let digits: String = group
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .take(4)
            .map(|&c| c as char)
            .collect();
        let v = u16::from_str_radix(&digits, 16).ok()?;
        raw[i * 2..i * 2 + 2].copy_from_slice(&v.to_be_bytes());
    }
    Some(raw)
}

/// rdma-core's sysfs GID types (`enum ibv_gid_type_sysfs`).
const SYSFS_V1: u32 = 0;
const SYSFS_V2: u32 = 1;

/// The sysfs type of an entry: 0 IB/RoCE v1, 1 RoCE v2.
fn sysfs_gid_type(ctx: &Context, port: u32, index: u32) -> Result<u32> {
    let mut buf = [0u8; 11];
    let path = port_file(ctx, port, format_args!("gid_attrs/types/{index}"));
    match read_sysfs_file_buf(&path, &mut buf) {
        Ok(n) if n > 0 => match &buf[..n] {
            b"IB/RoCE v1" => Ok(SYSFS_V1),
            b"RoCE v2" => Ok(SYSFS_V2),
            _ => Err(Errno::EOPNOTSUPP),
        },
        // IB ports have the file but reading it fails with EINVAL.
        Err(Errno::EINVAL) => Ok(SYSFS_V1),
        _ => {
            let dir = port_file(ctx, port, format_args!("gid_attrs/"));
            match std::fs::read_dir(&dir) {
                // No gid_attrs at all: an old kernel, every GID is v1.
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(SYSFS_V1),
                Err(e) => Err(e.into()),
                Ok(_) => Err(Errno::EFAULT),
            }
        }
    }
}

fn sysfs_entry(
    ctx: &Context,
    port: u32,
    index: u32,
    e: &mut ibv_gid_entry,
    mask: u32,
    link_layer: Option<u8>,
) -> Result<()> {
    e.gid_index = index;
    e.port_num = port;
    if mask & GID_ATTR_GID != 0 {
        let mut buf = [0u8; 41];
        let path = port_file(ctx, port, format_args!("gids/{index}"));
        let s = read_file(&path, &mut buf).map_err(|_| Errno::EINVAL)?;
        e.gid.raw = parse_sysfs_gid(&s).ok_or(Errno::EINVAL)?;
    }
    if mask & GID_ATTR_TYPE != 0 {
        let t = sysfs_gid_type(ctx, port, index).map_err(|_| Errno::EINVAL)?;
        e.gid_type = if t == SYSFS_V1 {
            let ll = match link_layer {
                Some(ll) => ll,
                None => {
                    // SAFETY: plain C data; all-zero is valid.
                    let mut pa: ibv_port_attr = unsafe { std::mem::zeroed() };
                    ctx.ops.query_port(ctx, port as u8, &mut pa)?;
                    pa.link_layer
                }
            };
            if u32::from(ll) == IBV_LINK_LAYER_ETHERNET {
                IBV_GID_TYPE_ROCE_V1
            } else {
                IBV_GID_TYPE_IB
            }
        } else {
            IBV_GID_TYPE_ROCE_V2
        };
    }
    if mask & GID_ATTR_NDEV_IFINDEX != 0 {
        let mut buf = [0u8; libc::IF_NAMESIZE];
        let path = port_file(ctx, port, format_args!("gid_attrs/ndevs/{index}"));
        e.ndev_ifindex = match read_file(&path, &mut buf) {
            Ok(name) if !name.is_empty() => {
                let c = std::ffi::CString::new(name).map_err(|_| Errno::EINVAL)?;
                nix::net::if_::if_nametoindex(c.as_c_str())?
            }
            _ => 0,
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_gid_text() {
        let g = parse_sysfs_gid("fe80:0000:0000:0000:0202:03ff:fe04:0506").unwrap();
        assert_eq!(g[..2], [0xfe, 0x80]);
        assert_eq!(g[8..], [0x02, 0x02, 0x03, 0xff, 0xfe, 0x04, 0x05, 0x06]);
        assert!(parse_sysfs_gid("fe80:zz").is_none());
        assert!(parse_sysfs_gid("fe80::1").is_none());
        let v4 = parse_sysfs_gid("0000:0000:0000:0000:0000:ffff:0a00:0001\n").unwrap();
        assert_eq!(v4[10..], [0xff, 0xff, 10, 0, 0, 1]);
    }

    #[test]
    fn entry_round_trip() {
        let mut e = zero_entry();
        e.gid_index = 3;
        e.port_num = 1;
        e.gid_type = IBV_GID_TYPE_ROCE_V2;
        e.ndev_ifindex = 7;
        let b = entry_bytes(&e);
        let f = entry_from_bytes(&b);
        assert_eq!(
            (f.gid_index, f.port_num, f.gid_type, f.ndev_ifindex),
            (3, 1, 2, 7)
        );
    }
}
