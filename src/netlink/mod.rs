//! A small RDMA netlink (NETLINK_RDMA, RDMA_NLDEV) client: the device list and
//! the copy-on-fork flag, as libibverbs asks the kernel for them; and an
//! rtnetlink (NETLINK_ROUTE) client for ibv_resolve_eth_l2_from_gid (`route`, `neigh`).
//!
//! Layers: `msg` (wire format, pure), `query` (one request and its replies over
//! a `Transport`), `nldev` (the commands), `sock` (the socket, all the `unsafe`).

pub(crate) mod fuzz;
mod msg;
mod neigh;
mod nldev;
mod probe;
mod query;
mod route;
mod sock;

pub(crate) use neigh::{L2, resolve as resolve_l2};

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use crate::entry::{Result, trace_level, trace_line};
use query::{Conn, Transport};
use sock::NlSocket;

/// `RDMA_DRIVER_UNKNOWN`: the driver id when the kernel reports none.
pub(crate) const RDMA_DRIVER_UNKNOWN: u32 = 0;

/// How long one send or receive may block. The kernel answers at once; this
/// only guards against hanging forever.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(2);

/// An RDMA device as the kernel's netlink device dump reports it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NlDevice {
    /// The kernel's device index.
    pub index: u32,
    /// The IB device name, e.g. `rxe0`.
    pub name: String,
    /// `enum ibv_node_type` value (-1 when unknown).
    pub node_type: i32,
    /// In host order, as `SysfsDevice::node_guid`.
    pub node_guid: u64,
    pub sys_image_guid: Option<u64>,
    pub fw_version: Option<String>,
    /// e.g. "roce", "ib", "iw".
    pub protocol: Option<String>,
    /// In a device dump the port index attribute is the number of ports.
    pub num_ports: u32,
    /// `None` when the kernel did not report a uverbs char device: the caller
    /// then looks in sysfs (`<ibdev>/device/infiniband_verbs/`), as libibverbs does.
    pub uverbs: Option<NlUverbs>,
}

/// A device's uverbs char device, from `RDMA_NLDEV_CMD_GET_CHARDEV`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NlUverbs {
    /// e.g. `uverbs0` (under `/dev/infiniband`).
    pub name: String,
    /// (major, minor)
    pub cdev: (u32, u32),
    /// The per-device uverbs ABI. When netlink reports a char device, the
    /// global uverbs ABI is 6 (libibverbs does not read it from sysfs then).
    pub abi_ver: u32,
    /// `RDMA_DRIVER_*`, [`RDMA_DRIVER_UNKNOWN`] when not reported.
    pub driver_id: u32,
}

impl NlUverbs {
    #[cfg(test)]
    pub(crate) fn dev_t(&self) -> libc::dev_t {
        libc::makedev(self.cdev.0, self.cdev.1)
    }
}

/// The RDMA devices of this network namespace, in the kernel's order, each
/// with its uverbs char device when the kernel reports one.
///
/// `Err` means netlink cannot be used (no `NETLINK_RDMA`, e.g. `EPROTONOSUPPORT`,
/// an error reply, a malformed or incomplete dump): the caller then discovers
/// devices from sysfs, as libibverbs does. `Ok` with an empty list means the
/// kernel has no RDMA devices.
pub(crate) fn devices() -> Result<Vec<NlDevice>> {
    devices_on(&mut open()?)
}

fn open() -> Result<Conn<NlSocket>> {
    let s = NlSocket::open(TIMEOUT);
    if let (Err(e), 2..) = (&s, trace_level()) {
        trace_line(format_args!("netlink socket(NETLINK_RDMA) = error {e:?}"));
    }
    Ok(Conn::new(s?))
}

fn devices_on<T: Transport>(c: &mut Conn<T>) -> Result<Vec<NlDevice>> {
    let mut devs = c.get_devices()?;
    for d in &mut devs {
        d.uverbs = c.get_uverbs(d.index).ok();
    }
    Ok(devs)
}

/// The kernel's index of the device called `name`; `None` when netlink is not
/// usable or there is no such device. Costs one device dump.
pub(crate) fn device_index(name: &str) -> Option<u32> {
    let mut c = open().ok()?;
    index_on(&mut c, name)
}

fn index_on<T: Transport>(c: &mut Conn<T>, name: &str) -> Option<u32> {
    let devs = c.get_devices().ok()?;
    devs.into_iter().find(|d| d.name == name).map(|d| d.index)
}

/// 0: not known yet, 1: false, 2: true.
static COPY_ON_FORK: AtomicU8 = AtomicU8::new(0);

/// Whether the kernel copies pinned pages on fork (`RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK`),
/// which makes `ibv_fork_init`'s madvise work unnecessary. False on any error;
/// the first answer the kernel gives is kept.
pub(crate) fn copy_on_fork() -> bool {
    cached_copy_on_fork(&COPY_ON_FORK, || open()?.get_copy_on_fork())
}

fn cached_copy_on_fork(cache: &AtomicU8, query: impl FnOnce() -> Result<bool>) -> bool {
    match cache.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => match query() {
            Ok(v) => {
                cache.store(if v { 2 } else { 1 }, Ordering::Relaxed);
                v
            }
            Err(_) => false,
        },
    }
}
