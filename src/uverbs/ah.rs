//! Address handles.

use super::channel::{Uverbs, Verb};
use super::ids::*;
use super::qp::AhAttr;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_create_ah`; followed by `driver_data[]`
    pub struct CreateAh = 56 {
        pub response: u64,
        pub user_handle: u64,
        pub pd_handle: u32,
        pub reserved: u32,
        pub attr: AhAttr,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_ah_resp`; followed by `driver_data[]`
    pub struct CreateAhResp = 4 {
        pub ah_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_ah`
    pub struct DestroyAh = 4 {
        pub ah_handle: u32,
    }
}

write_cmd!(CreateAhCmd = IB_USER_VERBS_CMD_CREATE_AH(CreateAh) -> CreateAhResp);
write_cmd!(DestroyAhCmd = IB_USER_VERBS_CMD_DESTROY_AH(DestroyAh) -> ());

impl Uverbs {
    /// Creates an address handle; returns its handle. rxe answers `drv_out` with
    /// `rxe::CreateAhResp` (its AH index).
    pub(crate) fn create_ah(
        &self,
        req: &CreateAh,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<u32> {
        Ok(self.write::<CreateAhCmd>(req, drv_in, drv_out)?.ah_handle)
    }

    pub(crate) fn destroy_ah(&self, ah_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_AH,
            UVERBS_METHOD_AH_DESTROY,
            UVERBS_ATTR_DESTROY_AH_HANDLE,
        );
        self.destroy(Verb::DestroyAh, "AH_DESTROY", ioctl, ah_handle, || {
            self.write::<DestroyAhCmd>(&DestroyAh { ah_handle }, &[], &mut [])
        })
    }
}
