//! Providers: the per-driver user-space halves of the verbs (the data path that
//! bypasses the kernel). Each provider is a subdirectory.

pub(crate) mod plugin;
pub(crate) mod rxe;
