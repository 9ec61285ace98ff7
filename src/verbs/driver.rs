//! rdma-core's provider-driver interface (IBVERBS_PRIVATE_34; 65's differing
//! entry points are in `driver65`): the functions
//! its C provider plugins (libmlx5, librxe, ...) call into libibverbs. They
//! only check and convert; the host is `providers::plugin`. Programs such as
//! perftest also link the plugins' direct-verbs libraries, which need these
//! symbols to load. Not declared in verbs.h.

use crate::abi::*;
use crate::driver_abi::v34::verbs_context as VerbsContext44;
use crate::driver_abi::v34::*;
use crate::entry::Errno;
use crate::providers::plugin::cmd::{
    Arg, Bufs, ah, counters, cq, device, dm, flow, flow_action, mcast, mr, mw, pd, post, qp, qp_ex,
    srq, wq, xrc,
};
use crate::providers::plugin::{context, ops};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// A plugin's constructor registers its ops table (PROVIDER_DRIVER in
/// driver.h); devices are matched against it when the device list is read.
#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn verbs_register_driver_34(ops: *const verbs_device_ops) {
    crate::providers::plugin::log::init_verbs_log();
    // SAFETY: a plugin's static ops table, which lives as long as the
    // plugin stays loaded (for good: plugins are never unloaded).
    if let Some(ops) = unsafe { ops.as_ref() } {
        let row = crate::providers::plugin::release::v34_row(ops);
        crate::providers::plugin::registry::register(ops, row);
    }
}

/// The plugin's context struct, zeroed, with our verbs_context initialised
/// at `context_offset` (an offset disguised as a pointer, as rdma-core's
/// macro passes it); NULL with errno on failure (the fd is then closed).
#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn _verbs_init_and_alloc_context(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    context_offset: *mut VerbsContext44,
    driver_id: u32,
) -> *mut c_void {
    let off = context_offset as usize;
    // The v34 row its plugin registered with (44's or 45's `ibv_qp_ex`).
    // SAFETY: the plugin's device, a verbs_device (NULL or not hosted: 44's).
    let ops = unsafe { device.cast::<verbs_device>().as_ref() }.map_or(std::ptr::null(), |d| d.ops);
    let pabi = crate::providers::plugin::registry::pabi_of(ops);
    // SAFETY: per driver.h; the fd is ours to close on failure.
    unsafe { init_and_alloc(device, cmd_fd, alloc_size, off, driver_id, pabi) }
}

