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
    let sysfs = SysfsDevice::fake("/dev/null");
    (Arc::new(Device::hosted(sysfs, vdev.cast())), vdev)
}

#[test]
fn private_data_reaches_alloc_context() {
    let (dev, vdev) = fake_device();
    let mut attr = [0u64; 4];
    let pd: *mut c_void = attr.as_mut_ptr().cast();
    let r = open(&dev, vdev, pd, |_| {
        unreachable!("alloc_context fails first")
    });
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

unsafe extern "C" fn pd_a(_: *mut ibv_context) -> *mut ibv_pd {
    std::ptr::null_mut()
}
unsafe extern "C" fn pd_b(_: *mut ibv_context) -> *mut ibv_pd {
    std::ptr::dangling_mut()
}
unsafe extern "C" fn dealloc(_: *mut ibv_pd) -> c_int {
    0
}
unsafe extern "C" fn poll(_: *mut ibv_cq, _: c_int, _: *mut ibv_wc) -> c_int {
    0
}
unsafe extern "C" fn qp_ex(_: *mut ibv_context, _: *mut ibv_qp_init_attr_ex) -> *mut ibv_qp {
    std::ptr::null_mut()
}

/// verbs_set_ops after the context is opened is accepted, as in rdma-core
/// 44: the verbs read the merged table from then on (the one they read
/// before stays valid), the public data-path and compat slots change, the
/// library's own slots and the rest of the context do not.
#[test]
#[allow(unsafe_code)]
fn set_ops_after_open() {
    // SAFETY: plain C data; all-zero is valid.
    let v: &mut VerbsContext44 = Box::leak(Box::new(unsafe { std::mem::zeroed() }));
    let vctx: *mut VerbsContext44 = v;
    // SAFETY: our context, alive for good.
    let key = unsafe { &raw mut (*vctx).context } as usize;
    let (dev, _) = fake_device();
    let p = Priv::new(1, &crate::driver_abi::V34, dev, None);
    HOSTED
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .push((key, p.clone()));
    let first = verbs_context_ops {
        alloc_pd: Some(pd_a),
        dealloc_pd: Some(dealloc),
        create_qp_ex: Some(qp_ex),
        ..Default::default()
    };
    // SAFETY: a hosted context being set up.
    unsafe { set_ops(vctx, &first) }.expect("set-up");
    // The slots are in the v34 layout's places (written in place).
    // SAFETY: as above.
    unsafe {
        let c = &(*vctx).context;
        assert_eq!(
            c.ops._compat_alloc_pd.map(|f| f as usize),
            Some(pd_a as *const () as usize)
        );
        let qx = v34::with_ours(vctx, |o| o.create_qp_ex);
        assert_eq!(qx.map(|f| f as usize), Some(qp_ex as *const () as usize));
    }
    // SAFETY: as above.
    unsafe {
        set_lib_ops(vctx.cast());
        (*vctx).context.cmd_fd = 7;
    }
    // SAFETY: as above.
    let lib_qp_ex = unsafe { v34::with_ours(vctx, |o| o.create_qp_ex) };
    p.seal();
    let before = p.ops();
    assert_eq!(
        before.alloc_pd.map(|f| f as usize),
        Some(pd_a as *const () as usize)
    );

    let later = verbs_context_ops {
        alloc_pd: Some(pd_b),
        poll_cq: Some(poll),
        create_qp_ex: Some(qp_ex),
        ..Default::default()
    };
    // SAFETY: an opened hosted context.
    unsafe { set_ops(vctx, &later) }.expect("accepted after the open");
    let now = p.ops();
    assert_eq!(
        now.alloc_pd.map(|f| f as usize),
        Some(pd_b as *const () as usize)
    );
    assert_eq!(
        now.dealloc_pd.map(|f| f as usize),
        Some(dealloc as *const () as usize),
        "merged"
    );
    assert_eq!(
        now.create_qp_ex.map(|f| f as usize),
        Some(qp_ex as *const () as usize)
    );
    assert_eq!(
        before.alloc_pd.map(|f| f as usize),
        Some(pd_a as *const () as usize),
        "still valid"
    );
    // SAFETY: our context; no other thread uses it.
    unsafe {
        let c = &(*vctx).context;
        assert_eq!(
            c.ops._compat_alloc_pd.map(|f| f as usize),
            Some(pd_b as *const () as usize)
        );
        assert_eq!(
            c.ops.poll_cq.map(|f| f as usize),
            Some(poll as *const () as usize)
        );
        assert_eq!(c.cmd_fd, 7, "the rest untouched");
        let qx = v34::with_ours(vctx, |o| o.create_qp_ex);
        assert_eq!(
            qx.map(|f| f as usize),
            lib_qp_ex.map(|f| f as usize),
            "ours"
        );
        uninit_context(vctx);
    }
    assert!(priv_of(key as *const ibv_context).is_err());
}
