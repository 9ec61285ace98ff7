//! The `ibv_cmd_*` functions plugins call to talk to the kernel, with rdma-core
//! 44's semantics, over our typed kernel layer (`crate::uverbs`, which picks
//! the ioctl method or the write() command as rdma-core does). A plugin
//! passes its command and response structs: the kernel's core struct after
//! a command header, then its driver data; we send the core fields we fill
//! and its driver data as is, and hand back the kernel's response the same way.
//!
//! Safety, for every `unsafe fn` here: the pointers are the calling plugin's
//! live objects and buffers of the sizes it gives, as driver.h requires.
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

use super::context::{with_context_in, with_uverbs_in};
use crate::abi::*;
use crate::context::{Context, EventCounts};
use crate::entry::{Errno, Result};
use crate::object;
use crate::uverbs::Pod;
use std::ffi::{c_int, c_void};

pub(crate) mod ah;
pub(crate) mod comp_cntr;
pub(crate) mod counters;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod dm;
pub(crate) mod dmabuf;
pub(crate) mod dmah;
pub(crate) mod flow;
pub(crate) mod flow_action;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod post;
pub(crate) mod qp;
pub(crate) mod qp_ex;
pub(crate) mod srq;
pub(crate) mod wq;
pub(crate) mod xrc;

/// verbs_is_destroy_err, shared with the Rust provider's destroys.
pub(crate) use crate::uverbs::disassoc::destroy_result;

/// The 8-byte `ib_uverbs_cmd_hdr` before a legacy command's core struct.
const HDR: usize = 8;

/// The driver data of a plugin's command: after the header and core struct.
///
/// # Safety
/// `cmd` is NULL or holds `size` readable bytes.
unsafe fn drv_in<'a>(cmd: *const c_void, size: usize, core: usize) -> &'a [u8] {
    let skip = HDR + core;
    if cmd.is_null() || size <= skip {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(cmd.cast::<u8>().add(skip), size - skip) }
}

/// The driver part of a plugin's response buffer: after the core response.
///
/// # Safety
/// `resp` is NULL or holds `size` writable bytes.
unsafe fn drv_out<'a>(resp: *mut c_void, size: usize, core: usize) -> &'a mut [u8] {
    if resp.is_null() || size <= core {
        return &mut [];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts_mut(resp.cast::<u8>().add(core), size - core) }
}

/// Both driver parts: of the command after its `core_in` bytes of core
/// struct, of the response after its `core_out` bytes.
///
/// # Safety
/// As [`drv_in`] and [`drv_out`].
unsafe fn drv<'a>(
    cmd: *const c_void,
    cmd_size: usize,
    core_in: usize,
    resp: *mut c_void,
    resp_size: usize,
    core_out: usize,
) -> (&'a [u8], &'a mut [u8]) {
    // SAFETY: per the contract.
    unsafe {
        (
            drv_in(cmd, cmd_size, core_in),
            drv_out(resp, resp_size, core_out),
        )
    }
}

/// A plugin's command and response buffers with their sizes, as driver.h
/// passes them to every `ibv_cmd_*` with driver data.
#[derive(Clone, Copy)]
struct Bufs {
    cmd: *const c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
}

impl Bufs {
    fn new(cmd: *const c_void, cmd_size: usize, resp: *mut c_void, resp_size: usize) -> Bufs {
        Bufs {
            cmd,
            cmd_size,
            resp,
            resp_size,
        }
    }

    /// Both driver parts: of the command after `core_in` bytes of core
    /// request (and the 8-byte header), of the response after `core_out`.
    ///
    /// # Safety
    /// As [`drv`].
    unsafe fn split<'a>(self, core_in: usize, core_out: usize) -> (&'a [u8], &'a mut [u8]) {
        // SAFETY: per the contract.
        unsafe {
            drv(
                self.cmd,
                self.cmd_size,
                core_in,
                self.resp,
                self.resp_size,
                core_out,
            )
        }
    }
}

/// Writes the core response into the front of the plugin's buffer.
///
/// # Safety
/// `resp` is NULL or holds `size` writable bytes.
unsafe fn put_resp<T: Pod>(resp: *mut c_void, size: usize, v: &T) {
    let b = v.as_bytes();
    if !resp.is_null() {
        // SAFETY: per the contract; at most `size` bytes.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), resp.cast::<u8>(), b.len().min(size)) };
    }
}

/// The async event fd of an opened hosted context (the kernel's CQs and
/// WQs report their events to it).
fn async_fd_of(frame: super::call::Frame, ctx: *const ibv_context) -> Option<c_int> {
    with_context_in(frame, ctx, |c| {
        Ok(std::os::fd::AsRawFd::as_raw_fd(&c.async_fd))
    })
    .ok()
}

/// A plugin object whose C struct starts with its context and handle.
trait Handled {
    /// # Safety
    /// `p` is a live object of the plugin.
    unsafe fn ctx_handle(p: *const Self) -> (*mut ibv_context, u32);
}

macro_rules! handled {
    ($($t:ty),*) => {$(
        impl Handled for $t {
            unsafe fn ctx_handle(p: *const Self) -> (*mut ibv_context, u32) {
                // SAFETY: per the trait's contract.
                unsafe { ((*p).context, (*p).handle) }
            }
        }
    )*};
}
handled!(ibv_pd, ibv_mw, ibv_cq, ibv_qp, ibv_srq, ibv_ah);

/// A plugin object's context and handle, and the caller's attributes.
///
/// # Safety
/// `p` is a live object of the plugin; `attr` is NULL or the caller's struct.
unsafe fn parts<'a, T: Handled, A>(
    p: *mut T,
    attr: *mut A,
) -> Result<(*mut ibv_context, u32, &'a mut A)> {
    // SAFETY: per the contract.
    let a = unsafe { attr.as_mut() }.ok_or(Errno::EINVAL)?;
    // SAFETY: as above.
    let (ctx, h) = unsafe { T::ctx_handle(p) };
    Ok((ctx, h, a))
}

/// Runs `f` on the kernel handle of a plugin object, with its context's
/// uverbs file.
///
/// # Safety
/// `p` is NULL or a live object of the plugin.
unsafe fn on<T: Handled, R>(
    frame: super::call::Frame,
    p: *mut T,
    f: impl FnOnce(&crate::uverbs::Uverbs, u32) -> Result<R>,
) -> Result<R> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: per the contract.
    let (ctx, h) = unsafe { T::ctx_handle(p) };
    with_uverbs_in(frame, ctx, |u| f(u, h))
}

/// Waits until every event the kernel reported for an object was
/// acknowledged (as rdma-core's destroy commands do), on the registry's
/// record of it, which ibv_ack_cq_events / ibv_ack_async_event count on:
/// the record of the destroy in progress on this thread (see
/// [`super::call::destroying`]), else the registry's (a plugin's destroy op
/// called outside our verbs).
fn wait_acked<C: crate::object::KindOf>(
    frame: super::call::Frame,
    p: *const C,
    reported: EventCounts,
) {
    if frame.wait_acked(p as usize, reported) {
        return;
    }
    if let Ok(o) = object::get::<C, Context>(p) {
        o.wait_acked(reported);
    }
}

/// The 24 bytes of `ib_uverbs_cmd_hdr` + `ib_uverbs_ex_cmd_hdr` before an
/// extended command's core struct.
const EX_HDR: usize = 24;