/// _verbs_init_and_alloc_context of the plugin's version: its context at
/// `off` is that version's `verbs_context`, set up from its v34 part on.
///
/// # Safety
/// `cmd_fd` is the plugin's to hand over (closed on failure).
pub(crate) unsafe fn init_and_alloc(
    device: *mut ibv_device,
    cmd_fd: c_int,
    alloc_size: usize,
    off: usize,
    driver_id: u32,
    pabi: &'static crate::driver_abi::Pabi,
) -> crate::entry::Result<*mut c_void> {
    if off
        .checked_add(pabi.context_growth + size_of::<VerbsContext44>())
        .is_none_or(|end| end > alloc_size)
    {
        // SAFETY: the fd is ours to close on failure.
        unsafe { libc::close(cmd_fd) };
        return Err(Errno::EINVAL);
    }
    // SAFETY: calloc; the plugin frees it with free() after
    // verbs_uninit_context, as with rdma-core.
    let p = unsafe { libc::calloc(1, alloc_size) };
    if p.is_null() {
        // SAFETY: as above.
        unsafe { libc::close(cmd_fd) };
        return Err(Errno::ENOMEM);
    }
    let at = off + pabi.context_growth;
    let v = p.cast::<u8>().wrapping_add(at).cast::<VerbsContext44>();
    // SAFETY: `v` lies inside the zeroed allocation (checked above).
    match unsafe { context::init_context(v, device, cmd_fd, driver_id, pabi) } {
        Ok(()) => Ok(p),
        Err(e) => {
            // SAFETY: our own allocation, not handed out.
            unsafe { libc::free(p) };
            Err(e)
        }
    }
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn verbs_uninit_context(context_ex: *mut VerbsContext44) {
    // SAFETY: the plugin's context, per driver.h.
    unsafe { context::uninit_context(context_ex) }
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn verbs_set_ops(vctx: *mut VerbsContext44, ops: *const verbs_context_ops) {
    // SAFETY: the plugin's (static) op table.
    if let (false, Some(ops)) = (vctx.is_null(), unsafe { ops.as_ref() }) {
        // SAFETY: a hosted context, set up or opened (checked inside).
        let _ = unsafe { context::set_ops(vctx, ops) };
    }
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn verbs_init_cq(
    cq: *mut ibv_cq,
    context: *mut ibv_context,
    channel: *mut ibv_comp_channel,
    cq_context: *mut c_void,
) {
    if !cq.is_null() {
        let ch = crate::object::get::<ibv_comp_channel, crate::context::Context>(channel).ok();
        // SAFETY: the plugin's CQ being set up.
        unsafe { ops::init_cq(cq, context, ch.as_deref(), cq_context) };
    }
}

/// ibv_open_device for a direct-verbs library's own use (mlx5dv_open_device):
/// a hosted device's plugin gets `private_data` in its `alloc_context`.
#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn verbs_open_device(
    device: *mut ibv_device,
    private_data: *mut c_void,
) -> *mut ibv_context {
    let dev = crate::object::lookup::<crate::device::Device>(device)?;
    let ctx = crate::discovery::open_private(&dev, private_data)?;
    Ok(crate::object::publish(ctx))
}

/// Reads a file of a device's sysfs directory (`fnfmt` and up to two
/// integer or string arguments, all the plugins use): -1 with errno, or the
/// length read, NUL-terminated, without the trailing newline.
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_read_ibdev_sysfs_file(
    buf: *mut c_char,
    size: usize,
    sysfs_dev: *mut verbs_sysfs_dev,
    fnfmt: *const c_char,
    a1: usize,
    a2: usize,
) -> c_int {
    if buf.is_null() || sysfs_dev.is_null() || fnfmt.is_null() {
        return Err(Errno::EINVAL);
    }
    let mut rel = [0 as c_char; 256];
    // SAFETY: snprintf into our buffer with the caller's format and its
    // first two (register) arguments.
    let n = unsafe { libc::snprintf(rel.as_mut_ptr(), rel.len(), fnfmt, a1, a2) };
    if n < 0 || n as usize >= rel.len() {
        return Err(Errno::ENOMEM);
    }
    // SAFETY: the record we made for the plugin; NUL-terminated strings.
    let (dir, rel) = unsafe {
        (
            std::ffi::CStr::from_ptr((*sysfs_dev).ibdev_path.as_ptr()),
            std::ffi::CStr::from_ptr(rel.as_ptr()),
        )
    };
    let path = std::path::Path::new(&*dir.to_string_lossy()).join(&*rel.to_string_lossy());
    // SAFETY: the caller gives `size` writable bytes at `buf`.
    let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) };
    let n = crate::sysfs::read_sysfs_file_buf(&path, out)?;
    Ok(n as c_int)
}

