//! Discovery: which devices the system has and which provider serves each
//! (ibv_get_device_list, ibv_open_device, ibv_import_device). Above both the
//! devices and the providers, so that neither imports the other.
#![allow(unsafe_code)]

mod served;

use crate::context::Context;
use crate::device::Device;
use crate::entry::{Errno, Result};
use crate::netlink::NlDevice;
use crate::object;
use crate::provider::Provider;
use crate::sysfs::{self, SysfsDevice};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

/// A device and the provider that serves it.
#[derive(Clone)]
struct Found {
    dev: Arc<Device>,
    provider: &'static dyn Provider,
}

/// The devices of the last refresh.
static DEVICES: Mutex<Vec<Found>> = Mutex::new(Vec::new());
/// Every device ever found: C may hold a device after it disappeared, and
/// opening it then still goes to its provider (which fails cleanly).
static KNOWN: Mutex<Vec<Found>> = Mutex::new(Vec::new());

fn devices() -> MutexGuard<'static, Vec<Found>> {
    DEVICES.lock().unwrap_or_else(|p| p.into_inner())
}

fn known() -> MutexGuard<'static, Vec<Found>> {
    KNOWN.lock().unwrap_or_else(|p| p.into_inner())
}

/// ibv_open_device: a new context on `dev`, from the provider that serves it.
pub(crate) fn open(dev: &Arc<Device>) -> Result<Arc<Context>> {
    open_private(dev, std::ptr::null_mut())
}

/// verbs_open_device: [`open`] with the provider's private data.
pub(crate) fn open_private(
    dev: &Arc<Device>,
    private_data: *mut std::ffi::c_void,
) -> Result<Arc<Context>> {
    let provider = known()
        .iter()
        .find(|f| Arc::ptr_eq(&f.dev, dev))
        .map(|f| f.provider)
        .ok_or(Errno::ENODEV)?;
    provider.open_private(dev, private_data)
}

