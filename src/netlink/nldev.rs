//! The RDMA_NLDEV commands libibverbs uses, and decoding their replies
//! (numbers from `<rdma/rdma_netlink.h>`).

use super::msg::{Attrs, NLM_F_DUMP};
use super::query::{Conn, Transport};
use super::{NlDevice, NlUverbs, RDMA_DRIVER_UNKNOWN};
use crate::entry::{Errno, Result};
use crate::sysfs::decode_node_type;

const RDMA_NL_NLDEV: u16 = 5;

/// `RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)`
const fn nldev_type(op: u16) -> u16 {
    (RDMA_NL_NLDEV << 10) + op
}

pub(super) const CMD_GET: u16 = nldev_type(1);
pub(super) const CMD_SYS_GET: u16 = nldev_type(6);
pub(super) const CMD_GET_CHARDEV: u16 = nldev_type(15);

pub(super) const ATTR_DEV_INDEX: u16 = 1;
pub(super) const ATTR_DEV_NAME: u16 = 2;
pub(super) const ATTR_PORT_INDEX: u16 = 3;
pub(super) const ATTR_FW_VERSION: u16 = 5;
pub(super) const ATTR_NODE_GUID: u16 = 6;
pub(super) const ATTR_SYS_IMAGE_GUID: u16 = 7;
pub(super) const ATTR_DEV_NODE_TYPE: u16 = 14;
pub(super) const ATTR_DEV_PROTOCOL: u16 = 67;
pub(super) const ATTR_CHARDEV_TYPE: u16 = 69;
pub(super) const ATTR_CHARDEV_NAME: u16 = 70;
pub(super) const ATTR_CHARDEV_ABI: u16 = 71;
pub(super) const ATTR_CHARDEV: u16 = 72;
pub(super) const ATTR_UVERBS_DRIVER_ID: u16 = 73;
pub(super) const SYS_ATTR_COPY_ON_FORK: u16 = 93;

/// Names are copied into `IBV_SYSFS_NAME_MAX` (64) byte buffers, NUL included.
const NAME_MAX: usize = 64;

enum Kind {
    U8,
    U32,
    U64,
    Str,
}

/// The attributes libibverbs checks in every reply before looking at any of them.
const POLICY: &[(u16, Kind)] = &[
    (ATTR_CHARDEV, Kind::U64),
    (ATTR_CHARDEV_ABI, Kind::U64),
    (ATTR_DEV_INDEX, Kind::U32),
    (ATTR_DEV_NODE_TYPE, Kind::U8),
    (ATTR_NODE_GUID, Kind::U64),
    (ATTR_UVERBS_DRIVER_ID, Kind::U32),
    (ATTR_PORT_INDEX, Kind::U32),
    (ATTR_CHARDEV_NAME, Kind::Str),
    (ATTR_DEV_NAME, Kind::Str),
    (ATTR_DEV_PROTOCOL, Kind::Str),
    (SYS_ATTR_COPY_ON_FORK, Kind::U8),
];

/// A present attribute of the policy that is too short (or an unterminated
/// string) makes the whole message invalid.
pub(super) fn validate(a: &Attrs<'_>) -> Result<()> {
    for (ty, kind) in POLICY {
        let Some(v) = a.get(*ty) else { continue };
        let ok = match kind {
            Kind::U8 => !v.is_empty(),
            Kind::U32 => v.len() >= 4,
            Kind::U64 => v.len() >= 8,
            Kind::Str => v.contains(&0),
        };
        if !ok {
            return Err(Errno::EINVAL);
        }
    }
    Ok(())
}

fn need<T>(v: Option<T>) -> Result<T> {
    v.ok_or(Errno::EINVAL)
}

fn name(a: &Attrs<'_>, ty: u16) -> Result<String> {
    match a.str(ty) {
        Some(s) if s.len() < NAME_MAX => Ok(s.to_owned()),
        _ => Err(Errno::EINVAL),
    }
}