/// One exported `ibv_cmd_*`: its C arguments are converted here, once,
/// into what the command takes ([`Arg`]: objects and structs checked not
/// NULL, plain values as they are); `; bufs`, `; cmd`, `; resp` stand for
/// driver.h's buffer pointer and size pairs at that place, as [`Bufs`].
/// A `versioned` one is exported through build.rs's `.symver` paths
/// (rdma-core 65's entry points of names 34 has too), the others under
/// their own name.
macro_rules! cmd_api {
    (versioned $name:ident => $($rest:tt)*) => {
        cmd_api!(@fn [] $name => $($rest)*);
    };
    ($name:ident => $($rest:tt)*) => {
        cmd_api!(@fn [#[unsafe(no_mangle)]] $name => $($rest)*);
    };
    (@fn [$($export:tt)*] $name:ident => $($f:ident)::+($($arg:ident: $t:ty),* ; bufs $(, $tail:ident: $tt:ty)*)) => {
        $($export)*
        #[allow(clippy::too_many_arguments)]
        #[entry(errno)]
        pub unsafe extern "C" fn $name(
            $($arg: $t,)* cmd: *mut c_void, cmd_size: usize, resp: *mut c_void, resp_size: usize
            $(, $tail: $tt)*
        ) -> c_int {
            // SAFETY: the plugin's objects and buffers, per driver.h.
            unsafe {
                $($f)::+(
                    $(Arg::from_c($arg)?,)*
                    Bufs::new(cmd, cmd_size, resp, resp_size)
                    $(, Arg::from_c($tail)?)*
                )
            }
        }
    };
    (@fn [$($export:tt)*] $name:ident => $($f:ident)::+($($arg:ident: $t:ty),* ; cmd)) => {
        $($export)*
        #[entry(errno)]
        pub unsafe extern "C" fn $name($($arg: $t,)* cmd: *mut c_void, cmd_size: usize) -> c_int {
            // SAFETY: the plugin's objects and buffer, per driver.h.
            unsafe { $($f)::+($(Arg::from_c($arg)?,)* Bufs::cmd(cmd, cmd_size)) }
        }
    };
    (@fn [$($export:tt)*] $name:ident => $($f:ident)::+($($arg:ident: $t:ty),* ; resp)) => {
        $($export)*
        #[entry(errno)]
        pub unsafe extern "C" fn $name($($arg: $t,)* resp: *mut c_void, resp_size: usize) -> c_int {
            // SAFETY: the plugin's objects and buffer, per driver.h.
            unsafe { $($f)::+($(Arg::from_c($arg)?,)* Bufs::resp(resp, resp_size)) }
        }
    };
    (@fn [$($export:tt)*] $name:ident => $($f:ident)::+($($arg:ident: $t:ty),*)) => {
        $($export)*
        #[allow(clippy::too_many_arguments)]
        #[entry(errno)]
        pub unsafe extern "C" fn $name($($arg: $t),*) -> c_int {
            // SAFETY: the plugin's objects, per driver.h (NULL is EINVAL).
            unsafe { $($f)::+($(Arg::from_c($arg)?),*) }
        }
    };
}
pub(crate) use cmd_api;

cmd_api!(ibv_cmd_get_context => device::get_context(context: *mut VerbsContext44; bufs));
cmd_api!(ibv_cmd_alloc_pd => pd::alloc_pd(context: *mut ibv_context, pd: *mut ibv_pd; bufs));
cmd_api!(ibv_cmd_dealloc_pd => pd::dealloc_pd(pd: *mut ibv_pd));
cmd_api!(ibv_cmd_dereg_mr => mr::dereg_mr(vmr: *mut verbs_mr));
cmd_api!(ibv_cmd_dealloc_mw => mw::dealloc_mw(mw: *mut ibv_mw));
cmd_api!(ibv_cmd_destroy_cq => cq::destroy_cq(cq: *mut ibv_cq));
cmd_api!(ibv_cmd_resize_cq => cq::resize_cq(cq: *mut ibv_cq, cqe: c_int; bufs));
cmd_api!(ibv_cmd_req_notify_cq => cq::req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int));
cmd_api!(ibv_cmd_destroy_qp => qp::destroy_qp(qp: *mut ibv_qp));
cmd_api!(ibv_cmd_create_srq => srq::create_srq(pd: *mut ibv_pd, srq: *mut ibv_srq, attr: *mut ibv_srq_init_attr; bufs));
cmd_api!(ibv_cmd_destroy_srq => srq::destroy_srq(srq: *mut ibv_srq));
cmd_api!(ibv_cmd_create_ah => ah::create_ah(pd: *mut ibv_pd, ah: *mut ibv_ah, attr: *mut ibv_ah_attr; resp));
cmd_api!(ibv_cmd_destroy_ah => ah::destroy_ah(ah: *mut ibv_ah));
cmd_api!(ibv_cmd_create_qp => qp::create_qp(pd: *mut ibv_pd, qp: *mut ibv_qp, attr: *mut ibv_qp_init_attr; bufs));
cmd_api!(ibv_cmd_create_cq_ex => cq::create_cq_ex(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex, cq: *mut verbs_cq; bufs, cmd_flags: u32));
cmd_api!(ibv_cmd_create_cq_ex2 => cq::create_cq_ex2(context: *mut ibv_context, cq_attr: *const ibv_cq_init_attr_ex, cq: *mut verbs_cq; bufs, cmd_flags: u32, driver: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_open_xrcd => xrc::open_xrcd(context: *mut ibv_context, xrcd: *mut verbs_xrcd, vxrcd_size: c_int, attr: *mut ibv_xrcd_init_attr; bufs));
cmd_api!(ibv_cmd_close_xrcd => xrc::close_xrcd(xrcd: *mut verbs_xrcd));
cmd_api!(ibv_cmd_create_srq_ex => xrc::create_srq_ex(context: *mut ibv_context, srq: *mut verbs_srq, attr_ex: *mut ibv_srq_init_attr_ex; bufs));
cmd_api!(ibv_cmd_modify_qp_ex => qp_ex::modify_qp_ex(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int; bufs));
cmd_api!(ibv_cmd_rereg_mr => mr::rereg_mr(vmr: *mut verbs_mr, flags: u32, addr: *mut c_void, length: usize, hca_va: u64, access: c_int, pd: *mut ibv_pd; bufs));
cmd_api!(ibv_cmd_query_mr => mr::query_mr(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32));
cmd_api!(ibv_cmd_advise_mr => mr::advise_mr(pd: *mut ibv_pd, advice: u32, flags: u32, sg_list: *mut ibv_sge, num_sge: u32));
cmd_api!(ibv_cmd_reg_dmabuf_mr => mr::reg_dmabuf_mr(pd: *mut ibv_pd, offset: u64, length: usize, iova: u64, fd: c_int, access: c_int, vmr: *mut verbs_mr, driver: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_query_context => device::query_context(context: *mut ibv_context, driver: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_alloc_dm => dm::alloc_dm(ctx: *mut ibv_context, dm_attr: *const ibv_alloc_dm_attr, dm: *mut verbs_dm, link: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_free_dm => dm::free_dm(dm: *mut verbs_dm));
cmd_api!(ibv_cmd_reg_dm_mr => dm::reg_dm_mr(pd: *mut ibv_pd, dm: *mut verbs_dm, offset: u64, length: usize, access: c_uint, vmr: *mut verbs_mr, link: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_create_counters => counters::create_counters(context: *mut ibv_context, init_attr: *mut ibv_counters_init_attr, vcounters: *mut verbs_counters, link: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_destroy_counters => counters::destroy_counters(vcounters: *mut verbs_counters));
cmd_api!(ibv_cmd_read_counters => counters::read_counters(vcounters: *mut verbs_counters, counters_value: *mut u64, ncounters: u32, flags: u32, link: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_destroy_flow => flow::destroy_flow(flow_id: *mut ibv_flow));
cmd_api!(ibv_cmd_destroy_rwq_ind_table => flow::destroy_rwq_ind_table(rwq_ind_table: *mut ibv_rwq_ind_table));
cmd_api!(ibv_cmd_modify_cq => cq::modify_cq(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr; cmd));
cmd_api!(ibv_cmd_create_cq => cq::create_cq(context: *mut ibv_context, cqe: c_int, channel: *mut ibv_comp_channel, comp_vector: c_int, cq: *mut ibv_cq; bufs));
cmd_api!(ibv_cmd_destroy_flow_action => flow::destroy_flow_action(action: *mut verbs_flow_action));
cmd_api!(ibv_cmd_post_send => post::post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr));
cmd_api!(ibv_cmd_post_recv => post::post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr));
cmd_api!(ibv_cmd_post_srq_recv => post::post_srq_recv(srq: *mut ibv_srq, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr));
cmd_api!(ibv_cmd_create_wq => wq::create_wq(context: *mut ibv_context, wq_init_attr: *mut ibv_wq_init_attr, wq: *mut ibv_wq; bufs));
cmd_api!(ibv_cmd_modify_wq => wq::modify_wq(wq: *mut ibv_wq, attr: *mut ibv_wq_attr; cmd));
cmd_api!(ibv_cmd_destroy_wq => wq::destroy_wq(wq: *mut ibv_wq));
cmd_api!(ibv_cmd_create_rwq_ind_table => wq::create_rwq_ind_table(context: *mut ibv_context, init_attr: *mut ibv_rwq_ind_table_init_attr, rwq_ind_table: *mut ibv_rwq_ind_table; resp));
cmd_api!(ibv_cmd_create_flow => flow::create_flow(qp: *mut ibv_qp, flow_id: *mut ibv_flow, flow_attr: *mut ibv_flow_attr, ucmd: *mut c_void, ucmd_size: usize));
cmd_api!(ibv_cmd_create_flow_action_esp => flow_action::create_flow_action_esp(ctx: *mut ibv_context, attr: *mut ibv_flow_action_esp_attr, flow_action: *mut verbs_flow_action, driver: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_modify_flow_action_esp => flow_action::modify_flow_action_esp(flow_action: *mut verbs_flow_action, attr: *mut ibv_flow_action_esp_attr, driver: *mut ibv_command_buffer));
cmd_api!(ibv_cmd_alloc_mw => mw::alloc_mw(pd: *mut ibv_pd, ty: u32, mw: *mut ibv_mw; bufs));
cmd_api!(ibv_cmd_reg_mr => mr::reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, hca_va: u64, access: c_int, vmr: *mut verbs_mr; bufs));
cmd_api!(ibv_cmd_modify_qp => qp::modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int; cmd));
cmd_api!(ibv_cmd_query_qp => qp::query_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int, init_attr: *mut ibv_qp_init_attr; cmd));
cmd_api!(ibv_cmd_modify_srq => srq::modify_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr, attr_mask: c_int; cmd));
cmd_api!(ibv_cmd_query_srq => srq::query_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr; cmd));

/// `port_attr` holds the `ibv_port_attr` of the plugin's release (a 44
/// plugin's ends before `active_speed_ex`, and mlx5's passes one of its own).
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    cmd: *mut c_void,
    cmd_size: usize,
) -> c_int {
    if port_attr.is_null() {
        return Err(Errno::EINVAL);
    }
    let len = pabi_of_ctx(context).port_attr_size;
    // SAFETY: the plugin's struct of its release's size, per driver.h.
    let out = unsafe { std::slice::from_raw_parts_mut(port_attr.cast(), len) };
    // SAFETY: the plugin's command buffer.
    unsafe { device::query_port(context, port_num, out, Bufs::cmd(cmd, cmd_size)) }
}
cmd_api!(ibv_cmd_attach_mcast => mcast::attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16));
cmd_api!(ibv_cmd_detach_mcast => mcast::detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16));

