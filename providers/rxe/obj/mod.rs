//! The rxe objects (rdma-core's rxe.h): one `#[repr(C)]` type per verbs object
//! with the verbs C struct first and the provider's state after it, in its
//! type's slab (`crate::object::slab`), with the data-path check `pin`. Kept
//! apart from the verbs that use them so that those import downwards only
//! (`cq` and `poll`, `qp`, `post` and `wr` all build on these).

pub(super) mod cq;
pub(super) mod qp;
