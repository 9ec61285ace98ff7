//! The plugin host: rdma-core's C provider plugins (`lib<name>-rdmavN.so`,
//! IBVERBS_PRIVATE_N) as one more provider beside the Rust ones. A plugin
//! is loaded only when a device needs it ([`load`]), matched to devices by its
//! own table ([`matching`]), and allocates its device ([`device`]) and
//! contexts itself. The host works on `crate::driver_abi::v34`'s structs; a
//! later version's plugin is converted by its `Pabi` row, not a second host.
#![allow(unsafe_code)]

pub(crate) mod addrs;
pub(crate) mod call;
pub(crate) mod cmd;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod frame;
pub(crate) mod hosted_slots;
pub(crate) mod ioctl;
pub(crate) mod load;
pub(crate) mod log;
pub(crate) mod matching;
pub(crate) mod objects;
pub(crate) mod ops;
pub(crate) mod registry;
pub(crate) mod release;
pub(crate) mod slots;

use crate::context::Context;
use crate::device::Device;
use crate::driver_abi::v34::{verbs_device, verbs_device_ops};
use crate::entry::{Errno, Result};
use crate::provider::Provider;
use crate::sysfs::SysfsDevice;
use std::ffi::{CStr, c_void};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

/// One registered plugin.
pub(crate) struct Plugin {
    pub ops: &'static verbs_device_ops,
    pub name: &'static str,
}

// SAFETY: the ops table is immutable static data of a loaded library, and
// the plugin's functions are callable from any thread, as in rdma-core.
unsafe impl Sync for Plugin {}
// SAFETY: as above.
unsafe impl Send for Plugin {}

pub(crate) fn name_of(ops: &verbs_device_ops) -> String {
    if ops.name.is_null() {
        return "?".into();
    }
    // SAFETY: a plugin's name is a static C string.
    unsafe { CStr::from_ptr(ops.name) }
        .to_string_lossy()
        .into_owned()
}

/// A Plugin per registered ops table, made once and kept (plugins stay loaded).
static PLUGINS: Mutex<Vec<&'static Plugin>> = Mutex::new(Vec::new());

/// The registered plugins, after loading every configured one (once).
pub(crate) fn plugins() -> Vec<&'static Plugin> {
    load::load_all();
    let mut ps = PLUGINS.lock().unwrap_or_else(|p| p.into_inner());
    for r in registry::registered() {
        if !ps.iter().any(|p| std::ptr::eq(p.ops, r.0)) {
            let name: &'static str = Box::leak(name_of(r.0).into_boxed_str());
            ps.push(Box::leak(Box::new(Plugin { ops: r.0, name })));
        }
    }
    ps.clone()
}

/// The plugin's verbs_device behind a hosted device.
pub(crate) fn verbs_device_of(dev: &Device) -> Option<NonNull<verbs_device>> {
    dev.hosted_c().map(NonNull::cast)
}

impl Provider for Plugin {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Plugins are matched by [`claim`], with their own tables.
    fn matches(&self, _dev: &SysfsDevice, _driver_id: Option<u32>) -> bool {
        false
    }

    /// verbs_open_device: the plugin allocates the context.
    fn open(&self, dev: &Arc<Device>) -> Result<Arc<Context>> {
        self.open_private(dev, std::ptr::null_mut())
    }

    /// verbs_open_device: `private_data` goes to the plugin's alloc_context.
    fn open_private(&self, dev: &Arc<Device>, private_data: *mut c_void) -> Result<Arc<Context>> {
        let vdev = verbs_device_of(dev).ok_or(Errno::EINVAL)?;
        context::open(dev, vdev, private_data, |p| Box::new(ops::PluginOps { p }))
    }
}
