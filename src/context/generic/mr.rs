//! Memory regions: the kernel's REG_MR / DEREG_MR, and what libibverbs does
//! around the provider (fork protection of the range, the C fields it fills,
//! ibv_rereg_mr's checks and error codes).

use crate::abi::*;
use crate::context::{Context, New, Obj};
use crate::entry::{Errno, Result, set_errno};
use crate::flags::{Access, Rereg};
use crate::fork::{self, Advice};
use crate::object::slab::{Pinned, Slab};
use crate::object::{self, CObject};
use crate::uverbs::IoctlCmd;
use crate::uverbs::ids::*;
use crate::uverbs::mr::RegMr;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// How an MR came to be (rdma-core's `enum ibv_mr_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MrType {
    Mr,
}

/// What the library keeps about an MR besides its C struct.
#[derive(Debug)]
pub(crate) struct MrInfo {
    pub mr_type: MrType,
    /// The access flags it was registered with.
    pub access: u32,
    /// Serializes ibv_rereg_mr's updates of the C struct.
    pub lock: Mutex<()>,
}

/// An MR of a uverbs provider: the C struct, then the library's record.
#[repr(C)]
pub(crate) struct Mr {
    /// Changed by ibv_rereg_mr (under `info.lock`) while C reads it.
    pub c: std::cell::UnsafeCell<ibv_mr>,
    pub info: MrInfo,
}

// SAFETY: plain data (the pointers in the C struct are addresses only) and
// a mutex.
#[allow(unsafe_code)]
unsafe impl Send for Mr {}
// SAFETY: as above; the C struct changes only under `info.lock` (rereg).
#[allow(unsafe_code)]
unsafe impl Sync for Mr {}

static MRS: Slab<Mr> = Slab::new();

/// The data path's check of an MR pointer (the MR of a bind).
pub(crate) fn pin(p: *const ibv_mr) -> Option<Pinned<Mr>> {
    MRS.pin(p.cast())
}

impl Mr {
    /// The MR's lkey (fixed at registration; rereg keeps it on rxe).
    #[inline]
    pub(crate) fn lkey(&self) -> u32 {
        // SAFETY: a plain field of our C struct; rereg's writes race with it
        // as in rdma-core.
        #[allow(unsafe_code)]
        unsafe {
            (*self.c.get()).lkey
        }
    }
}

/// The library's record of an MR (every MR a uverbs provider creates has one;
/// None for another provider's).
pub(crate) fn info(mr: &Obj) -> Option<&MrInfo> {
    // SAFETY: a registered record keeps its object unreleased while `mr`
    // is borrowed; only MRS fills slots of MRS.
    #[allow(unsafe_code)]
    unsafe { MRS.get(mr.addr().as_ptr()) }.map(|m| &m.info)
}

/// REG_MR for `[addr, addr + len)` at `iova`; fills the C struct as
/// ibv_cmd_reg_mr does.
pub(crate) fn reg_kernel(
    pd: &Obj,
    addr: usize,
    len: usize,
    iova: u64,
    access: u32,
    drv_in: &[u8],
    drv_out: &mut [u8],
) -> Result<New> {
    let mut length = len as u64;
    if Access::from_bits_retain(access).contains(Access::ON_DEMAND) && len == usize::MAX {
        // The whole address space: an implicit ODP MR, which must start at 0.
        if addr != 0 {
            return Err(Errno::EINVAL);
        }
        length = u64::MAX;
    }
    let req = RegMr {
        start: addr as u64,
        length,
        hca_va: iova,
        pd_handle: super::pd::handle(pd),
        access_flags: access,
        ..Default::default()
    };
    let ctx = &pd.ctx;
    let r = ctx.uverbs.reg_mr(&req, drv_in, drv_out)?;
    let c = ibv_mr {
        context: ctx.c_ptr(),
        pd: pd.c::<ibv_pd>(),
        addr: addr as *mut c_void,
        length: len,
        handle: r.mr_handle,
        lkey: r.lkey,
        rkey: r.rkey,
    };
    let info = MrInfo {
        mr_type: MrType::Mr,
        access,
        lock: Mutex::new(()),
    };
    Ok(MRS.vacant().fill(Mr {
        c: std::cell::UnsafeCell::new(c),
        info,
    }))
}

