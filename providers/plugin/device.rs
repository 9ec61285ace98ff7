//! A device a plugin drives: the `verbs_sysfs_dev` record it matches and
//! allocates from, and the `verbs_device` it allocates (its `ibv_device` is
//! what C holds), filled in as rdma-core's core fills it.
#![allow(unsafe_code)]

use super::{Plugin, load, matching};
use crate::abi::ibv_node_type;
use crate::device::{Device, copy_c_str};
use crate::driver_abi::v34::{verbs_device, verbs_sysfs_dev};
use crate::provider::Provider;
use crate::sysfs::SysfsDevice;
use std::ptr::NonNull;

/// The sysfs record a plugin sees, built from what discovery found. Boxed:
/// the plugin keeps its address (`verbs_device.sysfs`) for good.
pub(crate) fn sysfs_record(dev: &SysfsDevice, driver_id: Option<u32>) -> Box<verbs_sysfs_dev> {
    // SAFETY: plain C data (pointers, integers, char arrays); all-zero is valid.
    let mut s: Box<verbs_sysfs_dev> = Box::new(unsafe { std::mem::zeroed() });
    copy_c_str(&mut s.sysfs_name, &dev.uverbs_name);
    s.sysfs_cdev = libc::makedev(dev.cdev.0, dev.cdev.1);
    copy_c_str(&mut s.ibdev_name, &dev.ibdev_name);
    copy_c_str(&mut s.ibdev_path, &dev.ibdev_path.to_string_lossy());
    s.node_guid = dev.node_guid.unwrap_or(0);
    s.driver_id = driver_id.unwrap_or(crate::netlink::RDMA_DRIVER_UNKNOWN);
    s.node_type = ibv_node_type(dev.node_type);
    s.ibdev_idx = -1;
    s.abi_ver = dev.abi_ver;
    if let Some(t) = dev
        .time_created
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
    {
        s.time_created.tv_sec = t.as_secs() as libc::time_t;
        s.time_created.tv_nsec = t.subsec_nanos() as libc::c_long;
    }
    s
}

/// A device for `sysfs` from the first plugin that drives it, and that plugin.
pub(crate) fn claim(
    sysfs: &SysfsDevice,
    driver_id: Option<u32>,
) -> Option<(Device, &'static dyn Provider)> {
    let (p, vdev) = try_plugins(sysfs, driver_id)?;
    Some((Device::hosted(sysfs.clone(), vdev.cast()), p))
}

/// rdma-core's try_drivers: plugins whose table names the kernel driver id
/// first, then every plugin in registration order. The first that matches
/// and allocates a device wins.
pub(crate) fn try_plugins(
    dev: &SysfsDevice,
    driver_id: Option<u32>,
) -> Option<(&'static Plugin, NonNull<verbs_device>)> {
    let plugins = super::plugins();
    let mut sd = sysfs_record(dev, driver_id);
    let by_id = plugins
        .iter()
        .filter(|p| matching::by_driver_id(p.ops, sd.driver_id).is_some());
    let order: Vec<&'static Plugin> = by_id.chain(plugins.iter()).copied().collect();
    for p in order {
        if let Some(vdev) = try_plugin(p, dev, &mut sd) {
            // The record now belongs to the device for good.
            Box::leak(sd);
            return Some((p, vdev));
        }
    }
    None
}

fn try_plugin(
    p: &'static Plugin,
    dev: &SysfsDevice,
    sd: &mut Box<verbs_sysfs_dev>,
) -> Option<NonNull<verbs_device>> {
    if !matching::matches(p.ops, sd, || dev.modalias.clone()) {
        return None;
    }
    let alloc = p.ops.alloc_device?;
    // SAFETY: the plugin's allocator, on the record it just matched.
    let vdev = NonNull::new(unsafe { alloc(&mut **sd) });
    let Some(vdev) = vdev else {
        if load::show_warnings() {
            eprintln!(
                "libibverbs: Fatal: couldn't allocate device for {}",
                dev.ibdev_path.display()
            );
        }
        return None;
    };
    // SAFETY: the plugin returned a live verbs_device that it allocated; we
    // fill the core's fields as rdma-core does before anyone else sees it.
    unsafe {
        let v = vdev.as_ptr();
        (*v).ops = p.ops;
        (*v).refcount = 1;
        (*v).sysfs = &mut **sd;
        let d = &mut (*v).device;
        let c = crate::device::Device::c_fields(dev);
        d.node_type = c.node_type;
        d.transport_type = c.transport_type;
        d.name = c.name;
        d.dev_name = c.dev_name;
        d.dev_path = c.dev_path;
        d.ibdev_path = c.ibdev_path;
    }
    Some(vdev)
}
