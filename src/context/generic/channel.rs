//! Completion channels: ibv_create_comp_channel, ibv_destroy_comp_channel,
//! ibv_get_cq_event. (ibv_ack_cq_events is `Cq::ack_comp_events`, see
//! `context::events`.)
//!
//! For the CQ verbs (their provider): a CQ created on a channel calls
//! `channel.add_cq_ref()` once created and `channel.drop_cq_ref()` once
//! destroyed (the C `refcnt`: a channel in use cannot be destroyed, EBUSY);
//! the CQ's kernel `user_handle` is its C pointer, which
//! the completion events carry back; its destroy goes through
//! `context::events::destroy`, which waits for the events' acknowledgement.

use super::async_event::read_desc;
use crate::abi::*;
use crate::context::{Context, New, Obj, ObjRef};
use crate::entry::{Errno, Result};
use crate::object::slab::Slab;
use crate::object::{self, CObject};
use crate::uverbs::device::CompEventDesc;
use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::Arc;

/// A completion channel: the C struct, then the event fd, which closes with
/// the last reference to the channel.
#[repr(C)]
pub(crate) struct Channel {
    c: ibv_comp_channel,
    fd: OwnedFd,
}

// SAFETY: plain data (the context pointer is an address only) and an fd;
// `refcnt` is only accessed atomically.
#[allow(unsafe_code)]
unsafe impl Send for Channel {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl Sync for Channel {}

static CHANNELS: Slab<Channel> = Slab::new();

fn state(ch: &Obj) -> Result<&Channel> {
    // SAFETY: the registered record keeps its object unreleased while `ch`
    // is borrowed; only CHANNELS fills its slots.
    #[allow(unsafe_code)]
    unsafe { CHANNELS.get(ch.addr().as_ptr()) }.ok_or(Errno::EINVAL)
}

pub(crate) fn create_comp_channel(ctx: &Arc<Context>) -> Result<New> {
    let fd = ctx.uverbs.create_comp_channel()?;
    let c = ibv_comp_channel {
        context: ctx.c_ptr(),
        fd: fd.as_raw_fd(),
        refcnt: 0,
    };
    Ok(CHANNELS.vacant().fill(Channel { c, fd }))
}

/// Whether the channel may go: EBUSY while CQs use it. Its fd closes when the
/// last reference does.
pub(crate) fn destroy_comp_channel(ch: &Obj) -> Result<()> {
    if ch.cq_refs() != 0 {
        return Err(Errno::EBUSY);
    }
    Ok(())
}

/// Waits for (or, on a non-blocking fd, polls) the next completion event:
/// the CQ and its cq_context. A CQ we do not know (not created with its C
/// pointer as handle, or gone) is EINVAL, where rdma-core would crash.
pub(crate) fn get_cq_event(ch: &Obj) -> Result<(*mut ibv_cq, *mut c_void)> {
    let d: CompEventDesc = read_desc(state(ch)?.fd.as_fd())?;
    let p = d.cq_handle as usize as *mut ibv_cq;
    let cq: ObjRef = object::get(p)?;
    Ok((p, cq.read_c(|c: &ibv_cq| c.cq_context)))
}
