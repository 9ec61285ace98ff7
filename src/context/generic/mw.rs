//! Memory windows: the kernel's ALLOC_MW / DEALLOC_MW.

use crate::abi::*;
use crate::context::{New, Obj};
use crate::entry::Result;
use crate::object::CObject;
use crate::object::slab::{Pinned, Slab};

/// An MW of a uverbs provider: just the C struct (bind reads its rkey).
#[repr(C)]
pub(crate) struct Mw {
    /// `rkey` changes with every bind while C reads it.
    pub c: std::cell::UnsafeCell<ibv_mw>,
}

impl Mw {
    fn rkey_cell(&self) -> &std::sync::atomic::AtomicU32 {
        // SAFETY: `rkey` is an aligned u32 inside our C struct; we access it
        // only atomically (C reads it plainly, as with rdma-core).
        #[allow(unsafe_code)]
        unsafe {
            std::sync::atomic::AtomicU32::from_ptr(&raw mut (*self.c.get()).rkey)
        }
    }

    /// The MW's current rkey.
    #[inline]
    pub(crate) fn rkey(&self) -> u32 {
        self.rkey_cell().load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A bind's new rkey.
    pub(crate) fn set_rkey(&self, rkey: u32) {
        self.rkey_cell()
            .store(rkey, std::sync::atomic::Ordering::Relaxed)
    }
}

// SAFETY: plain data; the pointers in it are addresses only.
#[allow(unsafe_code)]
unsafe impl Send for Mw {}
// SAFETY: as above; the rkey is written by binds, as in rdma-core.
#[allow(unsafe_code)]
unsafe impl Sync for Mw {}

static MWS: Slab<Mw> = Slab::new();

/// The data path's check of an MW pointer (ibv_bind_mw, bind WRs).
pub(crate) fn pin(p: *const ibv_mw) -> Option<Pinned<Mw>> {
    MWS.pin(p.cast())
}

/// ALLOC_MW. The kernel command carries the type in one byte (as rdma-core
/// sends it); the C struct keeps the caller's value.
pub(crate) fn alloc(pd: &Obj, ty: ibv_mw_type, drv_in: &[u8], drv_out: &mut [u8]) -> Result<New> {
    let ctx = &pd.ctx;
    let r = ctx
        .uverbs
        .alloc_mw(super::pd::handle(pd), ty.0 as u8, drv_in, drv_out)?;
    let c = ibv_mw {
        context: ctx.c_ptr(),
        pd: pd.c::<ibv_pd>(),
        rkey: r.rkey,
        handle: r.mw_handle,
        r#type: ty,
    };
    Ok(MWS.vacant().fill(Mw {
        c: std::cell::UnsafeCell::new(c),
    }))
}

/// DEALLOC_MW.
pub(crate) fn dealloc(mw: &Obj) -> Result<()> {
    mw.ctx.uverbs.dealloc_mw(mw.read_c(|c: &ibv_mw| c.handle))
}
