//! verbs_open_device's `private_data` reaches the plugin's alloc_context
//! unchanged (rdma-core 44's device.c passes it through; mlx5dv_open_device
//! hands its `mlx5dv_context_attr` this way), and ibv_open_device passes NULL.

use super::*;
use crate::driver_abi::v34::verbs_device_ops;
use crate::sysfs::SysfsDevice;
use std::sync::atomic::{AtomicUsize, Ordering};

static SEEN: AtomicUsize = AtomicUsize::new(usize::MAX);

/// A plugin's alloc_context that records its private data and fails.
unsafe extern "C" fn alloc_records(
    _dev: *mut ibv_device,
    cmd_fd: c_int,
    private_data: *mut c_void,
) -> *mut VerbsContext44 {
    SEEN.store(private_data as usize, Ordering::SeqCst);
    // SAFETY: the fd is ours to close on failure, as a plugin's is.
    unsafe {
        libc::close(cmd_fd);
        *libc::__errno_location() = libc::EPROTO;
    }
    std::ptr::null_mut()
}

fn fake_device() -> (Arc<Device>, NonNull<verbs_device>) {
    // SAFETY: plain C data; all-zero is valid.
    let mut ops: verbs_device_ops = unsafe { std::mem::zeroed() };
    ops.alloc_context = Some(alloc_records);
    // SAFETY: as above.
    let mut vd: verbs_device = unsafe { std::mem::zeroed() };
    vd.ops = Box::leak(Box::new(ops));
    let vdev = NonNull::from(Box::leak(Box::new(vd)));
    let sysfs = SysfsDevice {
        uverbs_name: "uverbs9".into(),
        uverbs_path: "/nonexistent/uverbs9".into(),
        ibdev_name: "fake0".into(),
        ibdev_path: "/nonexistent/fake0".into(),
        dev_path: "/dev/null".into(),
        cdev: (231, 9),
        abi_ver: 1,
        node_type: 1,
        node_guid: None,
        sys_image_guid: None,
        fw_ver: None,
        modalias: None,
        driver: None,
        time_created: None,
    };
    (Arc::new(Device::hosted(sysfs, vdev.cast())), vdev)
}

#[test]
fn private_data_reaches_alloc_context() {
    let (dev, vdev) = fake_device();
    let mut attr = [0u64; 4];
    let pd: *mut c_void = attr.as_mut_ptr().cast();
    let r = open(&dev, vdev, pd);
    assert_eq!(r.err(), Some(Errno(libc::EPROTO)), "the plugin's errno");
    assert_eq!(SEEN.load(Ordering::SeqCst), pd as usize);
    // ibv_open_device's path (the Provider trait's open) gives it NULL.
    let p = crate::providers::plugin::Plugin {
        // SAFETY: the fake device's ops, leaked above.
        ops: unsafe { &*vdev.as_ref().ops },
        name: "fake",
    };
    assert!(crate::provider::Provider::open(&p, &dev).is_err());
    assert_eq!(SEEN.load(Ordering::SeqCst), 0);
    assert!(crate::provider::Provider::open_private(&p, &dev, pd).is_err());
    assert_eq!(SEEN.load(Ordering::SeqCst), pd as usize);
}
