//! The IBVERBS_1.0 entry points (libibverbs before 1.1, 2006), which took
//! different object layouts. Binaries that old are not supported: each entry
//! point fails cleanly with ENOSYS instead of misreading memory.
//! (Only programs linked against libibverbs 1.0 resolve to these.)
// Their only user is lib.rs's `.symver` asm, absent from unit-test builds.
#![cfg_attr(test, allow(dead_code))]

use std::ffi::{c_int, c_void};

const GONE: crate::entry::Errno = crate::entry::Errno::ENOSYS;

macro_rules! compat_1_0 {
    (ptr $($name:ident),*) => {$(
        #[entry(ptr)]
        pub extern "C" fn $name(_a: *mut c_void, _b: *mut c_void) -> *mut c_void {
            Err::<*mut c_void, _>(GONE)
        }
    )*};
    (errno $($name:ident),*) => {$(
        #[entry(errno)]
        pub extern "C" fn $name(_a: *mut c_void, _b: *mut c_void) -> c_int {
            Err(GONE)
        }
    )*};
    (minus_one $($name:ident),*) => {$(
        #[entry(minus_one)]
        pub extern "C" fn $name(_a: *mut c_void, _b: *mut c_void) -> c_int {
            Err(GONE)
        }
    )*};
    (void $($name:ident),*) => {$(
        #[entry(value(()))]
        pub extern "C" fn $name(_a: *mut c_void, _b: *mut c_void) {
            crate::entry::set_errno(GONE)
        }
    )*};
}

compat_1_0!(ptr ibv_get_device_list_1_0, ibv_get_device_name_1_0, ibv_open_device_1_0,
    ibv_alloc_pd_1_0, ibv_reg_mr_1_0, ibv_create_cq_1_0, ibv_create_srq_1_0, ibv_create_qp_1_0,
    ibv_create_ah_1_0);
compat_1_0!(errno ibv_close_device_1_0, ibv_query_device_1_0, ibv_query_port_1_0,
    ibv_dealloc_pd_1_0, ibv_dereg_mr_1_0, ibv_resize_cq_1_0, ibv_destroy_cq_1_0,
    ibv_modify_srq_1_0, ibv_query_srq_1_0, ibv_destroy_srq_1_0, ibv_query_qp_1_0,
    ibv_modify_qp_1_0, ibv_destroy_qp_1_0, ibv_destroy_ah_1_0, ibv_attach_mcast_1_0,
    ibv_detach_mcast_1_0);
compat_1_0!(minus_one ibv_get_async_event_1_0, ibv_query_gid_1_0, ibv_query_pkey_1_0,
    ibv_get_cq_event_1_0);
compat_1_0!(void ibv_free_device_list_1_0, ibv_ack_async_event_1_0, ibv_ack_cq_events_1_0);

#[entry(value(0))]
pub extern "C" fn ibv_get_device_guid_1_0(_dev: *mut c_void) -> u64 {
    crate::entry::set_errno(GONE);
    0
}

/// ibv_register_driver@IBVERBS_1.1: the pre-rdma-core-13 way for a provider
/// to register. Providers are built in now; old callers only used it to
/// silence a warning, so it does nothing, as in rdma-core.
#[entry(value(()))]
pub extern "C" fn ibv_register_driver_1_1(_name: *const c_void, _init: *mut c_void) {}