/// The number of completions, or -1 with errno (as rdma-core 44).
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_cmd_poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: the plugin's CQ and the caller's array of `ne` entries.
    unsafe { post::poll_cq(cq, ne, wc) }
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_query_device_any(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut c_void,
    resp_size: *mut usize,
) -> c_int {
    // SAFETY: the plugin's context and buffers.
    unsafe { device::query_device_any(context, attr, attr_size, resp, resp_size) }
}

/// The attribute count of an ioctl command buffer chain: providers size
/// their frame with it (DECLARE_COMMAND_BUFFER_LINK). A malformed chain
/// counts nothing; execute_ioctl then refuses it.
#[unsafe(no_mangle)]
#[entry(value(num_attrs))]
pub unsafe extern "C" fn __ioctl_final_num_attrs(
    num_attrs: c_uint,
    link: *mut ibv_command_buffer,
) -> c_uint {
    // SAFETY: a chain of command buffers built by the caller.
    let n = unsafe { crate::providers::plugin::ioctl::chained_attrs(link) }.unwrap_or(0);
    num_attrs.saturating_add(n as c_uint)
}

/// Runs a plugin's own ioctl command buffer (`providers::plugin::ioctl`).
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn execute_ioctl(
    context: *mut ibv_context,
    cmd: *mut ibv_command_buffer,
) -> c_int {
    // SAFETY: the plugin's context and command buffer chain, per cmd_ioctl.h.
    unsafe { crate::providers::plugin::ioctl::execute(context, cmd) }
}

