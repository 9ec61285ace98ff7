//! Claiming and opening rxe devices.

use super::context::RxeContext;
use crate::context::{self, Context};
use crate::device::Device;
use crate::entry::Result;
use crate::provider::Provider;
use crate::sysfs::SysfsDevice;
use crate::uverbs::ids::RDMA_DRIVER_RXE;
use std::fs::OpenOptions;
use std::os::fd::OwnedFd;
use std::sync::Arc;

pub(crate) struct Rxe;

pub(crate) static RXE: Rxe = Rxe;

impl Provider for Rxe {
    fn name(&self) -> &'static str {
        "rxe"
    }

    /// By the kernel's driver id; without netlink, by the "rxe" name prefix
    /// rdma-core also accepts.
    fn matches(&self, dev: &SysfsDevice, driver_id: Option<u32>) -> bool {
        match driver_id {
            Some(id) => id == RDMA_DRIVER_RXE,
            None => dev.ibdev_name.starts_with("rxe"),
        }
    }

    fn open(&self, dev: &Arc<Device>) -> Result<Arc<Context>> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&dev.sysfs.dev_path)?;
        self.open_fd(dev, f.into(), true)
    }

    /// rdma-core's rxe provider has no import_context: ibv_import_device on an
    /// rxe fd fails with EOPNOTSUPP.
    fn import(&self, _dev: &Arc<Device>, _cmd_fd: OwnedFd) -> Result<Arc<Context>> {
        Err(crate::entry::Errno::EOPNOTSUPP)
    }
}

impl Rxe {
    fn open_fd(&self, dev: &Arc<Device>, fd: OwnedFd, get_context: bool) -> Result<Arc<Context>> {
        context::open(
            dev,
            fd,
            RDMA_DRIVER_RXE,
            get_context,
            |_| Ok(Box::new(RxeContext::default())),
            RxeContext::fill_ops,
        )
    }
}
