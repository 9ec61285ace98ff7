//! ibv_open_device: the part every uverbs provider shares.
#![allow(unsafe_code)]

use super::{Context, ContextOps};
use super::{dummy, fill_lib_slots};
use crate::abi::*;
use crate::device::Device;
use crate::entry::Result;
use crate::object::CObject;
use crate::uverbs::Uverbs;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

/// `verbs_context.context.abi_compat` of an extended context (`__VERBS_ABI_IS_EXTENDED`).
const ABI_IS_EXTENDED: *mut std::ffi::c_void = usize::MAX as *mut _;

/// Opens a context on `dev` over `cmd_fd` (a fresh open of its uverbs char
/// device, or an imported one). `make_ops` builds the provider's half once the
/// kernel context exists; `fill_ops` lets the provider set the op slots it
/// implements (everything else stays a dummy).
pub(crate) fn open(
    dev: &Arc<Device>,
    cmd_fd: OwnedFd,
    driver_id: u32,
    get_context: bool,
    make_ops: impl FnOnce(&Uverbs) -> Result<Box<dyn ContextOps>>,
    fill_ops: impl FnOnce(&mut verbs_context),
) -> Result<Arc<Context>> {
    let uverbs = Uverbs::from_fd(cmd_fd, driver_id);
    let (async_fd, num_comp_vectors) = if get_context {
        let info = uverbs.get_context(&[], &mut [])?;
        (info.async_fd, info.num_comp_vectors)
    } else {
        // An imported context shares the exporter's; events go there.
        (std::fs::File::open("/dev/null")?.into(), 0)
    };
    let ops = make_ops(&uverbs)?;

    // SAFETY: plain C data (nullable pointers, integers, a glibc mutex whose
    // all-zero state is PTHREAD_MUTEX_INITIALIZER); all-zero is valid.
    let mut c: verbs_context = unsafe { std::mem::zeroed() };
    dummy::fill_verbs_context(&mut c);
    fill_lib_slots(&mut c);
    fill_ops(&mut c);
    c.sz = size_of::<verbs_context>();
    c.context.device = dev.c_ptr();
    c.context.cmd_fd = uverbs.raw_fd();
    c.context.async_fd = async_fd.as_raw_fd();
    c.context.num_comp_vectors = num_comp_vectors as i32;
    c.context.abi_compat = ABI_IS_EXTENDED;

    Ok(Arc::new(Context {
        c: super::CCtx::Ours(super::stable::CBlock::new(c)),
        device: dev.clone(),
        uverbs,
        async_fd,
        ops,
    }))
}

/// A context a hosted C plugin allocated and initialised (`vctx`, inside its
/// own allocation): ours only tracks it, owning the command and async fds.
pub(crate) fn open_hosted(
    dev: &Arc<Device>,
    uverbs: Uverbs,
    async_fd: OwnedFd,
    vctx: std::ptr::NonNull<crate::driver_abi::v34::verbs_context>,
    ops: Box<dyn ContextOps>,
) -> Arc<Context> {
    Arc::new(Context {
        c: super::CCtx::Hosted(vctx),
        device: dev.clone(),
        uverbs,
        async_fd,
        ops,
    })
}
