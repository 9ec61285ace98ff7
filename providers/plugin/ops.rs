//! Our half of a hosted context: the provider trait ([`ContextOps`]) over
//! the plugin's op table. The verbs layer has already found every object in
//! the registry (a NULL, foreign or destroyed one never gets here); each op
//! calls the plugin's function on the C struct the plugin allocated, and does
//! what rdma-core 44's verbs.c does around it. Created objects are the
//! plugin's own C structs (`New::of(c, None)`: the plugin's destroy frees them).
#![allow(unsafe_code)]

use super::call;
use super::context::Priv;
use super::objects;
use crate::abi::*;
use crate::context::generic::{self, buf::Buf};
use crate::context::{Context, ContextOps, EventCounts, New, Obj, ObjRef};
use crate::driver_abi::v34::{IBV_MR_TYPE_MR, verbs_context_ops, verbs_mr};
use crate::driver_abi::v65::{ibv_buf as ibv_buf65, verbs_context_ops as verbs_context_ops65};
use crate::entry::{Errno, Result};
use crate::object::CObject;
use std::ffi::{c_int, c_void};
use std::ptr::NonNull;
use std::sync::Arc;

/// The provider ops of a hosted context: our [`ContextOps`] over the
/// plugin's op table.
pub(crate) struct PluginOps {
    pub p: Arc<Priv>,
}

const NO: Errno = Errno::EOPNOTSUPP;

fn ret(r: c_int) -> Result<()> {
    if r == 0 { Ok(()) } else { Err(Errno(r)) }
}

/// rdma-core's verbs_init_cq: the core's fields of a new CQ, and a channel
/// reference.
///
/// # Safety
/// `cq` is the plugin's new CQ.
pub(crate) unsafe fn init_cq(
    cq: *mut ibv_cq,
    ctx: *mut ibv_context,
    channel: Option<&Obj>,
    cq_context: *mut c_void,
) {
    // SAFETY: per the contract.
    let c = unsafe { &mut *cq };
    c.context = ctx;
    c.channel = channel.map_or(std::ptr::null_mut(), |ch| ch.c::<ibv_comp_channel>());
    if let Some(ch) = channel {
        ch.add_cq_ref();
    }
    c.cq_context = cq_context;
    c.comp_events_completed = 0;
    c.async_events_completed = 0;
    // SAFETY: the CQ's own mutex and condition variable.
    unsafe {
        libc::pthread_mutex_init(&mut c.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut c.cond, std::ptr::null());
    }
}

impl PluginOps {
    /// One slot of the plugin's op table.
    #[inline]
    fn slot<F>(&self, f: impl FnOnce(&verbs_context_ops) -> Option<F>) -> Option<F> {
        f(self.p.ops())
    }

    /// One of a 65 plugin's own ops (34's layout has no slot for it), or
    /// EOPNOTSUPP where it has none, as rdma-core's dummy answers.
    fn op65<F>(&self, f: impl FnOnce(&verbs_context_ops65) -> Option<F>) -> Result<F> {
        self.p.op65(f).ok_or(NO)
    }

    /// One op of the plugin's, or EOPNOTSUPP where it has none.
    fn op<F>(&self, f: impl FnOnce(&verbs_context_ops) -> Option<F>) -> Result<F> {
        self.slot(f).ok_or(NO)
    }

    /// A plugin's new object (counted for close), or its errno.
    fn made<T>(&self, p: *mut T) -> Result<New> {
        let c = NonNull::new(p.cast::<c_void>()).ok_or_else(|| match Errno::last() {
            Errno(0) => Errno::ENOMEM,
            e => e,
        })?;
        self.p.count_object();
        Ok(New::of(c, None))
    }

    /// Destroys an object with the plugin's op.
    fn destroy(&self, o: &Obj, f: impl FnOnce(*mut c_void) -> c_int) -> Result<()> {
        ret(call::on(&o.ctx, || f(o.addr().as_ptr())))?;
        self.p.uncount_object();
        Ok(())
    }

    /// [`PluginOps::destroy`] of a PD, MR or DM, which may be imported:
    /// rdma-core destroys an imported one with the plugin's plain destroy
    /// too; then it is no longer imported.
    fn destroy_importable(&self, o: &Obj, f: impl FnOnce(*mut c_void) -> c_int) -> Result<()> {
        self.destroy(o, f)?;
        self.p.imported.forget(o.addr().as_ptr() as usize);
        Ok(())
    }

