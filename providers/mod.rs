//! Providers: the per-driver user-space halves of the verbs (the data path that
//! bypasses the kernel). Each provider is a subdirectory.

pub mod plugin;
pub mod rxe;
