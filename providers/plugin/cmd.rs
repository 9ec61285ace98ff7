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

use super::context::{set_async_fd, with_context, with_context_in, with_uverbs, with_uverbs_in};
use crate::abi::*;
use crate::context::{Context, EventCounts, generic};
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::object;
use crate::object::Kind;
use crate::uverbs::Pod;
use crate::uverbs::mr::RegMr;
use crate::uverbs::qp::CreateQp;
use crate::uverbs::srq::{CreateSrq, ModifySrq};
use std::ffi::{c_int, c_void};

pub(crate) mod comp_cntr;
pub(crate) mod counters;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod dm;
pub(crate) mod dmabuf;
pub(crate) mod dmah;
pub(crate) mod flow;
pub(crate) mod flow_action;
pub(crate) mod mr;
pub(crate) mod post;
pub(crate) mod qp_ex;
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

pub(crate) unsafe fn get_context(
    vctx: *mut crate::driver_abi::v34::verbs_context,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a hosted context being set up.
    let ctx = unsafe { &raw mut (*vctx).context };
    let core = size_of::<crate::uverbs::device::GetContextResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, 8, resp, resp_size, core) };
    let info = with_uverbs(ctx, |u| u.get_context(di, dout))?;
    let r = crate::uverbs::device::GetContextResp {
        async_fd: std::os::fd::AsRawFd::as_raw_fd(&info.async_fd) as u32,
        num_comp_vectors: info.num_comp_vectors,
    };
    // SAFETY: as above.
    unsafe { put_resp(resp, resp_size, &r) };
    // SAFETY: the hosted context being set up.
    unsafe { set_async_fd(ctx, info.async_fd, info.num_comp_vectors) }
}

pub(crate) unsafe fn query_device_any(
    ctx: *mut ibv_context,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut c_void,
    resp_size: *mut usize,
) -> Result<()> {
    // SAFETY: the caller's struct of `attr_size` bytes; ours is at least that big.
    let a = unsafe { attr.as_mut() }.ok_or(Errno::EINVAL)?;
    // SAFETY: the plugin's response buffer and its size, as given.
    with_context(ctx, |c| unsafe {
        query_device_into(c, a, attr_size, resp, resp_size)
    })
}

/// [`query_device_any`] on our Context.
///
/// # Safety
/// As [`query_device_any`].
unsafe fn query_device_into(
    c: &Context,
    a: &mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut c_void,
    resp_size: *mut usize,
) -> Result<()> {
    use crate::uverbs::device::ExQueryDeviceResp;
    let size = attr_size.min(size_of::<ibv_device_attr_ex>());
    let mut own;
    // The plugin's response buffer when it holds a whole aligned response
    // (its `struct ib_uverbs_ex_query_device_resp`, as rdma-core hands the
    // kernel): the kernel writes it directly, no copy afterwards.
    // SAFETY: the plugin's response buffer and its size, as given.
    let direct = unsafe {
        !resp.is_null()
            && !resp_size.is_null()
            && *resp_size >= size_of::<ExQueryDeviceResp>()
            && resp.cast::<ExQueryDeviceResp>().is_aligned()
    };
    let r = if direct {
        let p = resp.cast::<ExQueryDeviceResp>();
        // SAFETY: checked just above: a whole, aligned response of the
        // plugin's, which any bytes are a valid value of; zeroed first.
        unsafe {
            p.write(ExQueryDeviceResp::default());
            &mut *p
        }
    } else {
        own = ExQueryDeviceResp::default();
        &mut own
    };
    if size == size_of::<ibv_device_attr_ex>() {
        // The whole struct: filled in place, no copy.
        generic::device::query_device_any(c, a, size, r)?;
    } else {
        let mut full = generic::device::zeroed_attr_ex();
        generic::device::query_device_any(c, &mut full, size, r)?;
        // SAFETY: `size` bytes of the caller's struct.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (&raw const full).cast::<u8>(),
                (a as *mut ibv_device_attr_ex).cast::<u8>(),
                size,
            )
        };
    }
    if direct {
        // SAFETY: as above.
        unsafe { *resp_size = size_of::<ExQueryDeviceResp>() };
    } else if !resp.is_null() && !resp_size.is_null() {
        // SAFETY: the plugin's response buffer and its size.
        unsafe {
            let n = (*resp_size).min(size_of::<ExQueryDeviceResp>());
            let own: *const ExQueryDeviceResp = r;
            std::ptr::copy_nonoverlapping(own.cast::<u8>(), resp.cast::<u8>(), n);
            *resp_size = n;
        }
    }
    Ok(())
}