    /// A plugin's imported object: [`PluginOps::made`], listed as imported
    /// (close unimports it).
    fn imported<T>(&self, p: *mut T) -> Result<New> {
        let new = self.made(p)?;
        self.p.imported.add(p as usize);
        Ok(new)
    }

    /// Unimports `o` with the plugin's op (`f`: None where it has none).
    /// Only an object the plugin imported reaches it: for any other the
    /// verb does nothing, as rdma-core's does for a provider without the op.
    fn unimport<F>(&self, o: &Obj, f: Option<F>, run: impl FnOnce(F, *mut c_void)) -> Result<()> {
        let a = o.addr().as_ptr();
        let f = f.ok_or(NO)?;
        if !self.p.imported.has(a as usize) {
            return Err(NO);
        }
        call::on(&o.ctx, || run(f, a));
        self.p.imported.forget(a as usize);
        self.p.uncount_object();
        Ok(())
    }

    /// Frees a buffer of the plugin's alloc_buf (out of our list), with its
    /// free_buf, or as rdma-core's default does when it has none.
    fn free_plugin_buf(&self, ctx: &Context, b: usize) {
        let b = b as *mut ibv_buf65;
        match self.op65(|o| o.free_buf) {
            // SAFETY: the plugin's live buffer, freed once (taken out of the list).
            Ok(f) => call::on(ctx, || unsafe { f(b) }),
            // SAFETY: as above: rdma-core frees both from the heap then.
            Err(_) => unsafe {
                libc::free((*b).addr);
                libc::free(b.cast());
            },
        }
        self.p.uncount_object();
    }

    /// [`PluginOps::destroy`] of an object with events (CQ, QP, SRQ), whose
    /// `ibv_cmd_destroy_*` finds `o`'s record through
    /// [`call::destroying`] to wait for their acknowledgement.
    fn destroy_acked(&self, o: &Obj, f: impl FnOnce(*mut c_void) -> c_int) -> Result<()> {
        ret(call::destroying(o, || f(o.addr().as_ptr())))?;
        self.p.uncount_object();
        Ok(())
    }
}

impl ContextOps for PluginOps {
    fn query_device(&self, ctx: &Context, attr: &mut ibv_device_attr) -> Result<()> {
        let f = self.op(|o| o.query_device_ex)?;
        let a: *mut ibv_device_attr = attr;
        // SAFETY: as rdma-core's ibv_query_device: the base struct with its size.
        ret(call::on(ctx, || unsafe {
            f(
                ctx.c_ptr(),
                std::ptr::null(),
                a.cast(),
                size_of::<ibv_device_attr>(),
            )
        }))
    }
    fn query_device_ex(
        &self,
        ctx: &Context,
        attr: &mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        let f = self.op(|o| o.query_device_ex)?;
        // Taken before the call frame is set, so the frame's and the op's
        // are one computation.
        let c = ctx.c_ptr();
        // SAFETY: the caller's struct with its size.
        ret(call::on(ctx, || unsafe {
            f(c, std::ptr::null(), attr, attr_size)
        }))
    }
    fn query_port(&self, ctx: &Context, port: u8, attr: &mut ibv_port_attr) -> Result<()> {
        let f = self.op(|o| o.query_port)?;
        // SAFETY: the plugin's op on its own context.
        ret(call::on(ctx, || unsafe { f(ctx.c_ptr(), port, attr) }))
    }
    fn async_event(&self, ctx: &Context, event: &mut ibv_async_event) {
        if let Some(f) = self.slot(|o| o.async_event) {
            // SAFETY: the plugin's hook on the event just read.
            unsafe { f(ctx.c_ptr(), event) };
        }
    }
    fn cq_event(&self, cq: *mut ibv_cq) {
        if let Some(f) = self.slot(|o| o.cq_event) {
            // SAFETY: a live CQ of this plugin (found in the registry).
            unsafe { f(cq) };
        }
    }