/// DEREG_MR.
pub(crate) fn dereg_kernel(mr: &Obj) -> Result<()> {
    mr.ctx.uverbs.dereg_mr(mr.read_c(|c: &ibv_mr| c.handle))
}

/// [`core_support`] before its first query.
const UNKNOWN: u64 = u64::MAX;
/// [`core_support`]'s answer, once known.
static CORE_SUPPORT: AtomicU64 = AtomicU64::new(UNKNOWN);

/// The kernel's `IB_UVERBS_CORE_SUPPORT_*` bits (QUERY_CONTEXT); 0 on kernels
/// without that method. The same for every device of this kernel. Inlined:
/// after the first registration, one load.
#[inline(always)]
pub(crate) fn core_support(ctx: &Context) -> u64 {
    let v = CORE_SUPPORT.load(Ordering::Relaxed);
    if v != UNKNOWN {
        return v;
    }
    query_core_support(ctx)
}

/// [`core_support`]'s first call: asks the kernel.
#[cold]
#[inline(never)]
fn query_core_support(ctx: &Context) -> u64 {
    let mut support = 0u64;
    let mut vectors = 0u32;
    let mut c = IoctlCmd::new(
        "QUERY_CONTEXT",
        UVERBS_OBJECT_DEVICE,
        UVERBS_METHOD_QUERY_CONTEXT,
    );
    c.ptr_out_pod(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &mut vectors);
    c.ptr_out_pod(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &mut support);
    let ok = ctx.uverbs.ioctl(&mut c).is_ok();
    let v = if ok { support } else { 0 };
    CORE_SUPPORT.store(v, Ordering::Relaxed);
    v
}

/// ibv_reg_mr_iova2 (and ibv_reg_mr, ibv_reg_mr_iova): drops the optional
/// access bits the kernel does not know, keeps the range out of fork()
/// children (unless on-demand paging), and lets the provider register it.
// Inlined: one call and one copy of the new MR's `New` less per reg.
#[inline(always)]
pub(crate) fn reg(pd: &Obj, addr: usize, len: usize, iova: u64, access: u32) -> Result<New> {
    let ctx = &pd.ctx;
    // Unknown bits stay: the kernel (or the provider) judges them.
    let mut flags = Access::from_bits_retain(access);
    if core_support(ctx) & u64::from(IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS) == 0 {
        flags.remove(Access::OPTIONAL_RANGE);
    }
    let access = flags.bits();
    let odp = flags.contains(Access::ON_DEMAND);
    if !odp {
        fork::range(addr, len, Advice::DontFork)?;
    }
    match ctx.ops.reg_mr(pd, addr, len, iova, access) {
        Ok(mr) => {
            let c = mr.c().as_ptr().cast::<ibv_mr>();
            // SAFETY: the new MR's C struct, not yet published.
            #[allow(unsafe_code)]
            let c = unsafe { &mut *c };
            {
                c.context = ctx.c_ptr();
                c.pd = pd.c::<ibv_pd>();
                c.addr = addr as *mut c_void;
                c.length = len;
            }
            Ok(mr)
        }
        Err(e) => {
            if !odp {
                let _ = fork::range(addr, len, Advice::DoFork);
            }
            Err(e)
        }
    }
}

/// ibv_reg_dmabuf_mr: the provider's registration, then the C fields.
pub(crate) fn reg_dmabuf(
    pd: &Obj,
    offset: u64,
    len: usize,
    iova: u64,
    fd: c_int,
    access: u32,
) -> Result<New> {
    let mr = pd
        .ctx
        .ops
        .reg_dmabuf_mr(pd, offset, len, iova, fd, access)?;
    // SAFETY: the new MR's C struct, not yet published.
    #[allow(unsafe_code)]
    let c = unsafe { &mut *mr.c().as_ptr().cast::<ibv_mr>() };
    c.context = pd.ctx.c_ptr();
    c.pd = pd.c::<ibv_pd>();
    c.addr = offset as usize as *mut c_void;
    c.length = len;
    Ok(mr)
}

