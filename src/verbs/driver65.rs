//! The entry points of IBVERBS_PRIVATE_65 whose meaning differs from 34's:
//! rdma-core 65's plugins (`lib<name>-rdmav65.so`) call these, built
//! against its `driver.h`. Each converts what the version's row
//! ([`crate::driver_abi::V65`]) says differs, then runs the v34 code: a
//! plugin's `verbs_context` is seen from its v34 part on, its op table is
//! read by slot name, and a `verbs_qp`'s `comp_mask` and `xrcd` are moved to
//! where 65 has them. The names that kept 34's meaning are plain rows of
//! src/exports.txt. Not declared in verbs.h.
// Reached only through build.rs's `.symver` paths, which test builds leave out.
#![cfg_attr(test, allow(dead_code))]

use super::driver::cmd_api;
use crate::abi::*;
use crate::driver_abi::V65;
use crate::driver_abi::v34::{self, verbs_context as VerbsContext44, verbs_cq, verbs_device_ops};
use crate::driver_abi::v65::{verbs_create_cq_prov_attr, verbs_dmah};
use crate::entry::Errno;
use crate::providers::plugin::cmd::comp_cntr::{Entry, Op};
use crate::providers::plugin::cmd::{Arg, Bufs, comp_cntr, cq, device, dmabuf, dmah, mr, qp};
use crate::providers::plugin::context;
use std::ffi::{c_int, c_void};

/// The v34 part of a 65 plugin's `verbs_context` (NULL stays NULL).
fn v34_part(vctx: *mut c_void) -> *mut VerbsContext44 {
    if vctx.is_null() {
        return std::ptr::null_mut();
    }
    vctx.cast::<u8>().wrapping_add(V65.context_growth).cast()
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn verbs_register_driver_65(ops: *const verbs_device_ops) {
    crate::providers::plugin::log::init_verbs_log();
    // SAFETY: a plugin's static ops table, for good (plugins stay loaded).
    if let Some(ops) = unsafe { ops.as_ref() } {
        crate::providers::plugin::registry::register(ops, &V65);
    }
}

#[entry(ptr)]
pub unsafe extern "C" fn _verbs_init_and_alloc_context_65(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut c_void,
    driver_id: u32,
) -> *mut c_void {
    // SAFETY: per driver.h; the fd is ours to close on failure.
    unsafe {
        super::driver::init_and_alloc(
            device,
            cmd_fd,
            alloc_size,
            context_offset as usize,
            driver_id,
            &V65,
        )
    }
}

#[entry(value(()))]
pub unsafe extern "C" fn verbs_uninit_context_65(context_ex: *mut c_void) {
    // SAFETY: the plugin's context, per driver.h.
    unsafe { context::uninit_context(v34_part(context_ex)) }
}

#[entry(value(()))]
pub unsafe extern "C" fn verbs_set_ops_65(vctx: *mut c_void, ops: *const c_void) {
    if vctx.is_null() || ops.is_null() {
        return;
    }
    // SAFETY: the plugin's (static) op table of 65's layout.
    let (all, ops) = unsafe {
        (
            ops.cast::<crate::driver_abi::v65::verbs_context_ops>()
                .read(),
            V65.ops_to_v34(ops),
        )
    };
    // SAFETY: a hosted context, set up or opened (checked inside).
    let _ = unsafe { context::set_ops(v34_part(vctx), &ops) };
    // SAFETY: as above; 65's own slots are kept beside the v34 table.
    let _ = unsafe { context::set_ops65(v34_part(vctx), &all) };
}

/// `fd_arr` (fds the kernel should take with the context) is not passed
/// yet: a non-empty one is EOPNOTSUPP rather than dropped.
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_get_context_65(
    vctx: *mut c_void,
    cmd: *mut c_void,
    cmd_size: usize,
    fd_arr: *mut ibv_fd_arr,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    // SAFETY: the plugin's array, if any.
    if unsafe { fd_arr.as_ref() }.is_some_and(|a| a.count != 0) {
        return Err(Errno::EOPNOTSUPP);
    }
    // SAFETY: the plugin's buffers, per driver.h.
    device::get_context(v34_part(vctx), unsafe {
        Bufs::new(cmd, cmd_size, resp, resp_size)
    })
}

cmd_api!(versioned ibv_cmd_create_cq_ex_65 => cq::create_cq_ex_65(ctx: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex, prov_attr: *mut verbs_create_cq_prov_attr, cq: *mut verbs_cq; bufs, cmd_flags: u32));
cmd_api!(versioned ibv_cmd_create_cq_ex2_65 => cq::create_cq_ex2_65(ctx: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex, prov_attr: *mut verbs_create_cq_prov_attr, cq: *mut verbs_cq; bufs, cmd_flags: u32, driver: *mut v34::ibv_command_buffer));

/// A driver command buffer (`driver`) is not passed yet: EOPNOTSUPP.
#[allow(clippy::too_many_arguments)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex2_65(
    ctx: *mut ibv_context,
    qp: *mut c_void,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    driver: *mut c_void,
) -> c_int {
    if !driver.is_null() {
        return Err(Errno::EOPNOTSUPP);
    }
    // SAFETY: the plugin's objects and buffers, per driver.h.
    unsafe {
        super::driver::on_qp(qp, &V65, |q| {
            let (q, a) = (Arg::from_c(q)?, Arg::from_c(qp_attr)?);
            qp::create_qp_ex2(ctx, q, a, Bufs::new(cmd, cmd_size, resp, resp_size))
        })
    }
}