    fn alloc_pd(&self, ctx: &Arc<Context>) -> Result<New> {
        let c = ctx.c_ptr();
        // SAFETY: the plugin's op on its own context.
        let f = self.op(|o| o.alloc_pd)?;
        // SAFETY: as above.
        let pd = call::on(ctx, || unsafe { f(c) });
        let new = self.made(pd)?;
        // SAFETY: the PD the plugin just made.
        unsafe { (*pd).context = c };
        Ok(new)
    }
    fn dealloc_pd(&self, pd: &Obj) -> Result<()> {
        let f = self.op(|o| o.dealloc_pd)?;
        // SAFETY: a live PD of this plugin.
        self.destroy_importable(pd, |p| unsafe { f(p.cast()) })?;
        self.p.parents.forget(pd.addr().as_ptr() as usize);
        Ok(())
    }
    fn reg_mr(&self, pd: &Obj, addr: usize, len: usize, iova: u64, access: u32) -> Result<New> {
        let f = self.op(|o| o.reg_mr)?;
        // SAFETY: the plugin's op on its live PD.
        let mr = call::on(&pd.ctx, || unsafe {
            f(
                pd.c::<ibv_pd>(),
                addr as *mut c_void,
                len,
                iova,
                access as c_int,
            )
        });
        self.made(mr)
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
        let f = self.op(|o| o.reg_dmabuf_mr)?;
        // SAFETY: the plugin's op on its live PD.
        let mr = call::on(&pd.ctx, || unsafe {
            f(pd.c::<ibv_pd>(), offset, len, iova, fd, access as c_int)
        });
        self.made(mr)
    }
    /// The MR stays the same object (the plugin updates its struct); a
    /// new PD must be a live one of this context.
    fn rereg_mr(
        &self,
        mr: &Obj,
        flags: c_int,
        pd: Option<&Obj>,
        addr: usize,
        len: usize,
        access: c_int,
    ) -> Result<()> {
        let f = self.op(|o| o.rereg_mr)?;
        let change_pd = flags & IBV_REREG_MR_CHANGE_PD as c_int != 0;
        let pd = match pd {
            Some(p) if Arc::ptr_eq(&p.ctx, &mr.ctx) => p.c::<ibv_pd>(),
            Some(_) => return Err(Errno::EINVAL),
            None if change_pd => return Err(Errno::EINVAL),
            None => std::ptr::null_mut(),
        };
        // SAFETY: a live MR of this plugin (a verbs_mr at its head).
        ret(call::on(&mr.ctx, || unsafe {
            f(
                mr.c::<ibv_mr>().cast::<verbs_mr>(),
                flags,
                pd,
                addr as *mut c_void,
                len,
                access,
            )
        }))
    }
    /// rdma-core's type of the MR, in the verbs_mr the plugin made (its
    /// commands or the plugin itself set it).
    fn mr_plain_access(&self, mr: &Obj) -> (bool, u32) {
        // SAFETY: a live MR of this plugin (a verbs_mr at its head).
        let m = unsafe { &*mr.c::<ibv_mr>().cast::<verbs_mr>() };
        (m.mr_type == IBV_MR_TYPE_MR, m.access as u32)
    }
    fn dereg_mr(&self, mr: &Obj) -> Result<()> {
        let f = self.op(|o| o.dereg_mr)?;
        // SAFETY: a live MR of this plugin (a verbs_mr at its head).
        self.destroy_importable(mr, |p| unsafe { f(p.cast::<verbs_mr>()) })
    }

