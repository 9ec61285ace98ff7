//! An open rxe context: the verbs rxe implements, over the kernel's uverbs.

use crate::abi::*;
use crate::context::generic::{self, device::fw_ver_triplet};
use crate::context::{CompChannel, Context, ContextOps, Cq};
use crate::device::copy_c_str;
use crate::entry::Result;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

#[derive(Default)]
pub struct RxeContext {}

impl RxeContext {
    /// Sets the op slots rxe implements itself (data path); the rest keep the
    /// library's dispatchers or dummies.
    pub fn fill_ops(_v: &mut verbs_context) {}
}

/// rxe's query_device: the generic query, with the firmware version printed
/// as "major.minor.sub_minor".
fn rxe_query_device(ctx: &Context, attr: &mut ibv_device_attr_ex, attr_size: usize) -> Result<()> {
    let resp = generic::device::query_device_any(ctx, attr, attr_size)?;
    copy_c_str(
        &mut attr.orig_attr.fw_ver,
        &fw_ver_triplet(resp.base.fw_ver),
    );
    Ok(())
}

impl ContextOps for RxeContext {
    // ---- context-level verbs: queries, GIDs, P_Keys, events, channels ----
    fn query_device(&self, ctx: &Context, attr: &mut ibv_device_attr) -> Result<()> {
        let mut full = generic::device::zeroed_attr_ex();
        rxe_query_device(ctx, &mut full, size_of::<ibv_device_attr>())?;
        *attr = full.orig_attr;
        Ok(())
    }
    fn query_device_ex(
        &self,
        ctx: &Context,
        attr: &mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        rxe_query_device(ctx, attr, attr_size)
    }
    fn query_port(&self, ctx: &Context, port: u8, attr: &mut ibv_port_attr) -> Result<()> {
        generic::port::query_port(ctx, port, attr)
    }
    fn query_gid_ex(
        &self,
        ctx: &Context,
        port: u32,
        index: u32,
        flags: u32,
        fallback_mask: u32,
    ) -> Result<ibv_gid_entry> {
        generic::gid::query_gid_ex(ctx, port, index, flags, fallback_mask)
    }
    fn query_gid_table(
        &self,
        ctx: &Context,
        out: &mut [u8],
        entry_size: usize,
        flags: u32,
    ) -> Result<usize> {
        generic::gid::query_gid_table(ctx, out, entry_size, flags)
    }
    fn query_pkey(&self, ctx: &Context, port: u8, index: c_int) -> Result<u16> {
        generic::pkey::query_pkey(ctx, port, index)
    }
    fn get_async_event(&self, ctx: &Context, event: &mut ibv_async_event) -> Result<()> {
        generic::async_event::get_async_event(ctx, event)
    }
    fn create_comp_channel(&self, ctx: &Arc<Context>) -> Result<Arc<CompChannel>> {
        generic::channel::create_comp_channel(ctx)
    }
    fn destroy_comp_channel(&self, ch: &CompChannel) -> Result<()> {
        generic::channel::destroy_comp_channel(ch)
    }
    fn get_cq_event(&self, ch: &CompChannel) -> Result<(*mut ibv_cq, *mut c_void)> {
        generic::channel::get_cq_event(ch)
    }
    fn ack_cq_events(&self, cq: &Cq, n: u32) {
        generic::channel::ack_cq_events(cq, n)
    }
    // ---- end of context-level verbs ----
}
