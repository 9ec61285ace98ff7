//! Memory regions.

use super::channel::{Uverbs, Verb};
use super::ids::*;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_reg_mr`; followed by `driver_data[]`
    pub struct RegMr = 40 {
        pub response: u64,
        pub start: u64,
        pub length: u64,
        pub hca_va: u64,
        pub pd_handle: u32,
        pub access_flags: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_reg_mr_resp`; followed by `driver_data[]`
    pub struct RegMrResp = 12 {
        pub mr_handle: u32,
        pub lkey: u32,
        pub rkey: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_rereg_mr`; followed by `driver_data[]`
    pub struct ReregMr = 48 {
        pub response: u64,
        pub mr_handle: u32,
        pub flags: u32,
        pub start: u64,
        pub length: u64,
        pub hca_va: u64,
        pub pd_handle: u32,
        pub access_flags: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_rereg_mr_resp`; followed by `driver_data[]`
    pub struct ReregMrResp = 8 {
        pub lkey: u32,
        pub rkey: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_dereg_mr`
    pub struct DeregMr = 4 {
        pub mr_handle: u32,
    }
}

write_cmd!(RegMrCmd = IB_USER_VERBS_CMD_REG_MR(RegMr) -> RegMrResp);
write_cmd!(ReregMrCmd = IB_USER_VERBS_CMD_REREG_MR(ReregMr) -> ReregMrResp);
write_cmd!(DeregMrCmd = IB_USER_VERBS_CMD_DEREG_MR(DeregMr) -> ());

impl Uverbs {
    /// Registers `[start, start + length)` of this process, mapped at `hca_va`.
    /// The kernel pins the pages; the memory itself is never touched here.
    #[inline]
    pub(crate) fn reg_mr(
        &self,
        req: &RegMr,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<RegMrResp> {
        self.write::<RegMrCmd>(req, drv_in, drv_out)
    }

    pub(crate) fn rereg_mr(
        &self,
        req: &ReregMr,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<ReregMrResp> {
        self.write::<ReregMrCmd>(req, drv_in, drv_out)
    }

    #[inline]
    pub(crate) fn dereg_mr(&self, mr_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_MR,
            UVERBS_METHOD_MR_DESTROY,
            UVERBS_ATTR_DESTROY_MR_HANDLE,
        );
        self.destroy(Verb::DeregMr, "MR_DESTROY", ioctl, mr_handle, || {
            self.write::<DeregMrCmd>(&DeregMr { mr_handle }, &[], &mut [])
        })
    }
}
