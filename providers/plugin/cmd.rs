//! The `ibv_cmd_*` functions plugins call to talk to the kernel, with rdma-core
//! 44's semantics, over our typed kernel layer (`crate::uverbs`, which picks
//! the ioctl method or the write() command as rdma-core does). A plugin
//! passes its command and response structs: the kernel's core struct after
//! a command header, then its driver data; we send the core fields we fill
//! and its driver data as is, and hand back the kernel's response the same way.
//!
//! The exported functions (`crate::verbs::driver`, `driver65`) convert each
//! C argument once ([`Arg`]): buffer pairs into [`Bufs`], objects into
//! [`Live`] handles or references, NULL into EINVAL. Safety, for every
//! `unsafe fn` left here: the pointers are the calling plugin's live
//! objects and buffers of the sizes it gives, as driver.h requires.
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

/// A plugin's command and response buffers, as driver.h passes them to
/// every `ibv_cmd_*` with driver data (a pointer and a size each),
/// converted once at the exported function. NULL is empty.
pub(crate) struct Bufs<'a> {
    cmd: &'a [u8],
    resp: &'a mut [u8],
}

impl<'a> Bufs<'a> {
    /// # Safety
    /// `cmd` is NULL or holds `cmd_size` readable bytes, `resp` NULL or
    /// `resp_size` writable ones, apart, for `'a`.
    pub(crate) unsafe fn new(
        cmd: *const c_void,
        cmd_size: usize,
        resp: *mut c_void,
        resp_size: usize,
    ) -> Bufs<'a> {
        Bufs {
            cmd: match cmd.is_null() {
                true => &[],
                // SAFETY: per the contract.
                false => unsafe { std::slice::from_raw_parts(cmd.cast(), cmd_size) },
            },
            resp: match resp.is_null() {
                true => &mut [],
                // SAFETY: per the contract.
                false => unsafe { std::slice::from_raw_parts_mut(resp.cast(), resp_size) },
            },
        }
    }

    /// Buffers of our own (a command we build for a fallback).
    pub(crate) fn of(cmd: &'a [u8], resp: &'a mut [u8]) -> Bufs<'a> {
        Bufs { cmd, resp }
    }

    /// The command alone (ibv_cmd_modify_* take no response).
    ///
    /// # Safety
    /// As [`Bufs::new`].
    pub(crate) unsafe fn cmd(cmd: *const c_void, cmd_size: usize) -> Bufs<'a> {
        // SAFETY: per the contract.
        unsafe { Bufs::new(cmd, cmd_size, std::ptr::null_mut(), 0) }
    }

    /// The response alone (ibv_cmd_create_ah and others take no command).
    ///
    /// # Safety
    /// As [`Bufs::new`].
    pub(crate) unsafe fn resp(resp: *mut c_void, resp_size: usize) -> Bufs<'a> {
        // SAFETY: per the contract.
        unsafe { Bufs::new(std::ptr::null(), 0, resp, resp_size) }
    }

    /// The command's size as the plugin gave it (0 for NULL).
    pub(crate) fn cmd_len(&self) -> usize {
        self.cmd.len()
    }

    /// The command's driver data: after the 8-byte header and `core_in`
    /// bytes of core request.
    pub(crate) fn drv_in(&self, core_in: usize) -> &[u8] {
        self.cmd.get(HDR + core_in..).unwrap_or(&[])
    }

    /// Both driver parts: of the command as [`Bufs::drv_in`], of the
    /// response after `core_out` bytes of core response.
    pub(crate) fn split(&mut self, core_in: usize, core_out: usize) -> (&[u8], &mut [u8]) {
        let out = self.resp.get_mut(core_out..).unwrap_or(&mut []);
        (self.cmd.get(HDR + core_in..).unwrap_or(&[]), out)
    }

    /// Writes the core response into the front of the response buffer
    /// (as much of it as fits).
    pub(crate) fn put<T: Pod>(&mut self, v: &T) {
        let b = v.as_bytes();
        let n = b.len().min(self.resp.len());
        self.resp[..n].copy_from_slice(&b[..n]);
    }
}

/// The async event fd of an opened hosted context (the kernel's CQs and
/// WQs report their events to it).
fn async_fd_of(frame: super::call::CallNow, ctx: *const ibv_context) -> Option<c_int> {
    with_context_in(frame, ctx, |c| {
        Ok(std::os::fd::AsRawFd::as_raw_fd(&c.async_fd))
    })
    .ok()
}

