//! Which provider serves a device: a built-in Rust provider or a hosted
//! rdma-core plugin, as `IBV_PROVIDERS` says.

use crate::device::Device;
use crate::provider::Provider;
use crate::sysfs::SysfsDevice;

/// The providers built into this library. A device no provider claims is left
/// out of the device list, as rdma-core does.
static PROVIDERS: &[&dyn Provider] = &[&crate::providers::rxe::RXE];

pub(super) fn for_device(
    dev: &SysfsDevice,
    driver_id: Option<u32>,
) -> Option<&'static dyn Provider> {
    PROVIDERS
        .iter()
        .copied()
        .find(|p| p.matches(dev, driver_id))
}

/// `IBV_PROVIDERS`: who serves a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A built-in provider where one matches, else a plugin (the default).
    Auto,
    /// rdma-core's C plugins for every device.
    Plugin,
    /// Built-in providers only.
    Builtin,
}

impl Mode {
    pub(crate) fn parse(v: Option<&str>) -> Mode {
        match v.map(str::trim) {
            Some("plugin") => Mode::Plugin,
            Some("builtin") => Mode::Builtin,
            _ => Mode::Auto,
        }
    }

    /// From the environment, read once.
    pub(crate) fn get() -> Mode {
        static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
        *MODE.get_or_init(|| Mode::parse(std::env::var("IBV_PROVIDERS").ok().as_deref()))
    }
}

/// The device for `dev`, served as `IBV_PROVIDERS` says; None when nothing
/// drives it. Plugins are loaded only when a device gets this far.
pub(super) fn device_for(
    dev: &SysfsDevice,
    driver_id: Option<u32>,
) -> Option<(Device, &'static dyn Provider)> {
    let mode = Mode::get();
    let d = match for_device(dev, driver_id).filter(|_| mode != Mode::Plugin) {
        Some(p) => Some((Device::new(dev.clone()), p, "built-in")),
        None if mode != Mode::Builtin => {
            crate::providers::plugin::device::claim(dev, driver_id).map(|(d, p)| (d, p, "plugin"))
        }
        None => None,
    };
    if crate::entry::trace_level() > 0 {
        let how = d.as_ref().map_or("no provider".into(), |(_, p, k)| {
            format!("{k} {}", p.name())
        });
        crate::entry::trace_line(format_args!("device {}: {how}", dev.ibdev_name));
    }
    d.map(|(d, p, _)| (d, p))
}
