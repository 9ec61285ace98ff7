//! Completion counters (rdma-core 65, IBVERBS_PRIVATE_65): create, destroy,
//! set/increment and read either entry (completions or errors), attach to
//! a QP. All are methods of the COMP_CNTR object (QP's for the attach);
//! a kernel without them answers EPROTONOSUPPORT, which the caller gets, as
//! from rdma-core (no write() command exists to fall back to).

use super::destroy_result;
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

/// The QP attach operations rdma-core knows; verbs.h's bits and the
/// kernel's are the same values.
pub(crate) const ATTACH_OPS: u32 = 0x3f;

/// Which counter of a completion counter a command acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    Comp,
    Err,
}

impl Entry {
    fn id(self) -> u64 {
        match self {
            Entry::Comp => IB_UVERBS_COMP_CNTR_ENTRY_COMP,
            Entry::Err => IB_UVERBS_COMP_CNTR_ENTRY_ERR,
        }
    }
}

/// What a modify does with its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Set,
    Inc,
}

/// The plugin's counter: its context and handle.
///
/// # Safety
/// `cc` is NULL or a counter of the plugin.
unsafe fn parts(cc: *mut ibv_comp_cntr) -> Result<(*mut ibv_context, u32)> {
    // SAFETY: per the contract.
    let c = unsafe { cc.as_ref() }.ok_or(Errno::EINVAL)?;
    Ok((c.context, c.handle))
}

pub(crate) unsafe fn create_comp_cntr(
    ctx: *mut ibv_context,
    cc: *mut ibv_comp_cntr,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    if ctx.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the plugin's new counter.
    let c = unsafe { cc.as_mut() }.ok_or(Errno::EINVAL)?;
    c.context = ctx;
    // SAFETY: the plugin's link chain.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_COMP_CNTR,
            UVERBS_METHOD_COMP_CNTR_CREATE,
            1,
            link,
        )?
    };
    let h = f.obj_out(UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
    // SAFETY: a hosted context.
    unsafe { f.execute(ctx)? };
    c.handle = f.read_obj(h);
    Ok(())
}

pub(crate) unsafe fn destroy_comp_cntr(cc: *mut ibv_comp_cntr) -> Result<()> {
    // SAFETY: a counter of the plugin.
    let (ctx, handle) = unsafe { parts(cc)? };
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_COMP_CNTR,
            UVERBS_METHOD_COMP_CNTR_DESTROY,
            1,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, handle);
    // SAFETY: its context.
    destroy_result(unsafe { f.execute(ctx) })
}

pub(crate) unsafe fn modify_comp_cntr(
    cc: *mut ibv_comp_cntr,
    entry: Entry,
    op: Op,
    value: u64,
) -> Result<()> {
    // SAFETY: a counter of the plugin.
    let (ctx, handle) = unsafe { parts(cc)? };
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_COMP_CNTR,
            UVERBS_METHOD_COMP_CNTR_MODIFY,
            4,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, handle);
    f.const_in(UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry.id());
    let op = match op {
        Op::Set => IB_UVERBS_COMP_CNTR_MODIFY_OP_SET,
        Op::Inc => IB_UVERBS_COMP_CNTR_MODIFY_OP_INC,
    };
    f.const_in(UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op);
    f.u64_in(UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
    // SAFETY: its context.
    unsafe { f.execute(ctx) }
}

pub(crate) unsafe fn read_comp_cntr(
    cc: *mut ibv_comp_cntr,
    entry: Entry,
    value: *mut u64,
) -> Result<()> {
    // SAFETY: a counter of the plugin.
    let (ctx, handle) = unsafe { parts(cc)? };
    if value.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_COMP_CNTR,
            UVERBS_METHOD_COMP_CNTR_READ,
            3,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_READ_COMP_CNTR_HANDLE, handle);
    f.const_in(UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry.id());
    // SAFETY: the caller's value, live until execute returns.
    unsafe {
        f.ptr_out(UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value.cast(), 8);
        f.execute(ctx)
    }
}

pub(crate) unsafe fn qp_attach_comp_cntr(
    qp: *mut ibv_qp,
    cc: *mut ibv_comp_cntr,
    attr: *mut ibv_qp_attach_comp_cntr_attr,
) -> Result<()> {
    // SAFETY: the plugin's QP, counter and the caller's attributes.
    let (q, (_, handle), a) = unsafe {
        (
            qp.as_ref().ok_or(Errno::EINVAL)?,
            parts(cc)?,
            attr.as_ref().ok_or(Errno::EINVAL)?,
        )
    };
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_QP,
            UVERBS_METHOD_QP_ATTACH_COMP_CNTR,
            3,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, q.handle);
    f.obj_in(UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE, handle);
    f.u32_in(
        UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
        a.op_mask & ATTACH_OPS,
    );
    // SAFETY: the QP's context.
    unsafe { f.execute(q.context) }
}