/// A plugin object whose C struct starts with its context and handle.
pub(crate) trait Handled {
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

/// An existing plugin object an `ibv_cmd_*` names: checked not NULL at the
/// exported function, live for the call (driver.h's contract). Its fields
/// are read through the pointer, never borrowed: the plugin and other
/// threads share the object (its mutex, its state) meanwhile.
pub(crate) struct Live<'a, T>(std::ptr::NonNull<T>, std::marker::PhantomData<&'a T>);

impl<T> Clone for Live<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Live<'_, T> {}

impl<T> Live<'_, T> {
    /// The object's address, as the plugin knows it.
    pub(crate) fn ptr(self) -> *mut T {
        self.0.as_ptr()
    }
}

impl<T: Handled> Live<'_, T> {
    /// The object's context and kernel handle.
    pub(crate) fn parts(self) -> (*mut ibv_context, u32) {
        // SAFETY: a live object of the plugin (see the type).
        unsafe { T::ctx_handle(self.0.as_ptr()) }
    }
}

/// One argument of an exported `ibv_cmd_*`, converted from the C type the
/// plugin passes: object and attribute pointers become [`Live`] objects or
/// references (NULL is EINVAL, where rdma-core would crash), optional ones
/// `Option`s; plain values pass as they are.
pub(crate) trait Arg<C>: Sized {
    /// # Safety
    /// `c` is what driver.h says the plugin passes: NULL or a live object
    /// or struct of the plugin or its caller, ours alone for a `&mut`.
    unsafe fn from_c(c: C) -> Result<Self>;
}

impl<T> Arg<T> for T {
    unsafe fn from_c(c: T) -> Result<T> {
        Ok(c)
    }
}

impl<'a, T> Arg<*mut T> for Live<'a, T> {
    unsafe fn from_c(p: *mut T) -> Result<Self> {
        let p = std::ptr::NonNull::new(p).ok_or(Errno::EINVAL)?;
        Ok(Live(p, std::marker::PhantomData))
    }
}

impl<T> Arg<*mut T> for &mut T {
    unsafe fn from_c(p: *mut T) -> Result<Self> {
        // SAFETY: per the trait's contract.
        unsafe { p.as_mut() }.ok_or(Errno::EINVAL)
    }
}

impl<T> Arg<*const T> for &T {
    unsafe fn from_c(p: *const T) -> Result<Self> {
        // SAFETY: per the trait's contract.
        unsafe { p.as_ref() }.ok_or(Errno::EINVAL)
    }
}

impl<T> Arg<*mut T> for &T {
    unsafe fn from_c(p: *mut T) -> Result<Self> {
        // SAFETY: per the trait's contract.
        unsafe { p.as_ref() }.ok_or(Errno::EINVAL)
    }
}

impl<T> Arg<*mut T> for Option<&T> {
    unsafe fn from_c(p: *mut T) -> Result<Self> {
        // SAFETY: per the trait's contract.
        Ok(unsafe { p.as_ref() })
    }
}

impl<'a, T> Arg<*mut T> for Option<Live<'a, T>> {
    unsafe fn from_c(p: *mut T) -> Result<Self> {
        Ok(std::ptr::NonNull::new(p).map(|p| Live(p, std::marker::PhantomData)))
    }
}

/// Runs `f` on the kernel handle of a plugin object, with its context's
/// uverbs file.
fn on<T: Handled, R>(
    frame: super::call::CallNow,
    p: Live<'_, T>,
    f: impl FnOnce(&crate::uverbs::Uverbs, u32) -> Result<R>,
) -> Result<R> {
    let (ctx, h) = p.parts();
    with_uverbs_in(frame, ctx, |u| f(u, h))
}

/// Waits until every event the kernel reported for an object was
/// acknowledged (as rdma-core's destroy commands do), on the registry's
/// record of it, which ibv_ack_cq_events / ibv_ack_async_event count on:
/// the record of the destroy in progress on this thread (see
/// [`super::call::destroying`]), else the registry's (a plugin's destroy op
/// called outside our verbs).
fn wait_acked<C: crate::object::KindOf>(
    frame: super::call::CallNow,
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
