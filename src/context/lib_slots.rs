//! The `verbs_context` slots the library answers itself (ibv_query_port,
//! ibv_alloc_mw, ibv_create_cq_ex, ...): exported verbs, so they live in the
//! verbs layer above this one. That layer registers its filler when the
//! library is loaded, and every context opened gets it, so the context layer
//! never imports the verbs.

use crate::abi::verbs_context;
use std::sync::OnceLock;

static LIB_SLOTS: OnceLock<fn(&mut verbs_context)> = OnceLock::new();

/// Called once, by the verbs layer at load time.
pub(crate) fn register_lib_slots(fill: fn(&mut verbs_context)) {
    let _ = LIB_SLOTS.set(fill);
}

/// Points the library's own slots of `v` at the verbs layer's functions.
pub(crate) fn fill_lib_slots(v: &mut verbs_context) {
    if let Some(fill) = LIB_SLOTS.get() {
        fill(v);
    }
}
