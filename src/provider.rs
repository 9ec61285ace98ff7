//! Providers: the driver-specific half of a device (rdma-core's libmlx5,
//! librxe, ...). Each is a Rust type implementing [`Provider`], chosen for a
//! device by its kernel driver.

use crate::context::Context;
use crate::device::Device;
use crate::entry::{Errno, Result};
use crate::sysfs::SysfsDevice;
use std::os::fd::OwnedFd;
use std::sync::Arc;

pub trait Provider: Sync {
    /// The driver name, as rdma-core's provider is called.
    fn name(&self) -> &'static str;
    /// Whether this provider drives `dev`: by kernel driver id when netlink
    /// gave one, else by device name, as rdma-core matches.
    fn matches(&self, dev: &SysfsDevice, driver_id: Option<u32>) -> bool;
    /// ibv_open_device: a new context on `dev`.
    fn open(&self, dev: &Arc<Device>) -> Result<Arc<Context>>;
    /// ibv_import_device: a context around a command fd another process or
    /// library opened.
    fn import(&self, dev: &Arc<Device>, cmd_fd: OwnedFd) -> Result<Arc<Context>> {
        let _ = (dev, cmd_fd);
        Err(Errno::EOPNOTSUPP)
    }
}

/// The providers built into this library. A device no provider claims is left
/// out of the device list, as rdma-core does.
static PROVIDERS: &[&dyn Provider] = &[&crate::providers::rxe::RXE];

pub fn for_device(dev: &SysfsDevice, driver_id: Option<u32>) -> Option<&'static dyn Provider> {
    PROVIDERS
        .iter()
        .copied()
        .find(|p| p.matches(dev, driver_id))
}

/// `IBV_PROVIDERS`: who serves a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A built-in provider where one matches, else a plugin (the default).
    Auto,
    /// rdma-core's C plugins for every device.
    Plugin,
    /// Built-in providers only.
    Builtin,
}

impl Mode {
    pub fn parse(v: Option<&str>) -> Mode {
        match v.map(str::trim) {
            Some("plugin") => Mode::Plugin,
            Some("builtin") => Mode::Builtin,
            _ => Mode::Auto,
        }
    }

    /// From the environment, read once.
    pub fn get() -> Mode {
        static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
        *MODE.get_or_init(|| Mode::parse(std::env::var("IBV_PROVIDERS").ok().as_deref()))
    }
}

/// The device for `dev`, served as `IBV_PROVIDERS` says; None when nothing
/// drives it. Plugins are loaded only when a device gets this far.
pub fn device_for(dev: &SysfsDevice, driver_id: Option<u32>) -> Option<Device> {
    let mode = Mode::get();
    let d = match for_device(dev, driver_id).filter(|_| mode != Mode::Plugin) {
        Some(p) => Some((Device::new(dev.clone(), p), "built-in")),
        None if mode != Mode::Builtin => {
            crate::providers::plugin::claim(dev, driver_id).map(|d| (d, "plugin"))
        }
        None => None,
    };
    if crate::entry::trace_level() > 0 {
        let how = d.as_ref().map_or("no provider".into(), |(d, k)| {
            format!("{k} {}", d.provider.name())
        });
        crate::entry::trace_line(format_args!("device {}: {how}", dev.ibdev_name));
    }
    d.map(|(d, _)| d)
}
