//! XRC and extended SRQs: ibv_cmd_open_xrcd, ibv_cmd_close_xrcd,
//! ibv_cmd_create_srq_ex, ibv_cmd_open_qp, with rdma-core 44's checks. The
//! kernel commands are rdma-core's: the write() ones OPEN_XRCD and OPEN_QP
//! (they have no other), the SRQ_CREATE ioctl method with its write()
//! fallback, CLOSE_XRCD's ioctl method with its fallback.

use super::{Bufs, Live};
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::uverbs::qp::{CreateQpResp, OpenQp};
use crate::uverbs::srq::{CreateSrqResp, CreateXsrq};
use std::ffi::c_int;

/// `VERBS_XRCD_HANDLE`, `VERBS_QP_XRCD` (driver.h).
const VERBS_XRCD_HANDLE: u32 = 1 << 0;
const VERBS_QP_XRCD: u32 = 1 << 0;

/// Whether a caller's struct of `size` bytes reaches past `end` (vext_field_avail).
fn avail(size: c_int, end: usize) -> bool {
    usize::try_from(size).is_ok_and(|s| s >= end)
}

/// `xrcd` is the plugin's new XRCD of `vxrcd_size` bytes (maybe shorter
/// than ours: written through its pointer, as far as it reaches).
pub(crate) fn open_xrcd(
    ctx: *mut ibv_context,
    xrcd: Live<verbs_xrcd>,
    vxrcd_size: c_int,
    a: &ibv_xrcd_init_attr,
    mut b: Bufs,
) -> Result<()> {
    if a.comp_mask >= ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_RESERVED.0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let need = ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_FD.0
        | ibv_xrcd_init_attr_mask::IBV_XRCD_INIT_ATTR_OFLAGS.0;
    if a.comp_mask & need != need {
        return Err(Errno::EINVAL);
    }
    let core = size_of::<crate::uverbs::xrcd::OpenXrcd>();
    let (di, dout) = b.split(core, 4);
    let h = with_uverbs(ctx, |u| u.open_xrcd(a.fd, a.oflags as u32, di, dout))?;
    let xrcd = xrcd.ptr();
    // SAFETY: the plugin's new XRCD, of `vxrcd_size` bytes.
    unsafe {
        (*xrcd).xrcd.context = ctx;
        (*xrcd).comp_mask = 0;
        if avail(vxrcd_size, std::mem::offset_of!(verbs_xrcd, handle) + 4) {
            (*xrcd).comp_mask = VERBS_XRCD_HANDLE;
            (*xrcd).handle = h;
        }
    }
    b.put(&h);
    Ok(())
}

pub(crate) fn close_xrcd(xrcd: &verbs_xrcd) -> Result<()> {
    let (ctx, h) = (xrcd.xrcd.context, xrcd.handle);
    super::destroy_result(with_uverbs(ctx, |u| u.close_xrcd(h)))
}

/// set_vsrq: what an extended SRQ records of its creation.
fn set_vsrq(v: &mut verbs_srq, a: &ibv_srq_init_attr_ex, srq_num: u32) {
    let ty = srq_type(a);
    v.srq_type = ty;
    if ty == ibv_srq_type::IBV_SRQT_XRC {
        v.srq_num = srq_num;
        // container_of: the ibv_xrcd heads its verbs_xrcd.
        v.xrcd = a.xrcd.cast();
    }
    if a.comp_mask & ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_CQ.0 != 0 {
        v.cq = a.cq;
    }
}

fn srq_type(a: &ibv_srq_init_attr_ex) -> ibv_srq_type {
    if a.comp_mask & ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_TYPE.0 != 0 {
        a.srq_type
    } else {
        ibv_srq_type::IBV_SRQT_BASIC
    }
}