pub(crate) unsafe fn query_port(
    ctx: *mut ibv_context,
    port: u8,
    attr: *mut ibv_port_attr,
) -> Result<()> {
    // SAFETY: the plugin's out struct.
    let a = unsafe { attr.as_mut() }.ok_or(Errno::EINVAL)?;
    with_context(ctx, |c| generic::port::query_port(c, port, a))
}

pub(crate) unsafe fn alloc_pd(
    ctx: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, 8, resp, resp_size, 4) };
    let h = with_uverbs(ctx, |u| u.alloc_pd(di, dout))?;
    // SAFETY: the plugin's new PD; its response buffer.
    unsafe {
        (*pd).handle = h;
        (*pd).context = ctx;
        put_resp(resp, resp_size, &h);
    }
    Ok(())
}

pub(crate) unsafe fn dealloc_pd(pd: *mut ibv_pd) -> Result<()> {
    // SAFETY: an object of the plugin.
    unsafe { on(super::call::current(), pd, |u, h| u.dealloc_pd(h)) }
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: *mut verbs_mr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a PD of the plugin.
    let (ctx, pdh) = unsafe { ((*pd).context, (*pd).handle) };
    let req = RegMr {
        start: addr as u64,
        length: length as u64,
        hca_va,
        pd_handle: pdh,
        access_flags: access as u32,
        ..Default::default()
    };
    let core = size_of::<crate::uverbs::mr::RegMrResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, size_of::<RegMr>(), resp, resp_size, core) };
    let r = with_uverbs(ctx, |u| u.reg_mr(&req, di, dout))?;
    // SAFETY: the plugin's new MR and response buffer.
    unsafe {
        let m = &mut (*vmr).ibv_mr;
        m.handle = r.mr_handle;
        m.lkey = r.lkey;
        m.rkey = r.rkey;
        m.context = ctx;
        (*vmr).mr_type = IBV_MR_TYPE_MR;
        (*vmr).access = access;
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

pub(crate) unsafe fn dereg_mr(vmr: *mut verbs_mr) -> Result<()> {
    // SAFETY: an MR of the plugin.
    let (ctx, h, t) = unsafe { ((*vmr).ibv_mr.context, (*vmr).ibv_mr.handle, (*vmr).mr_type) };
    if t == IBV_MR_TYPE_NULL_MR {
        return Ok(());
    }
    with_uverbs(ctx, |u| u.dereg_mr(h))
}

pub(crate) unsafe fn alloc_mw(
    pd: *mut ibv_pd,
    ty: u32,
    mw: *mut ibv_mw,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a PD of the plugin.
    let (ctx, pdh) = unsafe { ((*pd).context, (*pd).handle) };
    let core = size_of::<crate::uverbs::mw::AllocMwResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, 8, resp, resp_size, core) };
    let di = di.get(8..).unwrap_or(&[]);
    let r = with_uverbs(ctx, |u| u.alloc_mw(pdh, ty as u8, di, dout))?;
    // SAFETY: the plugin's new MW.
    unsafe {
        (*mw).context = ctx;
        (*mw).pd = pd;
        (*mw).rkey = r.rkey;
        (*mw).handle = r.mw_handle;
        (*mw).r#type = ibv_mw_type(ty);
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

pub(crate) unsafe fn dealloc_mw(mw: *mut ibv_mw) -> Result<()> {
    // SAFETY: an object of the plugin.
    unsafe { on(super::call::current(), mw, |u, h| u.dealloc_mw(h)) }
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

/// The core fields rdma-core sets on a new QP.
///
/// # Safety
/// `qp` is the plugin's new QP.
unsafe fn init_qp(
    qp: *mut ibv_qp,
    ctx: *mut ibv_context,
    a: &ibv_qp_init_attr,
    pd: *mut ibv_pd,
    handle: u32,
    qpn: u32,
) {
    // SAFETY: per the contract.
    let q = unsafe { &mut *qp };
    q.handle = handle;
    q.qp_num = qpn;
    q.context = ctx;
    q.qp_context = a.qp_context;
    q.pd = pd;
    q.send_cq = a.send_cq;
    q.recv_cq = a.recv_cq;
    q.srq = a.srq;
    q.qp_type = a.qp_type;
    q.state = ibv_qp_state::IBV_QPS_RESET;
    q.events_completed = 0;
    // SAFETY: the QP's own mutex and condition.
    unsafe {
        libc::pthread_mutex_init(&mut q.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut q.cond, std::ptr::null());
    }
}

/// The kernel handle of a CQ or SRQ argument (0 for NULL); EINVAL unless it
/// is a live object in the registry.
fn handle_of<T>(p: *mut T, kind: Kind) -> Result<u32> {
    if p.is_null() {
        return Ok(0);
    }
    match kind {
        // The hosted context's objects are all in the registry's map.
        Kind::Cq => object::read_mapped::<ibv_cq, Context, _>(p.cast(), |c| c.handle),
        Kind::Srq => object::read_mapped::<ibv_srq, Context, _>(p.cast(), |c| c.handle),
        _ => Err(Errno::EINVAL),
    }
}

/// The CREATE_QP request for `a` (the caller's CQs and SRQ checked).
#[inline(always)]
fn qp_req(a: &ibv_qp_init_attr, user_handle: u64, pd_handle: u32) -> Result<CreateQp> {
    let send = handle_of(a.send_cq, Kind::Cq)?;
    Ok(CreateQp {
        user_handle,
        pd_handle,
        send_cq_handle: send,
        // Most QPs share one CQ: one lookup.
        recv_cq_handle: if a.recv_cq == a.send_cq {
            send
        } else {
            handle_of(a.recv_cq, Kind::Cq)?
        },
        srq_handle: handle_of(a.srq, Kind::Srq)?,
        max_send_wr: a.cap.max_send_wr,
        max_recv_wr: a.cap.max_recv_wr,
        max_send_sge: a.cap.max_send_sge,
        max_recv_sge: a.cap.max_recv_sge,
        max_inline_data: a.cap.max_inline_data,
        sq_sig_all: a.sq_sig_all as u8,
        qp_type: a.qp_type.0 as u8,
        is_srq: (!a.srq.is_null()) as u8,
        ..Default::default()
    })
}

/// The capacities the kernel granted, back into the caller's attributes.
fn set_caps(cap: &mut ibv_qp_cap, r: &crate::uverbs::qp::CreateQpResp) {
    cap.max_send_wr = r.max_send_wr;
    cap.max_recv_wr = r.max_recv_wr;
    cap.max_send_sge = r.max_send_sge;
    cap.max_recv_sge = r.max_recv_sge;
    cap.max_inline_data = r.max_inline_data;
}

/// The basic attributes of an extended set.
fn init_of(a: &ibv_qp_init_attr_ex) -> ibv_qp_init_attr {
    ibv_qp_init_attr {
        qp_context: a.qp_context,
        send_cq: a.send_cq,
        recv_cq: a.recv_cq,
        srq: a.srq,
        cap: a.cap,
        qp_type: a.qp_type,
        sq_sig_all: a.sq_sig_all,
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn create_qp(
    pd: *mut ibv_pd,
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, pdh, a) = unsafe { parts(pd, attr)? };
    let req = qp_req(a, qp as u64, pdh)?;
    let core = size_of::<crate::uverbs::qp::CreateQpResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, size_of::<CreateQp>(), resp, resp_size, core) };
    let r = with_uverbs(ctx, |u| u.create_qp(&req, di, dout))?;
    set_caps(&mut a.cap, &r);
    // SAFETY: the plugin's new QP and response buffer.
    unsafe {
        init_qp(qp, ctx, a, pd, r.qp_handle, r.qpn);
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

#[inline]
pub(crate) unsafe fn modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, h, a) = unsafe { parts(qp, attr)? };
    // Built in place (see modify_fill).
    let mut req = crate::uverbs::qp::ModifyQp::default();
    generic::qp_attr::modify_fill(&mut req, h, a, mask)?;
    // SAFETY: the plugin's buffer.
    let di = unsafe { drv_in(cmd, cmd_size, size_of_val(&req)) };
    // The QP's state is the verb's to set (ibv_modify_qp, after the
    // plugin's op), as with rdma-core's ibv_cmd_modify_qp.
    with_uverbs(ctx, |u| u.modify_qp(&req, di))
}

pub(crate) unsafe fn query_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    mask: c_int,
    init: *mut ibv_qp_init_attr,
) -> Result<()> {
    // SAFETY: a QP of the plugin; the caller's out structs.
    let (ctx, h, a, i) = unsafe {
        (
            (*qp).context,
            (*qp).handle,
            attr.as_mut().ok_or(Errno::EINVAL)?,
            init.as_mut().ok_or(Errno::EINVAL)?,
        )
    };
    let m = generic::qp_attr::legacy_mask(mask)?;
    let r = with_uverbs(ctx, |u| u.query_qp(h, m, &[], &mut []))?;
    let (cap, sig) = generic::qp_attr::query_into(&r, a);
    // SAFETY: as above.
    unsafe {
        let q = &*qp;
        i.qp_context = q.qp_context;
        i.send_cq = q.send_cq;
        i.recv_cq = q.recv_cq;
        i.srq = q.srq;
        i.qp_type = q.qp_type;
    }
    i.cap = cap;
    i.sq_sig_all = sig;
    Ok(())
}

