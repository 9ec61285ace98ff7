//! Providers: the per-driver user-space halves of the verbs (the data path that
//! bypasses the kernel). Each provider is a subdirectory.

// Its owners document these `unsafe` blocks next; until then the lint that
// `make check` denies elsewhere is allowed here only.
#[allow(clippy::undocumented_unsafe_blocks)]
pub(crate) mod plugin;
pub(crate) mod rxe;
