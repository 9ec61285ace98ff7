//! GID table lookups for the verbs that need them (AH creation, AH from a
//! completion). They ask the provider's `query_gid_ex`; while a provider has
//! none, they read the port's GID table from sysfs, as old libibverbs did.

use crate::abi::*;
use crate::context::Context;
use crate::entry::{Errno, Result};
use std::path::Path;

/// The 16 bytes of a GID.
pub fn raw(g: &ibv_gid) -> [u8; 16] {
    // SAFETY: both members of the union are plain bytes of the same size.
    #[allow(unsafe_code)]
    unsafe {
        g.raw
    }
}

/// One GID table entry; ENODATA for an empty slot, EINVAL for a port or index
/// the device does not have.
pub fn query(ctx: &Context, port: u32, index: u32) -> Result<ibv_gid_entry> {
    match ctx.ops.query_gid_ex(ctx, port, index, 0) {
        Err(Errno::EOPNOTSUPP) => from_sysfs(&ctx.device.sysfs.ibdev_path, port, index),
        r => r,
    }
}

/// ibv_query_gid: an empty slot reads as the zero GID.
pub fn query_gid(ctx: &Context, port: u32, index: u32) -> Result<[u8; 16]> {
    match query(ctx, port, index) {
        Ok(e) => Ok(raw(&e.gid)),
        Err(Errno(libc::ENODATA)) => Ok([0; 16]),
        Err(e) => Err(e),
    }
}

/// `enum ibv_gid_type_sysfs` of an entry as ibv_query_gid_type reports it:
/// 0 for IB / RoCE v1 (and empty slots), 1 for RoCE v2.
pub fn query_gid_type_sysfs(ctx: &Context, port: u32, index: u32) -> Result<u32> {
    match query(ctx, port, index) {
        Ok(e) => Ok(u32::from(e.gid_type == IBV_GID_TYPE_ROCE_V2)),
        Err(Errno(libc::ENODATA)) => Ok(0),
        Err(e) => Err(e),
    }
}

/// Parses sysfs's "xxxx:xxxx:...:xxxx" (eight groups of four hex digits).
pub fn parse_gid(s: &str) -> Option<[u8; 16]> {
    let groups: Vec<&str> = s.trim().split(':').collect();
    if groups.len() != 8 {
        return None;
    }
    let mut g = [0u8; 16];
    for (i, grp) in groups.iter().enumerate() {
        let v = u16::from_str_radix(grp, 16).ok()?;
        g[2 * i..2 * i + 2].copy_from_slice(&v.to_be_bytes());
    }
    Some(g)
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

/// The entry from `<ibdev>/ports/<port>/gids/<index>` and its gid_attrs.
pub fn from_sysfs(ibdev: &Path, port: u32, index: u32) -> Result<ibv_gid_entry> {
    let port_dir = ibdev.join("ports").join(port.to_string());
    let gid = read(&port_dir.join("gids").join(index.to_string()))
        .and_then(|s| parse_gid(&s))
        .ok_or(Errno::EINVAL)?;
    if gid == [0; 16] {
        return Err(Errno(libc::ENODATA));
    }
    let attrs = port_dir.join("gid_attrs");
    let gid_type = match read(&attrs.join("types").join(index.to_string())) {
        Some(t) if t.trim() == "RoCE v2" => IBV_GID_TYPE_ROCE_V2,
        Some(_) => IBV_GID_TYPE_ROCE_V1,
        None => IBV_GID_TYPE_IB,
    };
    let ndev_ifindex = read(&attrs.join("ndevs").join(index.to_string()))
        .and_then(|n| read(&Path::new("/sys/class/net").join(n.trim()).join("ifindex")))
        .and_then(|i| i.trim().parse().ok())
        .unwrap_or(0);
    Ok(ibv_gid_entry {
        gid: ibv_gid { raw: gid },
        gid_index: index,
        port_num: port,
        gid_type,
        ndev_ifindex,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sysfs_gids() {
        let g = parse_gid("0000:0000:0000:0000:0000:ffff:0a00:0001\n").unwrap();
        assert_eq!(g[10..], [0xff, 0xff, 10, 0, 0, 1]);
        assert!(parse_gid("fe80::1").is_none());
    }

    #[test]
    fn sysfs_table() {
        let d = std::env::temp_dir().join(format!("gidtest{}", std::process::id()));
        let p = d.join("ports/1");
        std::fs::create_dir_all(p.join("gids")).unwrap();
        std::fs::create_dir_all(p.join("gid_attrs/types")).unwrap();
        std::fs::write(
            p.join("gids/0"),
            "fe80:0000:0000:0000:5054:00ff:fe12:3456\n",
        )
        .unwrap();
        std::fs::write(
            p.join("gids/1"),
            "0000:0000:0000:0000:0000:0000:0000:0000\n",
        )
        .unwrap();
        std::fs::write(p.join("gid_attrs/types/0"), "RoCE v2\n").unwrap();
        let e = from_sysfs(&d, 1, 0).unwrap();
        assert_eq!(e.gid_type, IBV_GID_TYPE_ROCE_V2);
        assert_eq!(raw(&e.gid)[0], 0xfe);
        assert_eq!(from_sysfs(&d, 1, 1).err(), Some(Errno(libc::ENODATA)));
        assert_eq!(from_sysfs(&d, 1, 2).err(), Some(Errno::EINVAL));
        assert_eq!(from_sysfs(&d, 2, 0).err(), Some(Errno::EINVAL));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