/// ibv_dereg_mr's check-and-destroy, run under the registry lock: the
/// provider's deregistration, then the range may be inherited by fork() again.
pub(crate) fn dereg(mr: &Obj) -> Result<()> {
    let c = mr.read_c(|c: &ibv_mr| *c);
    // Another provider's MR (a hosted plugin's) says its type and access
    // itself: an imported MR's range was never kept from fork (it is
    // another process's address), nor an on-demand MR's.
    let (plain, access) = match info(mr) {
        Some(i) => (i.mr_type == MrType::Mr, i.access),
        None => mr.ctx.ops.mr_plain_access(mr),
    };
    mr.ctx.ops.dereg_mr(mr)?;
    if plain && !Access::from_bits_retain(access).contains(Access::ON_DEMAND) {
        let _ = fork::range(c.addr as usize, c.length, Advice::DoFork);
    }
    Ok(())
}

/// ibv_rereg_mr: 0, or an `IBV_REREG_MR_ERR_*` code with errno set.
pub(crate) fn rereg(
    mr: &Obj,
    flags: c_int,
    pd: *mut ibv_pd,
    addr: usize,
    len: usize,
    access: c_int,
) -> c_int {
    let input = |e: Errno| {
        set_errno(e);
        IBV_REREG_MR_ERR_INPUT
    };
    // A hosted plugin's MR has no record of ours: its type is the
    // provider's to tell. Past these checks the plugin's rereg_mr (or its
    // absence, EOPNOTSUPP) decides, as under rdma-core for its own MRs.
    if info(mr).is_some_and(|i| i.mr_type != MrType::Mr) || !mr.ctx.ops.mr_plain_access(mr).0 {
        return input(Errno::EINVAL);
    }
    let Some(change) = Rereg::from_bits(flags as u32) else {
        return input(Errno::EINVAL);
    };
    let translation = change.contains(Rereg::CHANGE_TRANSLATION);
    if translation && (len == 0 || addr == 0) {
        return input(Errno::EINVAL);
    }
    if access != 0 && !change.contains(Rereg::CHANGE_ACCESS) {
        return input(Errno::EINVAL);
    }
    if translation && let Err(e) = fork::range(addr, len, Advice::DontFork) {
        set_errno(e);
        return IBV_REREG_MR_ERR_DONT_FORK_NEW;
    }
    let _guard = info(mr).map(|i| i.lock.lock().unwrap_or_else(|p| p.into_inner()));
    let old = mr.read_c(|c: &ibv_mr| *c);
    // A pointer that is not a live PD reaches the provider as None: a provider
    // that can change the PD answers EINVAL then.
    let new_pd = if change.contains(Rereg::CHANGE_PD) {
        object::get::<ibv_pd, Context>(pd).ok()
    } else {
        None
    };
    match mr
        .ctx
        .ops
        .rereg_mr(mr, flags, new_pd.as_deref(), addr, len, access)
    {
        Ok(()) => {
            mr.update_c(|c: &mut ibv_mr| {
                if change.contains(Rereg::CHANGE_PD) {
                    c.pd = pd;
                }
                if translation {
                    c.addr = addr as *mut c_void;
                    c.length = len;
                }
            });
            if translation
                && let Err(e) = fork::range(old.addr as usize, old.length, Advice::DoFork)
            {
                set_errno(e);
                return IBV_REREG_MR_ERR_DO_FORK_OLD;
            }
            0
        }
        Err(e) => {
            set_errno(e);
            if translation && let Err(e) = fork::range(addr, len, Advice::DoFork) {
                set_errno(e);
                return IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW;
            }
            IBV_REREG_MR_ERR_CMD
        }
    }
}
