//! The objects hosted plugins create, by address, kind and owning context,
//! beside the registry (which validates them): ibv_close_device has the
//! plugin destroy whatever C left, before the plugin frees its context.
#![allow(unsafe_code)]

use crate::abi::*;
use crate::driver_abi::v34::{verbs_context_ops, verbs_mr};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::RwLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    // In the order close destroys leftovers: users before what they use.
    Qp,
    Srq,
    Ah,
    #[expect(dead_code, reason = "unused since the items became pub(crate) (#13)")]
    Mw,
    Mr,
    Cq,
    Pd,
}

#[derive(Clone, Copy)]
struct Entry {
    kind: Kind,
    ctx: usize,
}

static OBJECTS: RwLock<Option<HashMap<usize, Entry>>> = RwLock::new(None);

pub(crate) fn track(p: *mut c_void, kind: Kind, ctx: *mut ibv_context) {
    let mut g = OBJECTS.write().unwrap_or_else(|p| p.into_inner());
    g.get_or_insert_with(HashMap::new).insert(
        p as usize,
        Entry {
            kind,
            ctx: ctx as usize,
        },
    );
}

/// Forgets an object the plugin destroyed.
pub(crate) fn untrack(p: *mut c_void) {
    let mut g = OBJECTS.write().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = g.as_mut() {
        m.remove(&(p as usize));
    }
}

/// ibv_close_device: destroys every object of `ctx` still alive, users first.
pub(crate) fn destroy_all(ctx: *mut ibv_context, ops: &verbs_context_ops) {
    let mut left: Vec<(Kind, usize)> = {
        let mut g = OBJECTS.write().unwrap_or_else(|p| p.into_inner());
        let Some(m) = g.as_mut() else { return };
        let keys: Vec<(Kind, usize)> = m
            .iter()
            .filter(|(_, e)| e.ctx == ctx as usize)
            .map(|(k, e)| (e.kind, *k))
            .collect();
        for (_, k) in &keys {
            m.remove(k);
        }
        keys
    };
    left.sort();
    for (kind, p) in left {
        // SAFETY: live objects of this plugin's context, each destroyed once
        // with the plugin's own op for its kind.
        unsafe {
            match kind {
                Kind::Qp => ops.destroy_qp.map(|f| f(p as *mut ibv_qp)),
                Kind::Srq => ops.destroy_srq.map(|f| f(p as *mut ibv_srq)),
                Kind::Ah => ops.destroy_ah.map(|f| f(p as *mut ibv_ah)),
                Kind::Mw => ops.dealloc_mw.map(|f| f(p as *mut ibv_mw)),
                Kind::Mr => ops.dereg_mr.map(|f| f(p as *mut verbs_mr)),
                Kind::Cq => ops.destroy_cq.map(|f| f(p as *mut ibv_cq)),
                Kind::Pd => ops.dealloc_pd.map(|f| f(p as *mut ibv_pd)),
            };
        }
    }
}