/// One message of the `CMD_GET` dump. Devices missing any of the attributes
/// libibverbs needs make the message (and so the dump) invalid.
pub(super) fn decode_device(a: &Attrs<'_>) -> Result<NlDevice> {
    validate(a)?;
    Ok(NlDevice {
        index: need(a.u32(ATTR_DEV_INDEX))?,
        name: name(a, ATTR_DEV_NAME)?,
        node_type: decode_node_type(need(a.u8(ATTR_DEV_NODE_TYPE))?.into()),
        node_guid: need(a.u64(ATTR_NODE_GUID))?,
        num_ports: need(a.u32(ATTR_PORT_INDEX))?,
        sys_image_guid: a.u64(ATTR_SYS_IMAGE_GUID),
        fw_version: a.str(ATTR_FW_VERSION).map(str::to_owned),
        protocol: a.str(ATTR_DEV_PROTOCOL).map(str::to_owned),
        uverbs: None,
    })
}

/// The kernel's `huge_encode_dev` form to (major, minor).
pub(super) fn decode_cdev(v: u64) -> (u32, u32) {
    let major = (v & 0xfff00) >> 8;
    let minor = (v & 0xff) | ((v >> 12) & 0xfff00);
    (major as u32, minor as u32)
}

/// The reply to `CMD_GET_CHARDEV` for "uverbs".
pub(super) fn decode_uverbs(a: &Attrs<'_>) -> Result<NlUverbs> {
    validate(a)?;
    let cdev = need(a.u64(ATTR_CHARDEV))?;
    // The top half of the ABI attribute is reserved (zero today).
    let abi = need(a.u64(ATTR_CHARDEV_ABI))?;
    Ok(NlUverbs {
        name: name(a, ATTR_CHARDEV_NAME)?,
        cdev: decode_cdev(cdev),
        abi_ver: abi as u32,
        driver_id: a.u32(ATTR_UVERBS_DRIVER_ID).unwrap_or(RDMA_DRIVER_UNKNOWN),
    })
}

/// Kernels older than copy-on-fork do not send the attribute: false.
pub(super) fn decode_copy_on_fork(a: &Attrs<'_>) -> Result<bool> {
    validate(a)?;
    Ok(a.u8(SYS_ATTR_COPY_ON_FORK).is_some_and(|v| v != 0))
}

impl<T: Transport> Conn<T> {
    /// All devices (without their char devices), in the kernel's order.
    pub(super) fn get_devices(&mut self) -> Result<Vec<NlDevice>> {
        let mut devs = Vec::new();
        self.exchange(
            "RDMA_NLDEV_CMD_GET dump",
            CMD_GET,
            NLM_F_DUMP,
            |r| r,
            |a| {
                devs.push(decode_device(a)?);
                Ok(())
            },
        )?;
        Ok(devs)
    }

    /// The uverbs char device of device `index`; an error if the kernel has
    /// none or its reply lacks the char device, ABI or name.
    pub(super) fn get_uverbs(&mut self, index: u32) -> Result<NlUverbs> {
        let mut found = None;
        let build = |r: super::msg::Request| {
            r.put_u32(ATTR_DEV_INDEX, index)
                .put_str(ATTR_CHARDEV_TYPE, "uverbs")
        };
        self.exchange(
            "RDMA_NLDEV_CMD_GET_CHARDEV",
            CMD_GET_CHARDEV,
            0,
            build,
            |a| {
                found = Some(decode_uverbs(a)?);
                Ok(())
            },
        )?;
        found.filter(|u| !u.name.is_empty()).ok_or(Errno::ENODEV)
    }

    /// The copy-on-fork flag; an error if no reply carried attributes.
    pub(super) fn get_copy_on_fork(&mut self) -> Result<bool> {
        let mut cof = None;
        self.exchange(
            "RDMA_NLDEV_CMD_SYS_GET",
            CMD_SYS_GET,
            0,
            |r| r,
            |a| {
                cof = Some(decode_copy_on_fork(a)?);
                Ok(())
            },
        )?;
        cof.ok_or(Errno::EIO)
    }
}
