//! ibv_close_device for a hosted context: the plugin destroys whatever C
//! left, before the plugin frees its context. What is left is what the
//! registry still holds for the context (every object our verbs handed to C
//! is registered there), so the host keeps no list of its own.
#![allow(unsafe_code)]

use crate::abi::*;
use crate::context::Context;
use crate::driver_abi::v34::{verbs_context_ops, verbs_mr};
use crate::driver_abi::v65::verbs_context_ops as verbs_context_ops65;
use crate::object::{self, Kind};
use std::sync::Arc;

/// The order close destroys leftovers in: users before what they use
/// (`parent`: a PD that is a parent domain, over another PD).
fn rank(k: Kind, parent: bool) -> Option<u8> {
    Some(match k {
        Kind::Qp => 0,
        Kind::Wq => 1,
        Kind::Srq => 2,
        Kind::Ah => 3,
        Kind::Mw => 4,
        Kind::Mr => 5,
        // After the MRs registered on it.
        Kind::Dm => 6,
        Kind::Cq => 7,
        Kind::Pd if parent => 8,
        Kind::Pd => 9,
        // After the QPs and MRs that may use them.
        Kind::CompCntr => 10,
        Kind::Dmah => 11,
        // The library's own (channels), or nothing a hosted context makes.
        _ => return None,
    })
}

/// The addresses of a context's objects that close treats apart.
pub(crate) struct Special<'a> {
    /// Parent domains: freed before the other PDs.
    pub parents: &'a [usize],
    /// Imported PDs, MRs and DMs: unimported, as rdma-core's
    /// ibv_unimport_* would, never destroyed (that would destroy the
    /// kernel object the exporting process still uses).
    pub imported: &'a [usize],
}

/// Takes every object of `ctx` back from C and has the plugin destroy its
/// own, users first (`ops65`: a 65 plugin's whole table, for the kinds 34's
/// has no slot for; `special`: its parent domains and imported objects),
/// running `before_pds` once before the first PD goes (the context's
/// buffers, made on PDs); the records go when this returns.
pub(crate) fn destroy_all(
    ctx: &Arc<Context>,
    ops: &verbs_context_ops,
    ops65: Option<&verbs_context_ops65>,
    special: Special<'_>,
    before_pds: impl FnOnce(),
) {
    let entries = object::take_owned_by(ctx);
    let mut left: Vec<(u8, Kind, *mut std::ffi::c_void)> = entries
        .iter()
        .filter_map(|o| {
            let p = o.addr().as_ptr();
            Some((
                rank(o.kind(), special.parents.contains(&(p as usize)))?,
                o.kind(),
                p,
            ))
        })
        .collect();
    left.sort_by_key(|l| l.0);
    let mut before_pds = Some(before_pds);
    for (_, kind, p) in left {
        if kind == Kind::Pd
            && let Some(f) = before_pds.take()
        {
            f();
        }
        if special.imported.contains(&(p as usize)) {
            // SAFETY: as below; the plugin's unimport for its kind (none:
            // left alone, as rdma-core's default unimport does).
            unsafe {
                match kind {
                    Kind::Pd => ops.unimport_pd.map(|f| f(p.cast::<ibv_pd>())),
                    Kind::Mr => ops.unimport_mr.map(|f| f(p.cast::<ibv_mr>())),
                    Kind::Dm => ops.unimport_dm.map(|f| f(p.cast::<ibv_dm>())),
                    _ => None,
                };
            }
            continue;
        }
        // SAFETY: live objects of this plugin's context, out of the registry
        // (no new verb finds them), each destroyed once with the
        // plugin's own op for its kind.
        unsafe {
            match kind {
                Kind::Qp => ops.destroy_qp.map(|f| f(p.cast::<ibv_qp>())),
                Kind::Wq => ops.destroy_wq.map(|f| f(p.cast::<ibv_wq>())),
                Kind::Srq => ops.destroy_srq.map(|f| f(p.cast::<ibv_srq>())),
                Kind::Ah => ops.destroy_ah.map(|f| f(p.cast::<ibv_ah>())),
                Kind::Mw => ops.dealloc_mw.map(|f| f(p.cast::<ibv_mw>())),
                Kind::Mr => ops.dereg_mr.map(|f| f(p.cast::<verbs_mr>())),
                Kind::Dm => ops.free_dm.map(|f| f(p.cast::<ibv_dm>())),
                Kind::Cq => ops.destroy_cq.map(|f| f(p.cast::<ibv_cq>())),
                Kind::Pd => ops.dealloc_pd.map(|f| f(p.cast::<ibv_pd>())),
                Kind::CompCntr => ops65
                    .and_then(|o| o.destroy_comp_cntr)
                    .map(|f| f(p.cast::<ibv_comp_cntr>())),
                Kind::Dmah => ops65
                    .and_then(|o| o.dealloc_dmah)
                    .map(|f| f(p.cast::<ibv_dmah>())),
                _ => None,
            };
        }
    }
    if let Some(f) = before_pds {
        f();
    }
    drop(entries);
}