#[inline]
pub(crate) unsafe fn destroy_qp(qp: *mut ibv_qp) -> Result<()> {
    let fr = super::call::current();
    // SAFETY: an object of the plugin.
    let n = unsafe { on(fr, qp, |u, h| u.destroy_qp(h)) }?;
    wait_acked(fr, qp, EventCounts { comp: 0, async_: n });
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn create_srq(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, pdh, a) = unsafe { parts(pd, attr)? };
    let req = CreateSrq {
        user_handle: srq as u64,
        pd_handle: pdh,
        max_wr: a.attr.max_wr,
        max_sge: a.attr.max_sge,
        srq_limit: a.attr.srq_limit,
        ..Default::default()
    };
    let core = size_of::<crate::uverbs::srq::CreateSrqResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, size_of::<CreateSrq>(), resp, resp_size, core) };
    let r = with_uverbs(ctx, |u| u.create_srq(&req, di, dout))?;
    a.attr.max_wr = r.max_wr;
    a.attr.max_sge = r.max_sge;
    // SAFETY: the plugin's new SRQ and response buffer.
    unsafe {
        let s = &mut *srq;
        s.handle = r.srq_handle;
        s.context = ctx;
        s.srq_context = a.srq_context;
        s.pd = pd;
        s.events_completed = 0;
        libc::pthread_mutex_init(&mut s.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut s.cond, std::ptr::null());
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

pub(crate) unsafe fn modify_srq(
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_attr,
    mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, h, a) = unsafe { parts(srq, attr)? };
    let req = ModifySrq {
        srq_handle: h,
        attr_mask: mask as u32,
        max_wr: a.max_wr,
        srq_limit: a.srq_limit,
    };
    // SAFETY: the plugin's buffer.
    let di = unsafe { drv_in(cmd, cmd_size, size_of::<ModifySrq>()) };
    with_uverbs(ctx, |u| u.modify_srq(&req, di))
}