/// Set by rdma-core from RDMAV_ALLOW_DISASSOC_DESTROY; C providers read it
/// (defined beside the destroy commands that honour it).
pub(crate) use crate::uverbs::disassoc::verbs_allow_disassociate_destroy;

#[cfg(all(test, not(miri)))]
mod log_tests {
    use std::ffi::{c_char, c_void};

    unsafe extern "C" {
        fn __verbs_log(ctx: *mut c_void, level: u32, fmt: *const c_char, ...);
        fn ibverbs_c_set_verbs_log(level: u32, fp: *mut libc::FILE);
    }

    /// printf formatting, the level gate and errno, on a temporary stream.
    #[test]
    fn verbs_log_formats_like_printf_up_to_its_level() {
        // SAFETY: a temporary stdio stream, read back below and closed; the
        // variadic calls pass what their formats name.
        unsafe {
            let f = libc::tmpfile();
            assert!(!f.is_null());
            ibverbs_c_set_verbs_log(crate::driver_abi::VERBS_LOG_WARN, f);
            *libc::__errno_location() = libc::EAGAIN;
            __verbs_log(
                std::ptr::null_mut(),
                crate::driver_abi::VERBS_LOG_ERR,
                c"%s: %d %#x %.2f|".as_ptr(),
                c"rxe0".as_ptr(),
                -3 as libc::c_int,
                255 as libc::c_uint,
                1.5f64,
            );
            assert_eq!(*libc::__errno_location(), libc::EAGAIN);
            // Above the level: nothing.
            __verbs_log(
                std::ptr::null_mut(),
                crate::driver_abi::VERBS_LOG_DEBUG,
                c"debug|".as_ptr(),
            );
            __verbs_log(
                std::ptr::null_mut(),
                crate::driver_abi::VERBS_LOG_WARN,
                c"%u%%\n".as_ptr(),
                7 as libc::c_uint,
            );
            ibverbs_c_set_verbs_log(0, std::ptr::null_mut());
            // Quiet again.
            __verbs_log(std::ptr::null_mut(), 1, c"never".as_ptr());
            libc::fflush(f);
            libc::rewind(f);
            let mut buf = [0u8; 128];
            let n = libc::fread(buf.as_mut_ptr().cast(), 1, buf.len(), f);
            libc::fclose(f);
            assert_eq!(
                std::str::from_utf8(&buf[..n]).unwrap(),
                "rxe0: -3 0xff 1.50|7%\n"
            );
        }
    }
}

