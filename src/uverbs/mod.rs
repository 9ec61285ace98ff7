//! The kernel uverbs ABI as typed, safe commands.
//!
//! [`Uverbs`] is an open `/dev/infiniband/uverbsN`, defined in `channel`, the
//! bottom file: the modules that add its calls import it, never this one,
//! which only declares and re-exports. Each write() command is a type
//! implementing [`WriteCmd`] or [`WriteExCmd`]; ioctl methods are built with
//! [`IoctlCmd`]. The per-object modules hold the kernel structs and the typed
//! calls the provider and verbs layers use. Only `pod` and `sys` contain `unsafe`.

#[macro_use]
pub(crate) mod pod;
pub(crate) mod channel;
pub(crate) mod fallback;
pub(crate) mod ids;
pub(crate) mod ioctl;
pub(crate) mod ioctl_hdr;
mod sys;
pub(crate) use sys::RDMA_VERBS_IOCTL;
#[macro_use]
pub(crate) mod write;

pub(crate) mod ah;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod disassoc;
pub(crate) mod flow;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mw;
mod open;
pub(crate) mod pd;
pub(crate) mod post;
pub(crate) mod qp;
pub(crate) mod rxe;
pub(crate) mod srq;
pub(crate) mod wq;
pub(crate) mod xrcd;

pub(crate) use channel::Uverbs;
pub(crate) use ioctl::IoctlCmd;
pub(crate) use pod::Pod;

#[cfg(test)]
mod tests;
