//! ibv_get_async_event / ibv_ack_async_event over the context's async fd.
//!
//! The kernel reports the object of an event by the `user_handle` given when
//! the object was created. Our convention, for every CQ, QP, SRQ and WQ: that
//! handle is the address of the object's C struct (the pointer C holds), so
//! the event hands C back its own pointer, as rdma-core does. (Only a hosted
//! plugin makes WQs; they are registered by its ibv_cmd_create_wq.)
#![allow(unsafe_code)]

use crate::abi::*;
use crate::context::Context;
use crate::entry::{Errno, Result, trace_level, trace_line};
use crate::object::{self, KindOf};
use crate::uverbs::Pod;
use crate::uverbs::device::AsyncEventDesc;
use std::os::fd::{AsFd, BorrowedFd};

/// Reads one event descriptor from an event fd. Blocks unless the fd is
/// O_NONBLOCK (then EAGAIN when there is none); a short read is EIO.
pub(crate) fn read_desc<T: Pod>(fd: BorrowedFd<'_>) -> Result<T> {
    let mut d = T::zeroed();
    let buf = d.as_bytes_mut();
    if nix::unistd::read(fd, buf)? != size_of::<T>() {
        return Err(Errno::EIO);
    }
    Ok(d)
}

/// What an event's element names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    Cq,
    Qp,
    Srq,
    Wq,
    Port,
}

pub(crate) fn element_of(t: ibv_event_type) -> Element {
    match t {
        ibv_event_type::IBV_EVENT_CQ_ERR => Element::Cq,
        ibv_event_type::IBV_EVENT_QP_FATAL
        | ibv_event_type::IBV_EVENT_QP_REQ_ERR
        | ibv_event_type::IBV_EVENT_QP_ACCESS_ERR
        | ibv_event_type::IBV_EVENT_COMM_EST
        | ibv_event_type::IBV_EVENT_SQ_DRAINED
        | ibv_event_type::IBV_EVENT_PATH_MIG
        | ibv_event_type::IBV_EVENT_PATH_MIG_ERR
        | ibv_event_type::IBV_EVENT_QP_LAST_WQE_REACHED => Element::Qp,
        ibv_event_type::IBV_EVENT_SRQ_ERR | ibv_event_type::IBV_EVENT_SRQ_LIMIT_REACHED => {
            Element::Srq
        }
        ibv_event_type::IBV_EVENT_WQ_FATAL => Element::Wq,
        _ => Element::Port,
    }
}

fn known<C: KindOf>(p: *const C) -> bool {
    let ok = object::get::<C, Context>(p).is_ok();
    if !ok && trace_level() >= 1 {
        trace_line(format_args!(
            "async event for an object we do not know: {p:p}"
        ));
    }
    ok
}

/// Waits for (or, on a non-blocking fd, polls) the next async event.
pub(crate) fn get_async_event(ctx: &Context, ev: &mut ibv_async_event) -> Result<()> {
    let d: AsyncEventDesc = read_desc(ctx.async_fd.as_fd())?;
    let t = ibv_event_type(d.event_type);
    let h = d.element as usize;
    ev.event_type = t;
    // The handle is handed back as is (see the module doc), known or not.
    ev.element = match element_of(t) {
        Element::Cq => {
            known(h as *const ibv_cq);
            ibv_async_event_element { cq: h as *mut _ }
        }
        Element::Qp => {
            known(h as *const ibv_qp);
            ibv_async_event_element { qp: h as *mut _ }
        }
        Element::Srq => {
            known(h as *const ibv_srq);
            ibv_async_event_element { srq: h as *mut _ }
        }
        Element::Wq => {
            known(h as *const ibv_wq);
            ibv_async_event_element { wq: h as *mut _ }
        }
        Element::Port => ibv_async_event_element {
            port_num: d.element as i32,
        },
    };
    Ok(())
}

fn ack_on<C: KindOf>(p: *const C) {
    if let Ok(o) = object::get::<C, Context>(p) {
        o.ack_async_event();
    }
}

/// Counts the acknowledgement on the event's object; events of objects we do
/// not know (and port/device events) need none.
pub(crate) fn ack_async_event(ev: &ibv_async_event) {
    // SAFETY: the pointer members share offset 0 and size; the address is only
    // used as a registry key, never dereferenced.
    let p = unsafe { ev.element.cq } as usize;
    match element_of(ev.event_type) {
        Element::Cq => ack_on(p as *const ibv_cq),
        Element::Qp => ack_on(p as *const ibv_qp),
        Element::Srq => ack_on(p as *const ibv_srq),
        Element::Wq => ack_on(p as *const ibv_wq),
        Element::Port => {}
    }
}
