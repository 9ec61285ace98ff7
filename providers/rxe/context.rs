//! An open rxe context: the verbs rxe implements, over the kernel's uverbs.

use crate::abi::*;
use crate::context::generic;
use crate::context::{Ah, Context, ContextOps, Mr, Mw, Pd, Qp};
use crate::entry::Result;
use std::sync::Arc;

#[derive(Default)]
pub struct RxeContext {}

impl RxeContext {
    /// Sets the op slots rxe implements itself (data path); the rest keep the
    /// library's dispatchers or dummies.
    pub fn fill_ops(v: &mut verbs_context) {
        // ---- pdmr ----
        v.context.ops.alloc_mw = Some(crate::verbs::mw::alloc_mw);
        v.context.ops.dealloc_mw = Some(crate::verbs::mw::dealloc_mw);
        // ---- end pdmr ----
    }
}

impl ContextOps for RxeContext {
    // ---- PD, MR, MW, AH, multicast (pdmr) ----
    fn alloc_pd(&self, ctx: &Arc<Context>) -> Result<Arc<Pd>> {
        generic::pd::alloc(ctx, &[], &mut [])
    }
    fn dealloc_pd(&self, pd: &Pd) -> Result<()> {
        generic::pd::dealloc(pd)
    }
    fn reg_mr(
        &self,
        pd: &Arc<Pd>,
        addr: usize,
        len: usize,
        iova: u64,
        access: u32,
    ) -> Result<Arc<Mr>> {
        generic::mr::reg_kernel(pd, addr, len, iova, access, &[], &mut [])
    }
    fn dereg_mr(&self, mr: &Mr) -> Result<()> {
        generic::mr::dereg_kernel(mr)
    }
    fn alloc_mw(&self, pd: &Arc<Pd>, ty: ibv_mw_type) -> Result<Arc<Mw>> {
        generic::mw::alloc(pd, ty, &[], &mut [])
    }
    fn dealloc_mw(&self, mw: &Mw) -> Result<()> {
        generic::mw::dealloc(mw)
    }
    fn create_ah(&self, pd: &Arc<Pd>, attr: &ibv_ah_attr) -> Result<Arc<Ah>> {
        super::ah::create(pd, attr)
    }
    fn destroy_ah(&self, ah: &Ah) -> Result<()> {
        super::ah::destroy(ah)
    }
    fn init_ah_from_wc(
        &self,
        ctx: &Context,
        port: u8,
        wc: &ibv_wc,
        grh: Option<&ibv_grh>,
        ah_attr: &mut ibv_ah_attr,
    ) -> Result<()> {
        generic::ah_wc::init_ah_from_wc(ctx, port, wc, grh, ah_attr)
    }
    fn attach_mcast(&self, qp: &Qp, gid: &ibv_gid, lid: u16) -> Result<()> {
        generic::mcast::attach(qp, gid, lid)
    }
    fn detach_mcast(&self, qp: &Qp, gid: &ibv_gid, lid: u16) -> Result<()> {
        generic::mcast::detach(qp, gid, lid)
    }
    // ---- end pdmr ----
}