/// Re-reads sysfs: keeps the devices still there, adds new ones that a provider
/// claims. When the sysfs root has no uverbs class (`SYSFS_PATH` names a missing
/// or empty directory), the devices come from netlink alone, as rdma-core's
/// netlink-first discovery finds them; with neither, ENOSYS, as in rdma-core.
pub(crate) fn refresh() -> Result<Vec<Arc<Device>>> {
    let nl = crate::netlink::devices();
    let found = if sysfs::sysfs_path().join("class/infiniband_verbs").is_dir() {
        sysfs::find_devices()?
    } else {
        let nl = nl.as_ref().map_err(|_| Errno::ENOSYS)?;
        from_netlink(sysfs::sysfs_path(), Path::new(sysfs::RDMA_CDEV_DIR), nl)
    };
    // Driver ids come from netlink when the kernel has it; sysfs has none.
    let ids: HashMap<String, u32> = nl
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
        if let Some(old) = list.iter().find(|d| d.dev.same_as(&dev)) {
            next.push(old.clone());
            continue;
        }
        match served::device_for(&dev, ids.get(&dev.ibdev_name).copied()) {
            Some((d, provider)) => {
                let dev = Arc::new(d);
                object::publish(dev.clone());
                let found = Found { dev, provider };
                known().push(found.clone());
                next.push(found);
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
    Ok(next.into_iter().map(|f| f.dev).collect())
}

/// The devices netlink reported with a uverbs char device, described as
/// sysfs would describe them, for a sysfs root without the uverbs class:
/// the paths are built under `root` as rdma-core builds them (they need not
/// exist), the rest comes from netlink. A device whose char device node is
/// missing from `cdev_dir` is skipped, as in `sysfs::find_devices_in`.
pub(crate) fn from_netlink(root: &Path, cdev_dir: &Path, nl: &[NlDevice]) -> Vec<SysfsDevice> {
    let mut devs: Vec<SysfsDevice> = nl
        .iter()
        .filter_map(|d| {
            let uv = d.uverbs.as_ref()?;
            let dev_path = cdev_dir.join(&uv.name);
            std::fs::metadata(&dev_path).ok()?;
            Some(SysfsDevice {
                uverbs_name: uv.name.clone(),
                uverbs_path: root.join("class/infiniband_verbs").join(&uv.name),
                ibdev_name: d.name.clone(),
                ibdev_path: root.join("class/infiniband").join(&d.name),
                dev_path,
                cdev: uv.cdev,
                abi_ver: uv.abi_ver,
                node_type: d.node_type,
                node_guid: Some(d.node_guid),
                sys_image_guid: d.sys_image_guid,
                fw_ver: d.fw_version.clone(),
                modalias: None,
                driver: None,
                time_created: None,
            })
        })
        .collect();
    devs.sort_by(|a, b| a.uverbs_name.cmp(&b.uverbs_name));
    devs
}

/// ibv_import_device: finds the device whose char device `cmd_fd` is open on
/// (EINVAL: not a character device; ENODEV: none of ours) and lets its
/// provider import the context (EOPNOTSUPP when it cannot, as rxe).
pub(crate) fn import(cmd_fd: std::ffi::c_int) -> Result<Arc<crate::context::Context>> {
    use nix::fcntl::{FcntlArg, fcntl};
    use nix::sys::stat::{SFlag, fstat, major, minor};
    use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd};
    if cmd_fd < 0 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's descriptor, used only during this call; one that is
    // not open is an error (EBADF) of the calls below, not a memory error.
    let fd = unsafe { BorrowedFd::borrow_raw(cmd_fd) };
    let st = fstat(fd).map_err(|_| Errno::EINVAL)?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFCHR {
        return Err(Errno::EINVAL);
    }
    refresh().map_err(|_| Errno::ENODEV)?;
    let found = devices().clone();
    let found = found
        .into_iter()
        .find(|f| {
            let (ma, mi) = f.dev.sysfs.cdev;
            (u64::from(ma), u64::from(mi)) == (major(st.st_rdev), minor(st.st_rdev))
        })
        .ok_or(Errno::ENODEV)?;
    let dup = fcntl(fd, FcntlArg::F_DUPFD_CLOEXEC(0))?;
    // SAFETY: `dup` is a new descriptor that nothing else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(dup) };
    found.provider.import(&found.dev, owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netlink::NlUverbs;

    fn nl(name: &str, uverbs: Option<&str>) -> NlDevice {
        NlDevice {
            index: 3,
            name: name.into(),
            node_type: 1,
            node_guid: 0x0011_2233_4455_6677,
            sys_image_guid: Some(7),
            fw_version: Some("1.0".into()),
            protocol: Some("roce".into()),
            num_ports: 1,
            uverbs: uverbs.map(|u| NlUverbs {
                name: u.into(),
                cdev: (231, 192),
                abi_ver: 1,
                driver_id: 14,
            }),
        }
    }

    /// SYSFS_PATH naming a missing directory: the devices come from netlink,
    /// with rdma-core's paths under the given root; a device without a uverbs
    /// char device (or without its node in /dev) is left out.
    #[test]
    fn netlink_devices_without_sysfs() {
        let cdev = std::env::temp_dir().join(format!("ibv-nl-cdev-{}", std::process::id()));
        std::fs::create_dir_all(&cdev).unwrap();
        std::fs::write(cdev.join("uverbs1"), b"").unwrap();
        let root = Path::new("/nonexistent");
        let devs = from_netlink(
            root,
            &cdev,
            &[
                nl("rxe1", Some("uverbs1")),
                nl("rxe0", Some("uverbs0")),
                nl("mlx0", None),
            ],
        );
        std::fs::remove_dir_all(&cdev).unwrap();
        assert_eq!(devs.len(), 1);
        let d = &devs[0];
        assert_eq!(
            (d.ibdev_name.as_str(), d.uverbs_name.as_str()),
            ("rxe1", "uverbs1")
        );
        assert_eq!(
            d.ibdev_path,
            Path::new("/nonexistent/class/infiniband/rxe1")
        );
        assert_eq!(
            d.uverbs_path,
            Path::new("/nonexistent/class/infiniband_verbs/uverbs1")
        );
        assert_eq!(d.dev_path, cdev.join("uverbs1"));
        assert_eq!((d.cdev, d.abi_ver, d.node_type), ((231, 192), 1, 1));
        assert_eq!(d.node_guid, Some(0x0011_2233_4455_6677));
        assert_eq!(d.fw_ver.as_deref(), Some("1.0"));
        // rxe claims it by netlink's driver id, as in rdma-core.
        assert!(served::for_device(d, Some(14)).is_some());
    }
}
