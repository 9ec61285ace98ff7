//! Protection domains.

use super::channel::{Uverbs, Verb};
use super::ids::*;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_alloc_pd`; followed by `driver_data[]`
    pub struct AllocPd = 8 {
        pub response: u64,
    }
}

kstruct! {
    /// `struct ib_uverbs_alloc_pd_resp`; followed by `driver_data[]`
    pub struct AllocPdResp = 4 {
        pub pd_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_dealloc_pd`
    pub struct DeallocPd = 4 {
        pub pd_handle: u32,
    }
}

write_cmd!(AllocPdCmd = IB_USER_VERBS_CMD_ALLOC_PD(AllocPd) -> AllocPdResp);
write_cmd!(DeallocPdCmd = IB_USER_VERBS_CMD_DEALLOC_PD(DeallocPd) -> ());

impl Uverbs {
    /// Allocates a protection domain; returns its handle.
    pub(crate) fn alloc_pd(&self, drv_in: &[u8], drv_out: &mut [u8]) -> Result<u32> {
        Ok(self
            .write::<AllocPdCmd>(&AllocPd::default(), drv_in, drv_out)?
            .pd_handle)
    }

    pub(crate) fn dealloc_pd(&self, pd_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_PD,
            UVERBS_METHOD_PD_DESTROY,
            UVERBS_ATTR_DESTROY_PD_HANDLE,
        );
        self.destroy(Verb::DeallocPd, "PD_DESTROY", ioctl, pd_handle, || {
            self.write::<DeallocPdCmd>(&DeallocPd { pd_handle }, &[], &mut [])
        })
    }
}
