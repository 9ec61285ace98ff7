//! Device discovery and opening: ibv_get_device_list and friends.

use crate::abi::*;
use crate::context::Context;
use crate::device::{Device, DeviceList};
use crate::discovery;
use crate::entry::{Errno, arg_cstr};
use crate::object;
use std::ffi::{c_char, c_int};
use std::sync::Arc;
use std::sync::atomic::Ordering::SeqCst;

/// rdma-core's test of a switch variable: set, and not "0".
fn env_true(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v != "0")
}

/// What rdma-core's library init does at the first ibv_get_device_list:
/// RDMAV_FORK_SAFE or IBV_FORK_SAFE turn fork protection on (ibv_fork_init,
/// before any registration; a no-op where the kernel copies pinned pages at
/// fork, so the variables are then ignored), RDMAV_ALLOW_DISASSOC_DESTROY
/// (or mlx4's old MLX4_DEVICE_FATAL_CLEANUP) sets the flag hosted C
/// providers read.
fn library_init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if (env_true("RDMAV_FORK_SAFE") || env_true("IBV_FORK_SAFE"))
            && crate::fork::init(crate::netlink::copy_on_fork).is_err()
        {
            eprintln!("libibverbs: Warning: fork()-safety requested but init failed");
        }
        let disassoc =
            env_true("RDMAV_ALLOW_DISASSOC_DESTROY") || env_true("MLX4_DEVICE_FATAL_CLEANUP");
        super::driver::verbs_allow_disassociate_destroy.store(disassoc, SeqCst);
    });
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_get_device_list(num_devices: *mut c_int) -> *mut *mut ibv_device {
    // SAFETY: an optional out-parameter from the caller.
    let mut num = unsafe { num_devices.as_mut() };
    if let Some(n) = num.as_deref_mut() {
        *n = 0;
    }
    library_init();
    let devs = discovery::refresh()?;
    if let Some(n) = num {
        *n = devs.len() as c_int;
    }
    Ok(DeviceList::hand_out(&devs))
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_free_device_list(list: *mut *mut ibv_device) {
    // A list we did not hand out is left alone rather than freed.
    let _ = DeviceList::give_back(list);
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_get_device_name(device: *mut ibv_device) -> *const c_char {
    let dev = object::lookup::<Device>(device)?;
    Ok(dev.c().name.as_ptr())
}

#[unsafe(no_mangle)]
#[entry(value(0))]
pub unsafe extern "C" fn ibv_get_device_guid(device: *mut ibv_device) -> __be64 {
    object::lookup::<Device>(device)
        .ok()
        .and_then(|d| d.sysfs.node_guid)
        .map_or(0, u64::to_be)
}

#[unsafe(no_mangle)]
#[entry(value(-1))]
pub unsafe extern "C" fn ibv_get_device_index(device: *mut ibv_device) -> c_int {
    object::lookup::<Device>(device)
        .ok()
        .and_then(|d| crate::netlink::device_index(&d.sysfs.ibdev_name))
        .and_then(|i| c_int::try_from(i).ok())
        .unwrap_or(-1)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_open_device(device: *mut ibv_device) -> *mut ibv_context {
    let dev = object::lookup::<Device>(device)?;
    let ctx = discovery::open(&dev)?;
    Ok(object::publish(ctx))
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_import_device(cmd_fd: c_int) -> *mut ibv_context {
    if cmd_fd < 0 {
        return Err(Errno::EINVAL);
    }
    let ctx = discovery::import(cmd_fd)?;
    Ok(object::publish(ctx))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_close_device(context: *mut ibv_context) -> c_int {
    let ctx: Arc<Context> = object::retire::<Context>(context)?;
    crate::context::close(ctx)
}

/// The sysfs root rdma-core uses ("/sys" unless SYSFS_PATH says otherwise).
#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_get_sysfs_path() -> *const c_char {
    Ok(crate::sysfs::sysfs_path_c().as_ptr())
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_read_sysfs_file(
    dir: *const c_char,
    file: *const c_char,
    buf: *mut c_char,
    size: usize,
) -> c_int {
    // SAFETY: C strings from the caller.
    let (dir, file) = unsafe { (arg_cstr(dir)?, arg_cstr(file)?) };
    if buf.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller gives `size` writable bytes at `buf`.
    let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) };
    let path = std::path::Path::new(dir).join(file);
    let n = crate::sysfs::read_sysfs_file_buf(&path, out)?;
    Ok(n as c_int)
}
