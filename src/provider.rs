//! Providers: the driver-specific half of a device (rdma-core's libmlx5,
//! librxe, ...). Each is a Rust type implementing [`Provider`], chosen for a
//! device by its kernel driver.

use crate::context::Context;
use crate::device::Device;
use crate::entry::{Errno, Result};
use crate::sysfs::SysfsDevice;
use std::ffi::c_void;
use std::os::fd::OwnedFd;
use std::sync::Arc;

pub(crate) trait Provider: Sync {
    /// The driver name, as rdma-core's provider is called.
    fn name(&self) -> &'static str;
    /// Whether this provider drives `dev`: by kernel driver id when netlink
    /// gave one, else by device name, as rdma-core matches.
    fn matches(&self, dev: &SysfsDevice, driver_id: Option<u32>) -> bool;
    /// ibv_open_device: a new context on `dev`.
    fn open(&self, dev: &Arc<Device>) -> Result<Arc<Context>>;
    /// verbs_open_device: as [`Provider::open`], with the private data a
    /// direct-verbs library hands its provider (rdma-core 44's rxe, as ours,
    /// has none to take).
    fn open_private(&self, dev: &Arc<Device>, private_data: *mut c_void) -> Result<Arc<Context>> {
        let _ = private_data;
        self.open(dev)
    }
    /// ibv_import_device: a context around a command fd another process or
    /// library opened.
    fn import(&self, dev: &Arc<Device>, cmd_fd: OwnedFd) -> Result<Arc<Context>> {
        let _ = (dev, cmd_fd);
        Err(Errno::EOPNOTSUPP)
    }
}
