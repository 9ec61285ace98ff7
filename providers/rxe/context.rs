//! An open rxe context: the verbs rxe implements, over the kernel's uverbs.

use crate::abi::verbs_context;
use crate::context::ContextOps;

#[derive(Default)]
pub struct RxeContext {}

impl RxeContext {
    /// Sets the op slots rxe implements itself (data path); the rest keep the
    /// library's dispatchers or dummies.
    pub fn fill_ops(_v: &mut verbs_context) {}
}

impl ContextOps for RxeContext {}
