//! Completion channels: ibv_create_comp_channel, ibv_destroy_comp_channel,
//! ibv_get_cq_event, ibv_ack_cq_events.
//!
//! For the CQ verbs (their provider): a CQ created on a channel calls
//! `channel.attach_cq()` once created and `channel.detach_cq()` once destroyed
//! (the C `refcnt`: a channel in use cannot be destroyed, EBUSY); the CQ's
//! kernel `user_handle` is its C pointer (`cq.c_ptr() as u64`), which the
//! completion events carry back; its destroy waits with
//! `cq.events.wait_acked(comp_events_reported, async_events_reported)`.
#![allow(unsafe_code)]

use super::async_event::read_desc;
use crate::abi::*;
use crate::context::{CompChannel, Context, Cq};
use crate::entry::{Errno, Result};
use crate::object::{self, CObject};
use crate::uverbs::device::CompEventDesc;
use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::{Arc, Mutex};

/// The library's state of a channel (its `hw`).
pub struct ChannelState {
    fd: OwnedFd,
    /// CQs using the channel (mirrored in the C struct's `refcnt`).
    users: Mutex<i32>,
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
    let hw = ChannelState {
        fd,
        users: Mutex::new(0),
    };
    Ok(Arc::new(CompChannel::new(c, ctx.clone(), Box::new(hw))))
}

/// Whether the channel may go: EBUSY while CQs use it. Its fd closes when the
/// last reference does.
pub fn destroy_comp_channel(ch: &CompChannel) -> Result<()> {
    let users = state(ch)?.users.lock().unwrap_or_else(|p| p.into_inner());
    if *users != 0 {
        return Err(Errno::EBUSY);
    }
    Ok(())
}

impl CompChannel {
    fn add_users(&self, d: i32) {
        let Ok(s) = state(self) else { return };
        let mut u = s.users.lock().unwrap_or_else(|p| p.into_inner());
        *u += d;
        // SAFETY: refcnt is written only here, under `users`; C only reads it.
        unsafe { (&raw mut (*self.c_ptr()).refcnt).write(*u) };
    }

    /// A CQ now reports its completions here.
    pub fn attach_cq(&self) {
        self.add_users(1);
    }

    /// A CQ that reported here was destroyed.
    pub fn detach_cq(&self) {
        self.add_users(-1);
    }
}

/// Waits for (or, on a non-blocking fd, polls) the next completion event:
/// the CQ and its cq_context. A CQ we do not know (not created with its C
/// pointer as handle, or gone) is EINVAL, where rdma-core would crash.
pub fn get_cq_event(ch: &CompChannel) -> Result<(*mut ibv_cq, *mut c_void)> {
    let d: CompEventDesc = read_desc(state(ch)?.fd.as_fd())?;
    let p = d.cq_handle as usize as *mut ibv_cq;
    let cq = object::lookup::<Cq>(p)?;
    // SAFETY: the CQ is alive (we hold it); cq_context is set at creation.
    let x = unsafe { (&raw const (*cq.c_ptr()).cq_context).read() };
    Ok((p, x))
}

pub fn ack_cq_events(cq: &Cq, n: u32) {
    cq.events.ack_comp(n);
}
