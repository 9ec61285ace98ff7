//! rdma-core's provider-driver interface (IBVERBS_PRIVATE_34): the functions
//! its C providers (libmlx5, libefa, ...) call into libibverbs. Our providers
//! are built in, so no such provider ever gets a context from us; but programs
//! such as perftest link the providers' direct-verbs libraries, which need
//! these symbols to load. Each fails cleanly with ENOSYS if ever called.
//! Not declared in verbs.h.

use crate::driver_abi::v34::verbs_device_ops;
use crate::entry::{Errno, set_errno};
use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::AtomicBool;

const NO_DRIVERS: Errno = Errno::ENOSYS;

macro_rules! driver_api {
    (errno $($name:ident),* $(,)?) => {$(
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(_a: usize, _b: usize, _c: usize, _d: usize, _e: usize, _f: usize) -> c_int {
            entry!(errno, $name() { Err(NO_DRIVERS) })
        }
    )*};
    (ptr $($name:ident),* $(,)?) => {$(
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(_a: usize, _b: usize, _c: usize, _d: usize, _e: usize, _f: usize) -> *mut c_void {
            entry!(ptr, $name() { Err::<*mut c_void, _>(NO_DRIVERS) })
        }
    )*};
    (void $($name:ident),* $(,)?) => {$(
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(_a: usize, _b: usize, _c: usize, _d: usize, _e: usize, _f: usize) {
            entry!(value(()), $name() { set_errno(NO_DRIVERS) })
        }
    )*};
}

driver_api!(errno
    execute_ioctl, ibv_cmd_advise_mr, ibv_cmd_alloc_dm, ibv_cmd_alloc_mw, ibv_cmd_alloc_pd,
    ibv_cmd_attach_mcast, ibv_cmd_close_xrcd, ibv_cmd_create_ah, ibv_cmd_create_counters,
    ibv_cmd_create_cq, ibv_cmd_create_cq_ex, ibv_cmd_create_flow, ibv_cmd_create_flow_action_esp,
    ibv_cmd_create_qp, ibv_cmd_create_qp_ex, ibv_cmd_create_qp_ex2, ibv_cmd_create_rwq_ind_table,
    ibv_cmd_create_srq, ibv_cmd_create_srq_ex, ibv_cmd_create_wq, ibv_cmd_dealloc_mw,
    ibv_cmd_dealloc_pd, ibv_cmd_dereg_mr, ibv_cmd_destroy_ah, ibv_cmd_destroy_counters,
    ibv_cmd_destroy_cq, ibv_cmd_destroy_flow, ibv_cmd_destroy_flow_action, ibv_cmd_destroy_qp,
    ibv_cmd_destroy_rwq_ind_table, ibv_cmd_destroy_srq, ibv_cmd_destroy_wq, ibv_cmd_detach_mcast,
    ibv_cmd_free_dm, ibv_cmd_get_context, ibv_cmd_modify_cq, ibv_cmd_modify_flow_action_esp,
    ibv_cmd_modify_qp, ibv_cmd_modify_qp_ex, ibv_cmd_modify_srq, ibv_cmd_modify_wq, ibv_cmd_open_qp,
    ibv_cmd_open_xrcd, ibv_cmd_poll_cq, ibv_cmd_post_recv, ibv_cmd_post_send, ibv_cmd_post_srq_recv,
    ibv_cmd_query_context, ibv_cmd_query_device_any, ibv_cmd_query_mr, ibv_cmd_query_port,
    ibv_cmd_query_qp, ibv_cmd_query_srq, ibv_cmd_read_counters, ibv_cmd_reg_dm_mr,
    ibv_cmd_reg_dmabuf_mr, ibv_cmd_reg_mr, ibv_cmd_req_notify_cq, ibv_cmd_rereg_mr,
    ibv_cmd_resize_cq,
);
driver_api!(ptr _verbs_init_and_alloc_context, verbs_open_device);
driver_api!(void __verbs_log, verbs_init_cq, verbs_set_ops, verbs_uninit_context);

/// A plugin's constructor registers its ops table (PROVIDER_DRIVER in
/// driver.h); devices are matched against it when the device list is read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn verbs_register_driver_34(ops: *const verbs_device_ops) {
    entry!(value(()), verbs_register_driver_34(ops) {
        // SAFETY: a plugin's static ops table, which lives as long as the
        // plugin stays loaded (for good: plugins are never unloaded).
        if let Some(ops) = unsafe { ops.as_ref() } {
            crate::providers::plugin::load::register(ops);
        }
    })
}

/// Reads a file of a device's sysfs directory: -1 with errno, as no device of
/// a C provider exists here.
#[unsafe(no_mangle)]
pub extern "C" fn ibv_read_ibdev_sysfs_file(
    _buf: usize,
    _size: usize,
    _dev: usize,
    _fnfmt: usize,
) -> c_int {
    entry!(minus_one, ibv_read_ibdev_sysfs_file() { Err(NO_DRIVERS) })
}

/// The attribute count of an ioctl command buffer chain; providers size a
/// buffer with it, so it must be right even though execute_ioctl then fails.
/// Layout of rdma-core's `struct ibv_command_buffer`: `next` at 0, `next_attr`
/// at 8, the header's attribute array at 56, 16-byte attributes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __ioctl_final_num_attrs(num_attrs: c_uint, link: *const c_void) -> c_uint {
    entry!(value(num_attrs), __ioctl_final_num_attrs(num_attrs, link) {
        let mut n = num_attrs;
        let mut p = link.cast::<u8>();
        while !p.is_null() {
            // SAFETY: a chain of command buffers built by the caller, per the
            // layout above.
            let (next, next_attr) = unsafe {
                (p.cast::<*const u8>().read(), p.add(8).cast::<*const u8>().read())
            };
            let used = (next_attr as usize).saturating_sub(p as usize + 56) / 16;
            n = n.saturating_add(used as c_uint);
            p = next;
        }
        n
    })
}

/// Set by rdma-core from RDMAV_ALLOW_DISASSOC_DESTROY; C providers read it.
#[unsafe(no_mangle)]
pub static verbs_allow_disassociate_destroy: AtomicBool = AtomicBool::new(false);