pub(crate) unsafe fn query_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, h, a) = unsafe { parts(srq, attr)? };
    let r = with_uverbs(ctx, |u| u.query_srq(h, &[], &mut []))?;
    a.max_wr = r.max_wr;
    a.max_sge = r.max_sge;
    a.srq_limit = r.srq_limit;
    Ok(())
}

pub(crate) unsafe fn destroy_srq(srq: *mut ibv_srq) -> Result<()> {
    let fr = super::call::current();
    // SAFETY: an object of the plugin.
    let n = unsafe { on(fr, srq, |u, h| u.destroy_srq(h)) }?;
    wait_acked(fr, srq, EventCounts { comp: 0, async_: n });
    Ok(())
}

pub(crate) unsafe fn create_ah(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, pdh, a) = unsafe { parts(pd, attr)? };
    let d = generic::qp_attr::dest(a);
    let k = crate::uverbs::qp::AhAttr {
        grh: crate::uverbs::qp::GlobalRoute {
            dgid: d.dgid,
            flow_label: d.flow_label,
            sgid_index: d.sgid_index,
            hop_limit: d.hop_limit,
            traffic_class: d.traffic_class,
            reserved: 0,
        },
        dlid: d.dlid,
        sl: d.sl,
        src_path_bits: d.src_path_bits,
        static_rate: d.static_rate,
        is_global: d.is_global,
        port_num: d.port_num,
        reserved: 0,
    };
    let req = crate::uverbs::ah::CreateAh {
        user_handle: ah as u64,
        pd_handle: pdh,
        attr: k,
        ..Default::default()
    };
    // SAFETY: the plugin's response buffer.
    let dout = unsafe { drv_out(resp, resp_size, 4) };
    let h = with_uverbs(ctx, |u| u.create_ah(&req, &[], dout))?;
    // SAFETY: the plugin's new AH and response buffer.
    unsafe {
        (*ah).handle = h;
        (*ah).context = ctx;
        put_resp(resp, resp_size, &h);
    }
    Ok(())
}

