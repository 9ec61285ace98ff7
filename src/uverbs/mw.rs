//! Memory windows.

use super::channel::{Uverbs, Verb};
use super::ids::*;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_alloc_mw`; followed by `driver_data[]`
    pub struct AllocMw = 16 {
        pub response: u64,
        pub pd_handle: u32,
        pub mw_type: u8,
        pub reserved: [u8; 3],
    }
}

kstruct! {
    /// `struct ib_uverbs_alloc_mw_resp`; followed by `driver_data[]`
    pub struct AllocMwResp = 8 {
        pub mw_handle: u32,
        pub rkey: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_dealloc_mw`
    pub struct DeallocMw = 4 {
        pub mw_handle: u32,
    }
}

write_cmd!(AllocMwCmd = IB_USER_VERBS_CMD_ALLOC_MW(AllocMw) -> AllocMwResp);
write_cmd!(DeallocMwCmd = IB_USER_VERBS_CMD_DEALLOC_MW(DeallocMw) -> ());

impl Uverbs {
    /// Allocates a memory window of `mw_type` (1 or 2) in `pd_handle`.
    pub(crate) fn alloc_mw(
        &self,
        pd_handle: u32,
        mw_type: u8,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<AllocMwResp> {
        let req = AllocMw {
            pd_handle,
            mw_type,
            ..Default::default()
        };
        self.write::<AllocMwCmd>(&req, drv_in, drv_out)
    }

    pub(crate) fn dealloc_mw(&self, mw_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_MW,
            UVERBS_METHOD_MW_DESTROY,
            UVERBS_ATTR_DESTROY_MW_HANDLE,
        );
        self.destroy(Verb::DeallocMw, "MW_DESTROY", ioctl, mw_handle, || {
            self.write::<DeallocMwCmd>(&DeallocMw { mw_handle }, &[], &mut [])
        })
    }
}
