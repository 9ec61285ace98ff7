//! The process-wide device list, refreshed from sysfs on each
//! ibv_get_device_list. A device stays valid for C as long as the process
//! lives, even after it disappears, because C may still hold its pointer.
#![allow(unsafe_code)]

use super::Device;
use crate::entry::{Errno, Result};
use crate::object::{self, CObject};
use crate::{provider, sysfs};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

static DEVICES: Mutex<Vec<Arc<Device>>> = Mutex::new(Vec::new());

fn devices() -> MutexGuard<'static, Vec<Arc<Device>>> {
    DEVICES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Re-reads sysfs: keeps the devices still there, adds new ones that a provider
/// claims. No uverbs support in the kernel at all is ENOSYS, as in rdma-core.
pub fn refresh() -> Result<Vec<Arc<Device>>> {
    if !sysfs::sysfs_path().join("class/infiniband_verbs").is_dir() {
        return Err(Errno::ENOSYS);
    }
    let found = sysfs::find_devices()?;
    // Driver ids come from netlink when the kernel has it; sysfs has none.
    let ids: HashMap<String, u32> = crate::netlink::devices()
        .map(|ds| {
            ds.into_iter()
                .filter_map(|d| Some((d.name, d.uverbs?.driver_id)))
                .filter(|(_, id)| *id != crate::netlink::RDMA_DRIVER_UNKNOWN)
                .collect()
        })
        .unwrap_or_default();
    let mut list = devices();
    let mut next = Vec::with_capacity(found.len());
    for dev in found {
        if let Some(old) = list.iter().find(|d| d.same_as(&dev)) {
            next.push(old.clone());
            continue;
        }
        match provider::device_for(&dev, ids.get(&dev.ibdev_name).copied()) {
            Some(d) => {
                let d = Arc::new(d);
                object::publish(d.clone());
                next.push(d);
            }
            None => {
                if std::env::var_os("IBV_SHOW_WARNINGS").is_some() {
                    eprintln!(
                        "libibverbs: Warning: no userspace device-specific driver found for {}",
                        dev.ibdev_name
                    );
                }
            }
        }
    }
    *list = next.clone();
    Ok(next)
}

/// The NULL-terminated arrays handed to C, owned here until
/// ibv_free_device_list gives them back.
pub struct DeviceList;

static LISTS: Mutex<Option<HashMap<usize, Box<[usize]>>>> = Mutex::new(None);

impl DeviceList {
    /// A new C array of the devices, NULL-terminated; its address is the key.
    pub fn hand_out(devs: &[Arc<Device>]) -> *mut *mut crate::abi::ibv_device {
        let mut arr: Box<[usize]> = devs.iter().map(|d| d.c_ptr() as usize).chain([0]).collect();
        let p = arr.as_mut_ptr().cast();
        let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
        lists
            .get_or_insert_with(HashMap::new)
            .insert(p as usize, arr);
        p
    }

    /// Frees an array from [`hand_out`]; anything else is refused.
    pub fn give_back(p: *mut *mut crate::abi::ibv_device) -> Result<()> {
        let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
        lists
            .as_mut()
            .and_then(|m| m.remove(&(p as usize)))
            .map(drop)
            .ok_or(Errno::EINVAL)
    }
}

/// ibv_import_device: finds the device whose char device `cmd_fd` is open on
/// (EINVAL: not a character device; ENODEV: none of ours) and lets its
/// provider import the context (EOPNOTSUPP when it cannot, as rxe).
pub fn import(cmd_fd: std::ffi::c_int) -> Result<Arc<crate::context::Context>> {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: fstat fills our own struct; a bad fd is just an error.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(cmd_fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFCHR {
        return Err(Errno::EINVAL);
    }
    let devs = refresh().map_err(|_| Errno::ENODEV)?;
    let dev = devs
        .into_iter()
        .find(|d| d.sysfs.cdev == (libc::major(st.st_rdev), libc::minor(st.st_rdev)))
        .ok_or(Errno::ENODEV)?;
    // SAFETY: F_DUPFD_CLOEXEC on a descriptor we just checked.
    let dup = unsafe { libc::fcntl(cmd_fd, libc::F_DUPFD_CLOEXEC, 0) };
    if dup < 0 {
        return Err(Errno::last());
    }
    // SAFETY: `dup` is a new descriptor that nothing else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(dup) };
    dev.provider.import(&dev, owned)
}