pub(crate) unsafe fn destroy_ah(ah: *mut ibv_ah) -> Result<()> {
    // SAFETY: an object of the plugin.
    unsafe { on(super::call::current(), ah, |u, h| u.destroy_ah(h)) }
}

pub(crate) unsafe fn mcast(
    qp: *mut ibv_qp,
    gid: *const ibv_gid,
    lid: u16,
    attach: bool,
) -> Result<()> {
    // SAFETY: a QP of the plugin; the caller's GID.
    let (ctx, h, g) = unsafe {
        (
            (*qp).context,
            (*qp).handle,
            gid.as_ref().ok_or(Errno::EINVAL)?,
        )
    };
    let g = generic::gid::raw(g);
    with_uverbs(ctx, |u| {
        if attach {
            u.attach_mcast(h, g, lid)
        } else {
            u.detach_mcast(h, g, lid)
        }
    })
}

/// The 24 bytes of `ib_uverbs_cmd_hdr` + `ib_uverbs_ex_cmd_hdr` before an
/// extended command's core struct.
const EX_HDR: usize = 24;

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn create_qp_ex2(
    ctx: *mut ibv_context,
    vqp: *mut verbs_qp,
    attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: the caller's attributes.
    let a = unsafe { attr.as_mut() }.ok_or(Errno::EINVAL)?;
    let mask = |bit: ibv_qp_init_attr_mask| a.comp_mask & bit.0 != 0;
    if mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_XRCD) {
        // XRC QPs are not hosted yet.
        return Err(Errno::EOPNOTSUPP);
    }
    if !mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_PD) {
        // A QP other than an XRC target needs its PD, as rdma-core checks.
        return Err(Errno::EINVAL);
    }
    object::get::<ibv_pd, Context>(a.pd)?;
    // SAFETY: a live PD of the plugin.
    let pdh = unsafe { (*a.pd).handle };
    let c = qp_req(&init_of(a), vqp as u64, pdh)?;
    let req = crate::uverbs::qp::ExCreateQp {
        user_handle: c.user_handle,
        pd_handle: c.pd_handle,
        send_cq_handle: c.send_cq_handle,
        recv_cq_handle: c.recv_cq_handle,
        srq_handle: c.srq_handle,
        max_send_wr: c.max_send_wr,
        max_recv_wr: c.max_recv_wr,
        max_send_sge: c.max_send_sge,
        max_recv_sge: c.max_recv_sge,
        max_inline_data: c.max_inline_data,
        sq_sig_all: c.sq_sig_all,
        qp_type: c.qp_type,
        is_srq: c.is_srq,
        create_flags: if mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_CREATE_FLAGS) {
            a.create_flags
        } else {
            0
        },
        ..Default::default()
    };
    let skip = EX_HDR + size_of::<crate::uverbs::qp::ExCreateQp>() - HDR;
    let b = Bufs::new(cmd, cmd_size, resp, resp_size);
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { b.split(skip, size_of::<crate::uverbs::qp::ExCreateQpResp>()) };
    let r = with_uverbs(ctx, |u| u.create_qp_ex(&req, di, dout))?.base;
    set_caps(&mut a.cap, &r);
    let init = init_of(a);
    // SAFETY: the plugin's new QP (a verbs_qp, ibv_qp at its head).
    unsafe {
        init_qp(vqp.cast(), ctx, &init, a.pd, r.qp_handle, r.qpn);
        (*vqp).comp_mask = if mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
            1 << 1
        } else {
            0
        };
        (*vqp).xrcd = std::ptr::null_mut();
    }
    Ok(())
}
