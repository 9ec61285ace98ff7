//! What a provider does for an opened context: the slots of rdma-core's
//! `verbs_context_ops` a device fills. Every method defaults to EOPNOTSUPP,
//! as rdma-core's dummy ops do for a verb a provider lacks. The library's
//! own verbs (GID and P_Key tables, completion channels, async events,
//! AH attributes from a completion) are not here: the verbs layer calls
//! `context::generic` for them, the one route for every provider.
//!
//! # Object shape
//! As in rdma-core (`qp->context->ops.destroy_qp(qp)`, then the provider's
//! `to_rqp(qp)`): the verbs layer finds an object in the registry by kind
//! (`crate::object::get`) and calls the op of the object's context with the
//! validated record ([`Obj`]); the provider turns `obj.addr()` into its own
//! type itself (a Rust provider through its type's slab, a C provider host by
//! casting to the C struct it allocated). Creates return a [`New`]: the
//! pointer C will hold (the head of the provider's object, also the kernel's
//! `user_handle`) and the token that releases it; the verbs layer adopts it
//! into the registry with the generic bookkeeping (owning context, event
//! acknowledgements, destroy claim). The provider never sees `ObjRef` of
//! the object it creates, only of the objects it is given.

use super::*;
use crate::abi::*;
use crate::entry::{Errno, Result};
use std::ffi::{c_int, c_void};

const NO: Errno = Errno::EOPNOTSUPP;