    // cq_context is only stored, never dereferenced.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    fn create_cq(
        &self,
        ctx: &Arc<Context>,
        cqe: c_int,
        cq_context: *mut c_void,
        channel: Option<ObjRef>,
        vector: c_int,
    ) -> Result<New> {
        let f = self.op(|o| o.create_cq)?;
        let c = ctx.c_ptr();
        let ch = channel
            .as_ref()
            .map_or(std::ptr::null_mut(), |ch| ch.c::<ibv_comp_channel>());
        // SAFETY: the plugin's op on its own context.
        let cq = call::on(ctx, || unsafe { f(c, cqe, ch, vector) });
        let new = self.made(cq)?;
        // SAFETY: the CQ the plugin just made.
        unsafe { init_cq(cq, c, channel.as_deref(), cq_context) };
        Ok(new)
    }
    fn create_cq_ex(
        &self,
        ctx: &Arc<Context>,
        attr: &ibv_cq_init_attr_ex,
        channel: Option<ObjRef>,
    ) -> Result<New> {
        let f = self.op(|o| o.create_cq_ex)?;
        let c = ctx.c_ptr();
        let mut a = *attr;
        // SAFETY: the plugin's op on its own context.
        let cq = call::on(ctx, || unsafe { f(c, &mut a) });
        let new = self.made(cq)?;
        // SAFETY: ibv_cq_ex starts with the ibv_cq fields.
        unsafe { init_cq(cq.cast(), c, channel.as_deref(), attr.cq_context) };
        Ok(new)
    }
    fn resize_cq(&self, cq: &Obj, cqe: c_int) -> Result<()> {
        // SAFETY: a live CQ of this plugin.
        let f = self.op(|o| o.resize_cq)?;
        // SAFETY: as above.
        ret(call::on(&cq.ctx, || unsafe { f(cq.c::<ibv_cq>(), cqe) }))
    }
    fn req_notify_cq(&self, cq: &Obj, solicited_only: bool) -> Result<()> {
        // SAFETY: as above.
        ret(unsafe { self.op(|o| o.req_notify_cq)?(cq.c::<ibv_cq>(), solicited_only as c_int) })
    }
    /// The plugin's destroy waits for the events' acknowledgement itself
    /// (ibv_cmd_destroy_cq), so all reported ones are acknowledged by now.
    fn destroy_cq(&self, cq: &Obj) -> Result<EventCounts> {
        let f = self.op(|o| o.destroy_cq)?;
        let ch = cq.read_c(|c: &ibv_cq| c.channel);
        // SAFETY: a live CQ of this plugin.
        self.destroy_acked(cq, |p| unsafe { f(p.cast()) })?;
        // Most CQs have no channel. object::get refuses NULL too, but only
        // after the slab's address check and a call: this test saves 17
        // Ir/op on plugin cq_lifecycle (a test first in get costs 2-6 on
        // every other lookup; see the commit).
        if !ch.is_null()
            && let Ok(ch) = crate::object::get::<ibv_comp_channel, Context>(ch)
        {
            ch.drop_cq_ref();
        }
        // Nothing left to wait for (and the plugin may have freed the CQ's
        // C struct, where its completion events are counted).
        Ok(EventCounts::default())
    }

    fn create_qp(&self, pd: &Obj, attr: &mut ibv_qp_init_attr) -> Result<New> {
        let f = self.op(|o| o.create_qp)?;
        // SAFETY: the plugin's op on its live PD.
        let qp = call::on(&pd.ctx, || unsafe { f(pd.c::<ibv_pd>(), attr) });
        self.made(qp)
    }
    fn create_qp_ex(&self, ctx: &Arc<Context>, attr: &mut ibv_qp_init_attr_ex) -> Result<New> {
        let f = self.op(|o| o.create_qp_ex)?;
        // SAFETY: the plugin's op on its own context.
        let qp = call::on(ctx, || unsafe { f(ctx.c_ptr(), attr) });
        self.made(qp)
    }
    fn modify_qp(&self, qp: &Obj, attr: &mut ibv_qp_attr, mask: c_int) -> Result<()> {
        // SAFETY: a live QP of this plugin.
        let f = self.op(|o| o.modify_qp)?;
        // SAFETY: as above; the caller's struct, as rdma-core hands it on.
        ret(call::on(&qp.ctx, || unsafe {
            f(qp.c::<ibv_qp>(), attr, mask)
        }))
    }
    fn query_qp(
        &self,
        qp: &Obj,
        attr: &mut ibv_qp_attr,
        mask: c_int,
        init: &mut ibv_qp_init_attr,
    ) -> Result<()> {
        // SAFETY: a live QP of this plugin; the caller's out structs.
        let f = self.op(|o| o.query_qp)?;
        // SAFETY: as above.
        ret(call::on(&qp.ctx, || unsafe {
            f(qp.c::<ibv_qp>(), attr, mask, init)
        }))
    }
    fn destroy_qp(&self, qp: &Obj) -> Result<EventCounts> {
        let f = self.op(|o| o.destroy_qp)?;
        // SAFETY: a live QP of this plugin.
        self.destroy_acked(qp, |p| unsafe { f(p.cast()) })?;
        Ok(EventCounts::default())
    }
    fn query_qp_data_in_order(&self, qp: &Obj, op: ibv_wr_opcode, flags: u32) -> c_int {
        match self.slot(|o| o.query_qp_data_in_order) {
            // SAFETY: a live QP of this plugin.
            Some(f) => unsafe { f(qp.c::<ibv_qp>(), op, flags) },
            None => 0,
        }
    }
    fn query_ece(&self, qp: &Obj, ece: &mut ibv_ece) -> Result<()> {
        // SAFETY: a live QP of this plugin.
        ret(unsafe { self.op(|o| o.query_ece)?(qp.c::<ibv_qp>(), ece) })
    }
    fn set_ece(&self, qp: &Obj, ece: &ibv_ece) -> Result<()> {
        let mut e = *ece;
        // SAFETY: as above.
        ret(unsafe { self.op(|o| o.set_ece)?(qp.c::<ibv_qp>(), &mut e) })
    }
    /// A QP the plugin created as extended (`VERBS_QP_EX`) has one.
    fn qp_ex(&self, qp: &Obj) -> Option<*mut ibv_qp_ex> {
        let v = qp.c::<ibv_qp>().cast::<u8>();
        // SAFETY: the plugin's QPs are verbs_qp structs of its version,
        // `comp_mask` right after their `ibv_qp_ex`.
        let mask = unsafe { v.add(self.p.pabi.qp_ex_size).cast::<u32>().read() };
        (mask & (1 << 1) != 0).then_some(v.cast())
    }

    fn create_srq(&self, pd: &Obj, attr: &mut ibv_srq_init_attr) -> Result<New> {
        let f = self.op(|o| o.create_srq)?;
        let c = pd.ctx.c_ptr();
        // SAFETY: the plugin's op on its live PD.
        let srq = call::on(&pd.ctx, || unsafe { f(pd.c::<ibv_pd>(), attr) });
        let new = self.made(srq)?;
        // SAFETY: the SRQ the plugin just made (rdma-core's ibv_create_srq).
        unsafe {
            let s = &mut *srq;
            s.context = c;
            s.srq_context = attr.srq_context;
            s.pd = pd.c::<ibv_pd>();
            s.events_completed = 0;
            libc::pthread_mutex_init(&mut s.mutex, std::ptr::null());
            libc::pthread_cond_init(&mut s.cond, std::ptr::null());
        }
        Ok(new)
    }
    fn create_srq_ex(&self, ctx: &Arc<Context>, attr: &mut ibv_srq_init_attr_ex) -> Result<New> {
        let f = self.op(|o| o.create_srq_ex)?;
        // SAFETY: the plugin's op on its own context.
        let srq = call::on(ctx, || unsafe { f(ctx.c_ptr(), attr) });
        self.made(srq)
    }
    fn modify_srq(&self, srq: &Obj, attr: &ibv_srq_attr, mask: c_int) -> Result<()> {
        let mut a = *attr;
        // SAFETY: a live SRQ of this plugin.
        let f = self.op(|o| o.modify_srq)?;
        // SAFETY: as above.
        ret(call::on(&srq.ctx, || unsafe {
            f(srq.c::<ibv_srq>(), &mut a, mask)
        }))
    }
    fn query_srq(&self, srq: &Obj, attr: &mut ibv_srq_attr) -> Result<()> {
        // SAFETY: as above.
        let f = self.op(|o| o.query_srq)?;
        // SAFETY: as above.
        ret(call::on(&srq.ctx, || unsafe {
            f(srq.c::<ibv_srq>(), attr)
        }))
    }
    fn destroy_srq(&self, srq: &Obj) -> Result<EventCounts> {
        let f = self.op(|o| o.destroy_srq)?;
        // SAFETY: a live SRQ of this plugin.
        self.destroy_acked(srq, |p| unsafe { f(p.cast()) })?;
        Ok(EventCounts::default())
    }

    fn attach_mcast(&self, qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
        // SAFETY: a live QP of this plugin; the caller's GID.
        ret(unsafe { self.op(|o| o.attach_mcast)?(qp.c::<ibv_qp>(), gid, lid) })
    }
    fn detach_mcast(&self, qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
        // SAFETY: as above.
        ret(unsafe { self.op(|o| o.detach_mcast)?(qp.c::<ibv_qp>(), gid, lid) })
    }
    fn create_ah(&self, pd: &Obj, attr: &ibv_ah_attr) -> Result<New> {
        let f = self.op(|o| o.create_ah)?;
        let c = pd.ctx.c_ptr();
        let mut a = *attr;
        // SAFETY: the plugin's op on its live PD.
        let ah = call::on(&pd.ctx, || unsafe { f(pd.c::<ibv_pd>(), &mut a) });
        let new = self.made(ah)?;
        // SAFETY: the AH the plugin just made.
        unsafe {
            (*ah).context = c;
            (*ah).pd = pd.c::<ibv_pd>();
        }
        Ok(new)
    }
    fn destroy_ah(&self, ah: &Obj) -> Result<()> {
        let f = self.op(|o| o.destroy_ah)?;
        // SAFETY: a live AH of this plugin.
        self.destroy(ah, |p| unsafe { f(p.cast()) })
    }

    fn import_pd(&self, ctx: &Arc<Context>, handle: u32) -> Result<New> {
        let f = self.op(|o| o.import_pd)?;
        let c = ctx.c_ptr();
        // SAFETY: the plugin's op on its own context (it fills the PD).
        let pd = call::on(ctx, || unsafe { f(c, handle) });
        self.imported(pd)
    }
    fn import_mr(&self, pd: &Obj, handle: u32) -> Result<New> {
        let f = self.op(|o| o.import_mr)?;
        // SAFETY: the plugin's op on its live PD (it fills the MR).
        let mr = call::on(&pd.ctx, || unsafe { f(pd.c::<ibv_pd>(), handle) });
        self.imported(mr)
    }
    fn import_dm(&self, ctx: &Arc<Context>, handle: u32) -> Result<New> {
        let f = self.op(|o| o.import_dm)?;
        let c = ctx.c_ptr();
        // SAFETY: the plugin's op on its own context (it fills the DM).
        let dm = call::on(ctx, || unsafe { f(c, handle) });
        self.imported(dm)
    }
    fn unimport_pd(&self, pd: &Obj) -> Result<()> {
        // SAFETY: a live PD the plugin imported.
        self.unimport(pd, self.slot(|o| o.unimport_pd), |f, p| unsafe {
            f(p.cast())
        })
    }
    fn unimport_mr(&self, mr: &Obj) -> Result<()> {
        // SAFETY: a live MR the plugin imported.
        self.unimport(mr, self.slot(|o| o.unimport_mr), |f, p| unsafe {
            f(p.cast())
        })
    }
    fn unimport_dm(&self, dm: &Obj) -> Result<()> {
        // SAFETY: a live DM the plugin imported.
        self.unimport(dm, self.slot(|o| o.unimport_dm), |f, p| unsafe {
            f(p.cast())
        })
    }

    fn query_port_speed(&self, ctx: &Context, port: u32) -> Result<u64> {
        let f = self.op65(|o| o.query_port_speed)?;
        let mut speed = 0u64;
        // SAFETY: the plugin's op on its own context; our out-parameter.
        ret(call::on(ctx, || unsafe {
            f(ctx.c_ptr(), port, &mut speed)
        }))?;
        Ok(speed)
    }
    fn dm_export_dmabuf_fd(&self, dm: &Obj) -> Result<c_int> {
        let f = self.op65(|o| o.dm_export_dmabuf_fd)?;
        // SAFETY: a live DM of this plugin.
        let fd = call::on(&dm.ctx, || unsafe { f(dm.c::<ibv_dm>()) });
        if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
    }
    fn alloc_dm(&self, ctx: &Arc<Context>, attr: &mut ibv_alloc_dm_attr) -> Result<New> {
        let f = self.op(|o| o.alloc_dm)?;
        // SAFETY: the plugin's op on its own context; the caller's attributes.
        let dm = call::on(ctx, || unsafe { f(ctx.c_ptr(), attr) });
        self.made(dm)
    }
    fn free_dm(&self, dm: &Obj) -> Result<()> {
        let f = self.op(|o| o.free_dm)?;
        // SAFETY: a live DM of this plugin.
        self.destroy_importable(dm, |p| unsafe { f(p.cast()) })
    }
    /// A 65 plugin's own buffer: its `struct ibv_buf` is read once, as
    /// rdma-core's core reads it (address, size, PD, dma-buf fd). The handle
    /// C gets names it by a token of this context's, never reused, so a
    /// handle that outlived its buffer (freed at close) reaches nothing.
    fn alloc_buf(&self, pd: &Obj, size: usize) -> Result<(usize, Buf)> {
        let Ok(f) = self.op65(|o| o.alloc_buf) else {
            return generic::buf::alloc(pd, size);
        };
        let mut b: *mut ibv_buf65 = std::ptr::null_mut();
        // SAFETY: the plugin's op on its live PD; our out-parameter.
        let p = call::on(&pd.ctx, || unsafe { f(pd.c::<ibv_pd>(), size, &mut b) });
        if p.is_null() {
            return Err(match Errno::last() {
                Errno(0) => Errno::ENOMEM,
                e => e,
            });
        }
        // A plugin that answers an address without a handle broke its
        // contract; rdma-core would give the caller garbage.
        // SAFETY: the plugin's new buffer handle.
        let h = unsafe { b.as_ref() }.ok_or(Errno::EIO)?;
        let buf = Buf {
            ctx: pd.ctx.c_ptr() as usize,
            pd: h.pd as usize,
            addr: h.addr as usize,
            size: h.size,
            dmabuf_fd: h.dmabuf_fd,
            prov: self.p.add_buf(b as usize),
        };
        Ok((p as usize, buf))
    }
    fn free_buf(&self, ctx: &Context, buf: &Buf) {
        if buf.prov == 0 {
            return generic::buf::free(buf);
        }
        // None: the close freed it already.
        if let Some(b) = self.p.take_buf(buf.prov) {
            self.free_plugin_buf(ctx, b);
        }
    }
    fn reg_mr_ex(&self, pd: &Obj, attr: &mut ibv_mr_init_attr) -> Result<New> {
        let Ok(f) = self.op65(|o| o.reg_mr_ex) else {
            return generic::mr_ex::legacy(pd, attr);
        };
        // The plugin follows a DMA handle: only a live one of its context
        // (held over the call) reaches it.
        let _dmah = if attr.comp_mask & u64::from(IBV_REG_MR_MASK_DMAH) != 0 {
            let d = crate::object::get::<ibv_dmah, Context>(attr.dmah)?;
            if !Arc::ptr_eq(&d.ctx, &pd.ctx) {
                return Err(Errno::EINVAL);
            }
            Some(d)
        } else {
            None
        };
        // SAFETY: the plugin's op on its live PD; the library's copy of the
        // request, as rdma-core hands its own on.
        let mr = call::on(&pd.ctx, || unsafe { f(pd.c::<ibv_pd>(), attr) });
        self.made(mr)
    }
    fn alloc_dmah(&self, ctx: &Arc<Context>, attr: Option<&ibv_dmah_init_attr>) -> Result<New> {
        let f = self.op65(|o| o.alloc_dmah)?;
        let c = ctx.c_ptr();
        let mut a = attr.copied();
        let ap = a.as_mut().map_or(std::ptr::null_mut(), |a| a as *mut _);
        // SAFETY: the plugin's op on its own context.
        let d = call::on(ctx, || unsafe { f(c, ap) });
        let new = self.made(d)?;
        // SAFETY: the handle the plugin just made (rdma-core's plugins set
        // it; set here too, as for the other objects).
        unsafe { (*d).context = c };
        Ok(new)
    }
    fn dealloc_dmah(&self, dmah: &Obj) -> Result<()> {
        let f = self.op65(|o| o.dealloc_dmah)?;
        // SAFETY: a live DMA handle of this plugin.
        self.destroy(dmah, |p| unsafe { f(p.cast()) })
    }
    fn query_comp_cntr_caps(&self, ctx: &Context, size: usize) -> Result<ibv_comp_cntr_caps> {
        let f = self.op65(|o| o.query_comp_cntr_caps)?;
        // SAFETY: a plain C struct; all zeroes is valid.
        let mut caps: ibv_comp_cntr_caps = unsafe { std::mem::zeroed() };
        let size = size.min(size_of::<ibv_comp_cntr_caps>());
        // SAFETY: the plugin's op on its own context; `size` bytes of ours.
        ret(call::on(ctx, || unsafe { f(ctx.c_ptr(), &mut caps, size) }))?;
        Ok(caps)
    }
    fn create_comp_cntr(
        &self,
        ctx: &Arc<Context>,
        attr: Option<&ibv_comp_cntr_init_attr>,
    ) -> Result<New> {
        let f = self.op65(|o| o.create_comp_cntr)?;
        let c = ctx.c_ptr();
        let mut a = attr.copied();
        let ap = a.as_mut().map_or(std::ptr::null_mut(), |a| a as *mut _);
        // SAFETY: the plugin's op on its own context.
        let cc = call::on(ctx, || unsafe { f(c, ap) });
        let new = self.made(cc)?;
        // SAFETY: the counter the plugin just made.
        unsafe { (*cc).context = c };
        Ok(new)
    }
    fn destroy_comp_cntr(&self, cc: &Obj) -> Result<()> {
        let f = self.op65(|o| o.destroy_comp_cntr)?;
        // SAFETY: a live counter of this plugin.
        self.destroy(cc, |p| unsafe { f(p.cast()) })
    }
    fn set_comp_cntr(&self, cc: &Obj, err: bool, value: u64) -> Result<()> {
        let f = self.op65(|o| {
            if err {
                o.set_err_comp_cntr
            } else {
                o.set_comp_cntr
            }
        })?;
        // SAFETY: a live counter of this plugin.
        ret(call::on(&cc.ctx, || unsafe {
            f(cc.c::<ibv_comp_cntr>(), value)
        }))
    }
    fn inc_comp_cntr(&self, cc: &Obj, err: bool, amount: u64) -> Result<()> {
        let f = self.op65(|o| {
            if err {
                o.inc_err_comp_cntr
            } else {
                o.inc_comp_cntr
            }
        })?;
        // SAFETY: a live counter of this plugin.
        ret(call::on(&cc.ctx, || unsafe {
            f(cc.c::<ibv_comp_cntr>(), amount)
        }))
    }
    fn read_comp_cntr(&self, cc: &Obj, err: bool) -> Result<u64> {
        let f = self.op65(|o| {
            if err {
                o.read_err_comp_cntr
            } else {
                o.read_comp_cntr
            }
        })?;
        let mut v = 0u64;
        // SAFETY: a live counter of this plugin; our out-parameter.
        ret(call::on(&cc.ctx, || unsafe {
            f(cc.c::<ibv_comp_cntr>(), &mut v)
        }))?;
        Ok(v)
    }
    fn qp_attach_comp_cntr(
        &self,
        qp: &Obj,
        cc: Option<&Obj>,
        attr: Option<&ibv_qp_attach_comp_cntr_attr>,
    ) -> Result<()> {
        let f = self.op65(|o| o.qp_attach_comp_cntr)?;
        let cc = cc.ok_or(Errno::EINVAL)?;
        let mut a = attr.copied();
        let ap = a.as_mut().map_or(std::ptr::null_mut(), |a| a as *mut _);
        // SAFETY: a live QP and counter of this plugin.
        ret(call::on(&qp.ctx, || unsafe {
            f(qp.c::<ibv_qp>(), cc.c::<ibv_comp_cntr>(), ap)
        }))
    }

    /// Whatever C left, then the plugin's free_context (which uninits ours).
    fn close(&self, ctx: &Context) -> Result<()> {
        let c = ctx.c_ptr();
        // Only a context with objects left pays for the registry's scan.
        // Buffers still allocated are freed here, after the MRs that may
        // be on them and before their PDs: a later ibv_free_buf only ends
        // the handle (rdma-core leaves them, and its free_buf then reads the
        // freed context).
        let free_bufs = || {
            for b in self.p.take_bufs() {
                self.free_plugin_buf(ctx, b);
            }
        };
        if self.p.objects_left()
            && let Ok(ctx) = super::context::context_of(c)
        {
            let ops65 = self.p.op65(|o| Some(*o));
            let parents = self.p.parents.take();
            let imported = self.p.imported.take();
            objects::destroy_all(
                &ctx,
                self.p.ops(),
                ops65.as_ref(),
                objects::Special {
                    parents: &parents,
                    imported: &imported,
                },
                free_bufs,
            );
        }
        free_bufs();
        match self.slot(|o| o.free_context) {
            // SAFETY: the plugin frees its own context; C gave it back to us.
            Some(f) => unsafe { f(c) },
            // SAFETY: the context we initialised for the plugin.
            None => unsafe {
                super::context::uninit_context(
                    c.cast::<u8>()
                        .wrapping_sub(std::mem::offset_of!(
                            crate::driver_abi::v34::verbs_context,
                            context
                        ))
                        .cast(),
                )
            },
        }
        Ok(())
    }
}