/// The CREATE_XSRQ request for `a`, with rdma-core's checks per SRQ type.
///
/// # Safety
/// The XRCD and CQ `a` names (by its mask) are the plugin's live objects.
pub(crate) unsafe fn xsrq_req(a: &ibv_srq_init_attr_ex, user_handle: u64) -> Result<CreateXsrq> {
    use ibv_srq_init_attr_mask as m;
    if a.comp_mask >= m::IBV_SRQ_INIT_ATTR_RESERVED.0 {
        return Err(Errno::EOPNOTSUPP);
    }
    if a.comp_mask & m::IBV_SRQ_INIT_ATTR_PD.0 == 0 || a.pd.is_null() {
        return Err(Errno::EINVAL);
    }
    let has = |b: ibv_srq_init_attr_mask| a.comp_mask & b.0 != 0;
    let ty = srq_type(a);
    let mut req = CreateXsrq {
        user_handle,
        srq_type: ty.0,
        // SAFETY: the PD the caller names.
        pd_handle: unsafe { (*a.pd).handle },
        max_wr: a.attr.max_wr,
        max_sge: a.attr.max_sge,
        srq_limit: a.attr.srq_limit,
        ..Default::default()
    };
    if ty == ibv_srq_type::IBV_SRQT_XRC {
        if !has(m::IBV_SRQ_INIT_ATTR_XRCD) || !has(m::IBV_SRQ_INIT_ATTR_CQ) {
            return Err(Errno::EINVAL);
        }
        let (x, c) = (a.xrcd.cast::<verbs_xrcd>(), a.cq);
        if x.is_null() || c.is_null() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: per the contract.
        (req.xrcd_handle, req.cq_handle) = unsafe { ((*x).handle, (*c).handle) };
    } else if ty == ibv_srq_type::IBV_SRQT_TM {
        if !has(m::IBV_SRQ_INIT_ATTR_CQ)
            || !has(m::IBV_SRQ_INIT_ATTR_TM)
            || a.tm_cap.max_num_tags == 0
            || a.cq.is_null()
        {
            return Err(Errno::EINVAL);
        }
        req.max_num_tags = a.tm_cap.max_num_tags;
        // SAFETY: per the contract.
        req.cq_handle = unsafe { (*a.cq).handle };
    }
    Ok(req)
}

pub(crate) fn create_srq_ex(
    ctx: *mut ibv_context,
    v: &mut verbs_srq,
    a: &mut ibv_srq_init_attr_ex,
    mut b: Bufs,
) -> Result<()> {
    // SAFETY: the objects the attributes name are the caller's.
    let req = unsafe { xsrq_req(a, std::ptr::from_mut(v) as u64)? };
    let core = size_of::<CreateSrqResp>();
    let (di, dout) = b.split(size_of::<CreateXsrq>(), core);
    // SAFETY: the plugin's context (the kernel checks the fd).
    let async_fd = unsafe { ctx.as_ref() }.map(|c| c.async_fd);
    let r = with_uverbs(ctx, |u| u.create_srq_ex(&req, async_fd, di, dout))?;
    a.attr.max_wr = r.max_wr;
    a.attr.max_sge = r.max_sge;
    let s = &mut v.srq;
    s.context = ctx;
    s.handle = r.srq_handle;
    s.srq_context = a.srq_context;
    s.events_completed = 0;
    // SAFETY: the new SRQ's own mutex and condition.
    unsafe {
        libc::pthread_mutex_init(&mut s.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut s.cond, std::ptr::null());
    }
    b.put(&r);
    set_vsrq(v, a, r.srqn);
    Ok(())
}