/// A driver command buffer (`driver`) is not passed yet: EOPNOTSUPP.
#[allow(clippy::too_many_arguments)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_reg_dmabuf_mr_65(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
    vmr: *mut v34::verbs_mr,
    driver: *mut c_void,
) -> c_int {
    if !driver.is_null() {
        return Err(Errno::EOPNOTSUPP);
    }
    // SAFETY: the plugin's objects, per driver.h.
    unsafe {
        mr::reg_dmabuf_mr(
            pd,
            offset,
            length,
            iova,
            fd,
            access,
            vmr,
            std::ptr::null_mut(),
        )
    }
}

cmd_api!(ibv_cmd_alloc_dmah => dmah::alloc_dmah(ctx: *mut ibv_context, dmah: *mut verbs_dmah, attr: *mut ibv_dmah_init_attr));
cmd_api!(ibv_cmd_free_dmah => dmah::free_dmah(dmah: *mut verbs_dmah));
cmd_api!(ibv_cmd_query_port_speed => device::query_port_speed(context: *mut ibv_context, port_num: u32, speed: *mut u64));
cmd_api!(ibv_cmd_query_comp_cntr_caps => device::query_comp_cntr_caps(context: *mut ibv_context, caps: *mut ibv_comp_cntr_caps, caps_size: usize));
cmd_api!(ibv_cmd_create_comp_cntr => comp_cntr::create_comp_cntr(context: *mut ibv_context, comp_cntr: *mut ibv_comp_cntr, link: *mut v34::ibv_command_buffer));
cmd_api!(ibv_cmd_destroy_comp_cntr => comp_cntr::destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr));
cmd_api!(ibv_cmd_qp_attach_comp_cntr => comp_cntr::qp_attach_comp_cntr(qp: *mut ibv_qp, comp_cntr: *mut ibv_comp_cntr, attr: *mut ibv_qp_attach_comp_cntr_attr));
cmd_api!(ibv_cmd_reg_mr_ex => mr::reg_mr_ex(pd: *mut ibv_pd, vmr: *mut v34::verbs_mr, attr: *mut ibv_mr_init_attr));

/// The set/increment commands: which counter, which operation.
macro_rules! modify65 {
    ($name:ident, $entry:expr, $op:expr) => {
        #[unsafe(no_mangle)]
        #[entry(errno)]
        pub unsafe extern "C" fn $name(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
            // SAFETY: the plugin's counter (NULL is EINVAL).
            unsafe { comp_cntr::modify_comp_cntr(comp_cntr, $entry, $op, value) }
        }
    };
}

modify65!(ibv_cmd_set_comp_cntr, Entry::Comp, Op::Set);
modify65!(ibv_cmd_set_err_comp_cntr, Entry::Err, Op::Set);
modify65!(ibv_cmd_inc_comp_cntr, Entry::Comp, Op::Inc);
modify65!(ibv_cmd_inc_err_comp_cntr, Entry::Err, Op::Inc);

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_read_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    value: *mut u64,
) -> c_int {
    // SAFETY: the plugin's counter and the caller's value (NULL is EINVAL).
    unsafe { comp_cntr::read_comp_cntr(comp_cntr, Entry::Comp, value) }
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_read_err_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    value: *mut u64,
) -> c_int {
    // SAFETY: as above.
    unsafe { comp_cntr::read_comp_cntr(comp_cntr, Entry::Err, value) }
}

/// A dma-buf fd of the context's mmap space at `pg_off`, or -1 with errno.
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_cmd_export_dmabuf_fd(ctx: *mut ibv_context, pg_off: i64) -> c_int {
    // SAFETY: the plugin's context (NULL is EINVAL).
    unsafe { dmabuf::export_dmabuf_fd(ctx, pg_off) }
}

#[cfg(test)]
mod tests;