/// Runs a v34 QP command on a plugin's new `verbs_qp` of `pabi`'s layout.
/// Where its `ibv_qp_ex` is longer than 44's (by `wr_flush`: rdma-core
/// 45..56 under PABI 34, and 65), the command writes `comp_mask` and `xrcd`
/// at 44's places, over the `wr_flush` the plugin may have set already;
/// they then move to the plugin's places and `wr_flush` gets its bytes back.
///
/// # Safety
/// `vqp` is NULL or the plugin's new `verbs_qp` of `pabi`'s layout, ours
/// alone meanwhile.
pub(crate) unsafe fn on_qp(
    vqp: *mut c_void,
    pabi: &crate::driver_abi::Pabi,
    f: impl FnOnce(*mut verbs_qp) -> crate::entry::Result<()>,
) -> crate::entry::Result<()> {
    if vqp.is_null() {
        return Err(Errno::EINVAL);
    }
    if !pabi.moves_qp_mask() {
        return f(vqp.cast());
    }
    let at = |off: usize| vqp.cast::<u8>().wrapping_add(off);
    let (c44, own) = (QP_EX_SIZE, pabi.qp_ex_size);
    let w = size_of::<u64>();
    // SAFETY: the longer verbs_qp holds wr_flush at c44 and its
    // comp_mask/xrcd words from `own` on (per the contract; facts.txt
    // checks the offsets).
    unsafe {
        let saved = at(c44).cast::<[u8; 16]>().read_unaligned();
        let r = f(vqp.cast());
        let mask = at(c44).cast::<u32>().read_unaligned();
        let xrcd = at(c44 + w).cast::<usize>().read_unaligned();
        at(c44).cast::<[u8; 16]>().write_unaligned(saved);
        if r.is_ok() {
            at(own).cast::<u32>().write_unaligned(mask);
            at(own + w).cast::<usize>().write_unaligned(xrcd);
        }
        r
    }
}