#[allow(unused_variables)]
pub(crate) trait ContextOps: Send + Sync {
    fn query_device(&self, ctx: &Context, attr: &mut ibv_device_attr) -> Result<()> {
        Err(NO)
    }
    fn query_port(&self, ctx: &Context, port: u8, attr: &mut ibv_port_attr) -> Result<()> {
        Err(NO)
    }
    /// `attr_size`: how much of `ibv_device_attr_ex` the caller has; fields
    /// beyond it stay zero. The op zeroes `attr` first (as rdma-core's
    /// ibv_cmd_query_device_any): its caller does not.
    fn query_device_ex(
        &self,
        ctx: &Context,
        attr: &mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        Err(NO)
    }
    /// The `async_event` slot: a look at an event the library just read
    /// (rdma-core's core reads it; a provider may note it). None here.
    fn async_event(&self, ctx: &Context, event: &mut ibv_async_event) {}
    /// The `cq_event` slot: told of a CQ whose event the library just read
    /// from its channel.
    fn cq_event(&self, cq: *mut ibv_cq) {}
    fn alloc_pd(&self, ctx: &Arc<Context>) -> Result<New> {
        Err(NO)
    }
    fn dealloc_pd(&self, pd: &Obj) -> Result<()> {
        Err(NO)
    }
    fn reg_mr(&self, pd: &Obj, addr: usize, len: usize, iova: u64, access: u32) -> Result<New> {
        Err(NO)
    }
    fn reg_dmabuf_mr(
        &self,
        pd: &Obj,
        offset: u64,
        len: usize,
        iova: u64,
        fd: c_int,
        access: u32,
    ) -> Result<New> {
        Err(NO)
    }
    /// Of an MR with no record of the library's (`generic::mr::info`: a
    /// hosted plugin's, whose struct says it): whether it is a plain
    /// registration (not a null, dma-buf or imported MR: only those are
    /// reregistered and given back to fork), and its access flags (an
    /// on-demand MR's range was never kept from fork).
    fn mr_plain_access(&self, mr: &Obj) -> (bool, u32) {
        (true, 0)
    }
    /// The provider's part of ibv_rereg_mr (the library did the checks and the
    /// fork bookkeeping). `pd` is None unless IBV_REREG_MR_CHANGE_PD is set and
    /// the pointer is a live PD: a provider that changes PDs answers EINVAL then.
    fn rereg_mr(
        &self,
        mr: &Obj,
        flags: c_int,
        pd: Option<&Obj>,
        addr: usize,
        len: usize,
        access: c_int,
    ) -> Result<()> {
        Err(NO)
    }
    fn dereg_mr(&self, mr: &Obj) -> Result<()> {
        Err(NO)
    }
    // ---- CQ, QP, SRQ (branch qp) ------------------------------------------
    /// `ibv_create_cq`: the CQ, its C struct filled as rdma-core's core does
    /// (context, channel, cq_context, cqe); the kernel's `user_handle` is its
    /// C pointer. Adds a reference to `channel`.
    fn create_cq(
        &self,
        ctx: &Arc<Context>,
        cqe: c_int,
        cq_context: *mut c_void,
        channel: Option<ObjRef>,
        comp_vector: c_int,
    ) -> Result<New> {
        Err(NO)
    }
    /// The `create_cq_ex` slot; `channel` is `attr.channel`, looked up.
    fn create_cq_ex(
        &self,
        ctx: &Arc<Context>,
        attr: &ibv_cq_init_attr_ex,
        channel: Option<ObjRef>,
    ) -> Result<New> {
        Err(NO)
    }
    fn resize_cq(&self, cq: &Obj, cqe: c_int) -> Result<()> {
        Err(NO)
    }
    /// Destroys the CQ in the kernel (EBUSY while a QP uses it); returns the
    /// events reported for it. Drops its channel reference on success.
    fn destroy_cq(&self, cq: &Obj) -> Result<EventCounts> {
        Err(NO)
    }
    fn req_notify_cq(&self, cq: &Obj, solicited_only: bool) -> Result<()> {
        Err(NO)
    }
    /// `ibv_create_qp`; capacities are written back into `attr.cap`.
    fn create_qp(&self, pd: &Obj, attr: &mut ibv_qp_init_attr) -> Result<New> {
        Err(NO)
    }
    /// The `create_qp_ex` slot (comp_mask other than just PD).
    fn create_qp_ex(&self, ctx: &Arc<Context>, attr: &mut ibv_qp_init_attr_ex) -> Result<New> {
        Err(NO)
    }
    /// Modifies the QP in the kernel; the caller updates `qp->state`.
    /// `attr` is the caller's own struct (not const in verbs.h): a hosted
    /// plugin gets it as rdma-core passes it, without a copy.
    fn modify_qp(&self, qp: &Obj, attr: &mut ibv_qp_attr, mask: c_int) -> Result<()> {
        Err(NO)
    }
    fn query_qp(
        &self,
        qp: &Obj,
        attr: &mut ibv_qp_attr,
        mask: c_int,
        init: &mut ibv_qp_init_attr,
    ) -> Result<()> {
        Err(NO)
    }
    /// Destroys the QP in the kernel (EBUSY while multicast groups are
    /// attached: the kernel checks); returns the async events reported.
    fn destroy_qp(&self, qp: &Obj) -> Result<EventCounts> {
        Err(NO)
    }
    fn query_qp_data_in_order(&self, qp: &Obj, op: ibv_wr_opcode, flags: u32) -> c_int {
        0
    }
    fn query_ece(&self, qp: &Obj, ece: &mut ibv_ece) -> Result<()> {
        Err(NO)
    }
    fn set_ece(&self, qp: &Obj, ece: &ibv_ece) -> Result<()> {
        Err(NO)
    }
    fn create_srq(&self, pd: &Obj, attr: &mut ibv_srq_init_attr) -> Result<New> {
        Err(NO)
    }
    /// The `create_srq_ex` slot.
    fn create_srq_ex(&self, ctx: &Arc<Context>, attr: &mut ibv_srq_init_attr_ex) -> Result<New> {
        Err(NO)
    }
    fn modify_srq(&self, srq: &Obj, attr: &ibv_srq_attr, mask: c_int) -> Result<()> {
        Err(NO)
    }
    fn query_srq(&self, srq: &Obj, attr: &mut ibv_srq_attr) -> Result<()> {
        Err(NO)
    }
    /// Destroys the SRQ in the kernel; returns the async events reported.
    fn destroy_srq(&self, srq: &Obj) -> Result<EventCounts> {
        Err(NO)
    }
    /// The extended view of a QP created with ibv_create_qp_ex, if it was.
    fn qp_ex(&self, qp: &Obj) -> Option<*mut ibv_qp_ex> {
        None
    }
    // ---- end CQ, QP, SRQ ----------------------------------------------------
    fn attach_mcast(&self, qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
        Err(NO)
    }
    fn detach_mcast(&self, qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
        Err(NO)
    }
    fn create_ah(&self, pd: &Obj, attr: &ibv_ah_attr) -> Result<New> {
        Err(NO)
    }
    fn destroy_ah(&self, ah: &Obj) -> Result<()> {
        Err(NO)
    }
    fn import_pd(&self, ctx: &Arc<Context>, handle: u32) -> Result<New> {
        Err(NO)
    }
    fn import_mr(&self, pd: &Obj, handle: u32) -> Result<New> {
        Err(NO)
    }
    fn import_dm(&self, ctx: &Arc<Context>, handle: u32) -> Result<New> {
        Err(NO)
    }
    // ---- memory windows and unimport (pdmr) ----
    /// The `alloc_mw` op slot (inline ibv_alloc_mw).
    fn alloc_mw(&self, pd: &Obj, ty: ibv_mw_type) -> Result<New> {
        Err(NO)
    }
    /// The `dealloc_mw` op slot (inline ibv_dealloc_mw).
    fn dealloc_mw(&self, mw: &Obj) -> Result<()> {
        Err(NO)
    }
    /// ibv_unimport_pd: Ok lets the library forget the PD. Providers without
    /// import leave it alone (rdma-core's dummy does nothing).
    fn unimport_pd(&self, pd: &Obj) -> Result<()> {
        Err(NO)
    }
    fn unimport_mr(&self, mr: &Obj) -> Result<()> {
        Err(NO)
    }
    fn unimport_dm(&self, dm: &Obj) -> Result<()> {
        Err(NO)
    }
    // ---- end pdmr ----
    fn close(&self, ctx: &Context) -> Result<()> {
        Ok(())
    }
    /// ibv_query_port_speed: the port's effective speed in 100 Mb/s units.
    fn query_port_speed(&self, ctx: &Context, port: u32) -> Result<u64> {
        Err(NO)
    }
    /// ibv_dm_export_dmabuf_fd: a dma-buf fd for device memory.
    fn dm_export_dmabuf_fd(&self, dm: &Obj) -> Result<c_int> {
        Err(NO)
    }
    /// The `alloc_dm` slot (inline ibv_alloc_dm).
    fn alloc_dm(&self, ctx: &Arc<Context>, attr: &mut ibv_alloc_dm_attr) -> Result<New> {
        Err(NO)
    }
    /// The `free_dm` slot (inline ibv_free_dm).
    fn free_dm(&self, dm: &Obj) -> Result<()> {
        Err(NO)
    }
    // ---- rdma-core 64's buffers and reg_mr_ex ----
    /// ibv_alloc_buf: the caller's address and the buffer. rdma-core's
    /// default: page-aligned heap memory without a dma-buf.
    fn alloc_buf(&self, pd: &Obj, size: usize) -> Result<(usize, generic::buf::Buf)> {
        generic::buf::alloc(pd, size)
    }
    /// ibv_free_buf of a buffer this provider's `alloc_buf` made (its handle
    /// already ended).
    fn free_buf(&self, ctx: &Context, buf: &generic::buf::Buf) {
        generic::buf::free(buf)
    }
    /// The provider's part of ibv_reg_mr_ex, on the library's copy of the
    /// request (a buffer already turned into its address or dma-buf).
    /// rdma-core's default: the request as this provider's reg_mr or
    /// reg_dmabuf_mr.
    fn reg_mr_ex(&self, pd: &Obj, attr: &mut ibv_mr_init_attr) -> Result<New> {
        generic::mr_ex::legacy(pd, attr)
    }
    // ---- rdma-core 64/65 op slots: DMA handles, completion counters ----
    /// ibv_alloc_dmah: a DMA handle (TPH steering hints).
    fn alloc_dmah(&self, ctx: &Arc<Context>, attr: Option<&ibv_dmah_init_attr>) -> Result<New> {
        Err(NO)
    }
    fn dealloc_dmah(&self, dmah: &Obj) -> Result<()> {
        Err(NO)
    }
    /// ibv_query_comp_cntr_caps; `size` is how much of the struct the
    /// caller has (at most ours).
    fn query_comp_cntr_caps(&self, ctx: &Context, size: usize) -> Result<ibv_comp_cntr_caps> {
        Err(NO)
    }
    fn create_comp_cntr(
        &self,
        ctx: &Arc<Context>,
        attr: Option<&ibv_comp_cntr_init_attr>,
    ) -> Result<New> {
        Err(NO)
    }
    fn destroy_comp_cntr(&self, cc: &Obj) -> Result<()> {
        Err(NO)
    }
    /// The counter's value (`err`: its error count) becomes `value`.
    fn set_comp_cntr(&self, cc: &Obj, err: bool, value: u64) -> Result<()> {
        Err(NO)
    }
    /// Adds `amount` to the counter (`err`: to its error count).
    fn inc_comp_cntr(&self, cc: &Obj, err: bool, amount: u64) -> Result<()> {
        Err(NO)
    }
    /// The counter's value (`err`: its error count).
    fn read_comp_cntr(&self, cc: &Obj, err: bool) -> Result<u64> {
        Err(NO)
    }
    /// ibv_qp_attach_comp_cntr on the QP `qp`; `cc` is None when the
    /// pointer is no live counter (EINVAL from a provider with the op,
    /// EOPNOTSUPP from one without, as rdma-core's dummy answers).
    fn qp_attach_comp_cntr(
        &self,
        qp: &Obj,
        cc: Option<&Obj>,
        attr: Option<&ibv_qp_attach_comp_cntr_attr>,
    ) -> Result<()> {
        Err(NO)
    }
}
