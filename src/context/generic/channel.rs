//! Completion channels: ibv_create_comp_channel, ibv_destroy_comp_channel,
//! ibv_get_cq_event. (ibv_ack_cq_events is `Cq::ack_comp_events`, see
//! `context::events`.)
//!
//! For the CQ verbs (their provider): a CQ created on a channel calls
//! `channel.add_cq_ref()` once created and `channel.drop_cq_ref()` once
//! destroyed (the C `refcnt`: a channel in use cannot be destroyed, EBUSY);
//! the CQ's kernel `user_handle` is its C pointer (`cq.c_ptr() as u64`), which
//! the completion events carry back; its destroy goes through
//! `context::events::destroy`, which waits for the events' acknowledgement.

use super::async_event::read_desc;
use crate::abi::*;
use crate::context::{CompChannel, Context, Cq};
use crate::entry::{Errno, Result};
use crate::object::{self, CObject};
use crate::uverbs::device::CompEventDesc;
use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::Arc;

/// The library's state of a channel (its `hw`): the event fd, which closes
/// with the last reference to the channel.
pub struct ChannelState {
    fd: OwnedFd,
}

fn state(ch: &CompChannel) -> Result<&ChannelState> {
    ch.hw.downcast_ref::<ChannelState>().ok_or(Errno::EINVAL)
}

pub fn create_comp_channel(ctx: &Arc<Context>) -> Result<Arc<CompChannel>> {
    let fd = ctx.uverbs.create_comp_channel()?;
    let c = ibv_comp_channel {
        context: ctx.c_ptr(),
        fd: fd.as_raw_fd(),
        refcnt: 0,
    };
    let hw = ChannelState { fd };
    Ok(Arc::new(CompChannel::new(c, ctx.clone(), Box::new(hw))))
}

/// Whether the channel may go: EBUSY while CQs use it. Its fd closes when the
/// last reference does.
pub fn destroy_comp_channel(ch: &CompChannel) -> Result<()> {
    if ch.cq_refs() != 0 {
        return Err(Errno::EBUSY);
    }
    Ok(())
}

/// Waits for (or, on a non-blocking fd, polls) the next completion event:
/// the CQ and its cq_context. A CQ we do not know (not created with its C
/// pointer as handle, or gone) is EINVAL, where rdma-core would crash.
pub fn get_cq_event(ch: &CompChannel) -> Result<(*mut ibv_cq, *mut c_void)> {
    let d: CompEventDesc = read_desc(state(ch)?.fd.as_fd())?;
    let p = d.cq_handle as usize as *mut ibv_cq;
    let cq = object::lookup::<Cq>(p)?;
    Ok((p, cq.c_get().cq_context))
}
