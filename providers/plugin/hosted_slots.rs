//! The slots a hosted context has of its own, beside the library's (see
//! `super::slots`, which registers its filler here when the library is
//! loaded, so that the context code, which writes them, never imports it).

use crate::abi::verbs_context;
use std::sync::OnceLock;

static FILL: OnceLock<fn(&mut verbs_context)> = OnceLock::new();

/// Called once, by `super::slots` at load time.
pub(crate) fn register(fill: fn(&mut verbs_context)) {
    let _ = FILL.set(fill);
}

/// Points a hosted context's own slots of `v` at their functions.
pub(crate) fn fill(v: &mut verbs_context) {
    if let Some(fill) = FILL.get() {
        fill(v);
    }
}