/// The private ABI row of the plugin whose context `ctx` is (44's v34 for
/// NULL or a device no plugin registered).
fn pabi_of_ctx(ctx: *mut ibv_context) -> &'static crate::driver_abi::Pabi {
    // SAFETY: the plugin's context and device, if not NULL.
    let ops = unsafe { ctx.as_ref() }
        .and_then(|c| unsafe { c.device.cast::<verbs_device>().as_ref() })
        .map_or(std::ptr::null(), |d| d.ops);
    crate::providers::plugin::registry::pabi_of(ops)
}

#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex2(
    ctx: *mut ibv_context,
    qp: *mut c_void,
    qp_attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    // SAFETY: the plugin's objects and buffers, per driver.h.
    unsafe {
        on_qp(qp, pabi_of_ctx(ctx), |q| {
            let (q, a) = (Arg::from_c(q)?, Arg::from_c(qp_attr)?);
            qp::create_qp_ex2(ctx, q, a, Bufs::new(cmd, cmd_size, resp, resp_size))
        })
    }
}

#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_create_qp_ex(
    ctx: *mut ibv_context,
    qp: *mut c_void,
    attr_ex: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    // SAFETY: as above.
    unsafe {
        on_qp(qp, pabi_of_ctx(ctx), |q| {
            let (q, a) = (Arg::from_c(q)?, Arg::from_c(attr_ex)?);
            qp_ex::create_qp_ex(ctx, q, a, Bufs::new(cmd, cmd_size, resp, resp_size))
        })
    }
}

#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_cmd_open_qp(
    ctx: *mut ibv_context,
    qp: *mut c_void,
    vqp_sz: c_int,
    attr: *mut ibv_qp_open_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> c_int {
    // A `verbs_qp` longer than 44's must hold its own `comp_mask` and `xrcd`.
    let pabi = pabi_of_ctx(ctx);
    if pabi.moves_qp_mask() && vqp_sz < (pabi.qp_ex_size + 16) as c_int {
        return Err(Errno::EINVAL);
    }
    // SAFETY: as above.
    unsafe {
        on_qp(qp, pabi, |q| {
            let (q, a) = (Arg::from_c(q)?, Arg::from_c(attr)?);
            let b = Bufs::new(cmd, cmd_size, resp, resp_size);
            xrc::open_qp(ctx, q, vqp_sz, a, b)
        })
    }
}

#[cfg(test)]
mod tests;
