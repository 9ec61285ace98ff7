//! Devices: what ibv_get_device_list finds and ibv_open_device opens.
#![allow(unsafe_code)]

mod list;

pub(crate) use list::DeviceList;

use crate::abi::{ibv_device, ibv_node_type, ibv_transport_type};
use crate::object::CObject;
use crate::sysfs::SysfsDevice;
use std::cell::UnsafeCell;
use std::ffi::c_char;
use std::ptr::NonNull;

/// `repr(C)` with the C struct first and a NULL where rdma-core's
/// `struct verbs_device` keeps its provider ops: rdma-core's direct-verbs
/// libraries (libmlx5, ...) compare that pointer to tell their own devices.
#[repr(C)]
pub(crate) struct Device {
    c: UnsafeCell<ibv_device>,
    driver_ops: *const std::ffi::c_void,
    pub sysfs: SysfsDevice,
    /// `sysfs.dev_path` as a C string, made once: every open is one open(2).
    dev_path_c: std::ffi::CString,
    /// The port count netlink reports (0: none), read once when first needed.
    pub num_ports: std::sync::OnceLock<u32>,
    /// A hosted plugin's device: the `ibv_device` at the head of the
    /// `verbs_device` the plugin allocated, which C holds instead of `c`.
    hosted: Option<NonNull<ibv_device>>,
}

// SAFETY: the C struct is written only in `new`, before the device is published;
// afterwards C and Rust only read it.
unsafe impl Sync for Device {}
// SAFETY: as above; nothing in it is tied to a thread.
unsafe impl Send for Device {}

impl CObject for Device {
    type C = ibv_device;
    fn c_ptr(&self) -> *mut ibv_device {
        match self.hosted {
            Some(p) => p.as_ptr(),
            None => self.c.get(),
        }
    }
}

/// Copies `s` into a C char array, truncated and NUL-terminated.
pub(crate) fn copy_c_str(dst: &mut [c_char], s: &str) {
    let n = s.len().min(dst.len().saturating_sub(1));
    for (d, b) in dst.iter_mut().zip(&s.as_bytes()[..n]) {
        *d = *b as c_char;
    }
    if let Some(end) = dst.get_mut(n) {
        *end = 0;
    }
}

fn transport_of(node_type: i32) -> ibv_transport_type {
    match ibv_node_type(node_type) {
        ibv_node_type::IBV_NODE_CA
        | ibv_node_type::IBV_NODE_SWITCH
        | ibv_node_type::IBV_NODE_ROUTER => ibv_transport_type::IBV_TRANSPORT_IB,
        ibv_node_type::IBV_NODE_RNIC => ibv_transport_type::IBV_TRANSPORT_IWARP,
        ibv_node_type::IBV_NODE_USNIC => ibv_transport_type::IBV_TRANSPORT_USNIC,
        ibv_node_type::IBV_NODE_USNIC_UDP => ibv_transport_type::IBV_TRANSPORT_USNIC_UDP,
        ibv_node_type::IBV_NODE_UNSPECIFIED => ibv_transport_type::IBV_TRANSPORT_UNSPECIFIED,
        _ => ibv_transport_type::IBV_TRANSPORT_UNKNOWN,
    }
}

impl Device {
    /// The ibv_device fields rdma-core's core fills from sysfs.
    pub(crate) fn c_fields(sysfs: &SysfsDevice) -> ibv_device {
        // SAFETY: ibv_device is plain C data; all-zero is a valid value.
        let mut c: ibv_device = unsafe { std::mem::zeroed() };
        c.node_type = ibv_node_type(sysfs.node_type);
        c.transport_type = transport_of(sysfs.node_type);
        copy_c_str(&mut c.name, &sysfs.ibdev_name);
        copy_c_str(&mut c.dev_name, &sysfs.uverbs_name);
        copy_c_str(&mut c.dev_path, &sysfs.uverbs_path.to_string_lossy());
        copy_c_str(&mut c.ibdev_path, &sysfs.ibdev_path.to_string_lossy());
        c
    }

    pub(crate) fn new(sysfs: SysfsDevice) -> Device {
        Device {
            c: UnsafeCell::new(Self::c_fields(&sysfs)),
            driver_ops: std::ptr::null(),
            dev_path_c: {
                use std::os::unix::ffi::OsStrExt;
                // A path read from the filesystem has no NUL; an empty one
                // fails to open (ENOENT).
                std::ffi::CString::new(sysfs.dev_path.as_os_str().as_bytes()).unwrap_or_default()
            },
            sysfs,
            num_ports: std::sync::OnceLock::new(),
            hosted: None,
        }
    }

    /// A device a hosted plugin allocated: `c` is the `ibv_device` at the
    /// head of its `verbs_device`, already filled in.
    pub(crate) fn hosted(sysfs: SysfsDevice, c: NonNull<ibv_device>) -> Device {
        Device {
            hosted: Some(c),
            ..Self::new(sysfs)
        }
    }

    /// Opens the uverbs char device read-write and close-on-exec, as
    /// rdma-core does: a fresh command fd.
    pub(crate) fn open_uverbs(&self) -> crate::entry::Result<std::os::fd::OwnedFd> {
        use std::os::fd::FromRawFd;
        // SAFETY: a NUL-terminated path; the fd returned is ours alone.
        match unsafe { libc::open(self.dev_path_c.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) } {
            -1 => Err(crate::entry::Errno::last()),
            // SAFETY: as above.
            fd => Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }),
        }
    }

    /// The plugin's device, for a hosted one.
    pub(crate) fn hosted_c(&self) -> Option<NonNull<ibv_device>> {
        self.hosted
    }

    /// The ibv_device C sees; never written after construction.
    pub(crate) fn c(&self) -> &ibv_device {
        // SAFETY: see the Sync impl: no writes after construction (a hosted
        // plugin's device is filled before it is published).
        unsafe { &*self.c_ptr() }
    }

    /// Same kernel device as `other` (same name, char device and creation time).
    pub(crate) fn same_as(&self, other: &SysfsDevice) -> bool {
        let s = &self.sysfs;
        s.ibdev_name == other.ibdev_name
            && s.uverbs_name == other.uverbs_name
            && s.cdev == other.cdev
            && s.time_created == other.time_created
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_strings_truncate() {
        let mut a = [1 as c_char; 4];
        copy_c_str(&mut a, "abcdef");
        assert_eq!(a, [b'a' as c_char, b'b' as c_char, b'c' as c_char, 0]);
        copy_c_str(&mut a, "x");
        assert_eq!(&a[..2], &[b'x' as c_char, 0]);
    }

    /// The uverbs path opens read-write; a missing one is the open's errno.
    #[test]
    fn open_uverbs_opens_the_dev_path() {
        let dev = |p: &str| Device::new(SysfsDevice::fake(p));
        let fd = dev("/dev/null").open_uverbs().expect("opens");
        // SAFETY: a plain fcntl on our fd.
        let fl = unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&fd), libc::F_GETFL) };
        assert_eq!(fl & libc::O_ACCMODE, libc::O_RDWR);
        assert_eq!(
            dev("/nonexistent/uverbs9").open_uverbs().err(),
            Some(crate::entry::Errno(libc::ENOENT))
        );
    }
}
