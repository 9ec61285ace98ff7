//! The objects hosted plugins create, tracked by address, kind and owning
//! context: a pointer C hands back reaches the plugin only if it is a live
//! object of the right kind, and ibv_close_device destroys what is left.
//! The objects themselves are the plugin's own C structs.
#![allow(unsafe_code)]

use crate::abi::*;
use crate::driver_abi::v34::{verbs_context_ops, verbs_mr};
use crate::entry::{Errno, Result};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::RwLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    // In the order close destroys leftovers: users before what they use.
    Qp,
    Srq,
    Ah,
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

pub fn track(p: *mut c_void, kind: Kind, ctx: *mut ibv_context) {
    let mut g = OBJECTS.write().unwrap_or_else(|p| p.into_inner());
    g.get_or_insert_with(HashMap::new).insert(
        p as usize,
        Entry {
            kind,
            ctx: ctx as usize,
        },
    );
}

/// The owning context of a live object of `kind`, else EINVAL.
pub fn check(p: *mut c_void, kind: Kind) -> Result<*mut ibv_context> {
    let g = OBJECTS.read().unwrap_or_else(|p| p.into_inner());
    match g.as_ref().and_then(|m| m.get(&(p as usize))) {
        Some(e) if e.kind == kind && !p.is_null() => Ok(e.ctx as *mut ibv_context),
        _ => Err(Errno::EINVAL),
    }
}

pub fn is_tracked(p: *const c_void) -> bool {
    let g = OBJECTS.read().unwrap_or_else(|p| p.into_inner());
    g.as_ref().is_some_and(|m| m.contains_key(&(p as usize)))
}

/// Runs the plugin's destroy `f` on a live object; forgets it when it went.
/// The entry is taken out first, so a second destroy meanwhile gets EINVAL
/// and never reaches the plugin; a failed destroy puts it back.
pub fn destroy(p: *mut c_void, kind: Kind, f: impl FnOnce() -> i32) -> Result<()> {
    let e = {
        let mut g = OBJECTS.write().unwrap_or_else(|p| p.into_inner());
        let m = g.as_mut().ok_or(Errno::EINVAL)?;
        match m.get(&(p as usize)) {
            Some(e) if e.kind == kind => m.remove(&(p as usize)).ok_or(Errno::EINVAL)?,
            _ => return Err(Errno::EINVAL),
        }
    };
    match f() {
        0 => Ok(()),
        r => {
            track(p, kind, e.ctx as *mut ibv_context);
            Err(Errno(r))
        }
    }
}

/// ibv_close_device: destroys every object of `ctx` still alive, users first.
pub fn destroy_all(ctx: *mut ibv_context, ops: &verbs_context_ops) {
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