/// `vqp` is the plugin's new QP of `vqp_size` bytes (maybe without our
/// `xrcd`: written through its pointer, as far as it reaches).
pub(crate) fn open_qp(
    ctx: *mut ibv_context,
    vqp: Live<verbs_qp>,
    vqp_size: c_int,
    a: &ibv_qp_open_attr,
    mut b: Bufs,
) -> Result<()> {
    use ibv_qp_open_attr_mask as m;
    if a.comp_mask >= m::IBV_QP_OPEN_ATTR_RESERVED.0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let need = m::IBV_QP_OPEN_ATTR_XRCD.0 | m::IBV_QP_OPEN_ATTR_NUM.0 | m::IBV_QP_OPEN_ATTR_TYPE.0;
    let x = a.xrcd.cast::<verbs_xrcd>();
    if a.comp_mask & need != need || x.is_null() {
        return Err(Errno::EINVAL);
    }
    let req = OpenQp {
        user_handle: vqp.ptr() as u64,
        // SAFETY: the caller's XRCD.
        pd_handle: unsafe { (*x).handle },
        qpn: a.qp_num,
        qp_type: a.qp_type.0 as u8,
        ..Default::default()
    };
    let (di, dout) = b.split(size_of::<OpenQp>(), size_of::<CreateQpResp>());
    let r = with_uverbs(ctx, |u| u.open_qp(&req, di, dout))?;
    let vqp = vqp.ptr();
    // SAFETY: the plugin's new QP, of `vqp_size` bytes.
    unsafe {
        let q = &mut *vqp.cast::<ibv_qp>();
        q.handle = r.qp_handle;
        q.context = ctx;
        q.qp_context = a.qp_context;
        q.pd = std::ptr::null_mut();
        q.send_cq = std::ptr::null_mut();
        q.recv_cq = std::ptr::null_mut();
        q.srq = std::ptr::null_mut();
        q.qp_num = a.qp_num;
        q.qp_type = a.qp_type;
        q.state = ibv_qp_state::IBV_QPS_UNKNOWN;
        q.events_completed = 0;
        libc::pthread_mutex_init(&mut q.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut q.cond, std::ptr::null());
        (*vqp).comp_mask = 0;
        if avail(vqp_size, std::mem::offset_of!(verbs_qp, xrcd) + 8) {
            (*vqp).comp_mask = VERBS_QP_XRCD;
            (*vqp).xrcd = x;
        }
    }
    b.put(&r);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(pd: &mut ibv_pd) -> ibv_srq_init_attr_ex {
        // SAFETY: plain C data; all-zero is valid.
        let mut a: ibv_srq_init_attr_ex = unsafe { std::mem::zeroed() };
        a.comp_mask = ibv_srq_init_attr_mask::IBV_SRQ_INIT_ATTR_PD.0;
        a.pd = pd;
        a.attr.max_wr = 16;
        a.attr.max_sge = 2;
        a.attr.srq_limit = 3;
        a
    }

    #[test]
    fn a_basic_srq_is_a_basic_xsrq_on_its_pd() {
        // SAFETY: plain C data.
        let mut pd: ibv_pd = unsafe { std::mem::zeroed() };
        pd.handle = 5;
        let a = attr(&mut pd);
        // SAFETY: no XRCD or CQ named.
        let r = unsafe { xsrq_req(&a, 0x1234) }.unwrap();
        assert_eq!((r.srq_type, r.pd_handle, r.user_handle), (0, 5, 0x1234));
        assert_eq!((r.max_wr, r.max_sge, r.srq_limit), (16, 2, 3));
        assert_eq!((r.xrcd_handle, r.cq_handle, r.max_num_tags), (0, 0, 0));
    }

    #[test]
    fn an_xrc_srq_carries_its_xrcd_and_cq() {
        use ibv_srq_init_attr_mask as m;
        // SAFETY: plain C data.
        let (mut pd, mut x, mut cq): (ibv_pd, verbs_xrcd, ibv_cq) =
            unsafe { (std::mem::zeroed(), std::mem::zeroed(), std::mem::zeroed()) };
        x.handle = 7;
        cq.handle = 9;
        let mut a = attr(&mut pd);
        a.comp_mask |= m::IBV_SRQ_INIT_ATTR_TYPE.0 | m::IBV_SRQ_INIT_ATTR_XRCD.0;
        a.srq_type = ibv_srq_type::IBV_SRQT_XRC;
        a.xrcd = (&raw mut x).cast();
        // Without the CQ: EINVAL, as rdma-core.
        // SAFETY: our objects.
        assert_eq!(unsafe { xsrq_req(&a, 0) }.err(), Some(Errno::EINVAL));
        a.comp_mask |= m::IBV_SRQ_INIT_ATTR_CQ.0;
        a.cq = &mut cq;
        // SAFETY: as above.
        let r = unsafe { xsrq_req(&a, 0) }.unwrap();
        assert_eq!((r.srq_type, r.xrcd_handle, r.cq_handle), (1, 7, 9));
    }

    #[test]
    fn tm_needs_tags_and_unknown_bits_are_eopnotsupp() {
        use ibv_srq_init_attr_mask as m;
        // SAFETY: plain C data.
        let (mut pd, mut cq): (ibv_pd, ibv_cq) =
            unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
        let mut a = attr(&mut pd);
        a.comp_mask |=
            m::IBV_SRQ_INIT_ATTR_TYPE.0 | m::IBV_SRQ_INIT_ATTR_CQ.0 | m::IBV_SRQ_INIT_ATTR_TM.0;
        a.srq_type = ibv_srq_type::IBV_SRQT_TM;
        a.cq = &mut cq;
        // SAFETY: our objects.
        assert_eq!(unsafe { xsrq_req(&a, 0) }.err(), Some(Errno::EINVAL));
        a.tm_cap.max_num_tags = 4;
        // SAFETY: as above.
        assert_eq!(unsafe { xsrq_req(&a, 0) }.unwrap().max_num_tags, 4);
        a.comp_mask |= m::IBV_SRQ_INIT_ATTR_RESERVED.0;
        // SAFETY: as above.
        assert_eq!(unsafe { xsrq_req(&a, 0) }.err(), Some(Errno::EOPNOTSUPP));
        a.comp_mask = m::IBV_SRQ_INIT_ATTR_TYPE.0;
        // SAFETY: as above.
        assert_eq!(unsafe { xsrq_req(&a, 0) }.err(), Some(Errno::EINVAL));
    }
}
