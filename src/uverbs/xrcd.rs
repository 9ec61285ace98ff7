//! XRC domains.

use super::channel::{Uverbs, Verb};
use super::ids::*;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_open_xrcd`; followed by `driver_data[]`
    pub struct OpenXrcd = 16 {
        pub response: u64,
        pub fd: u32,
        pub oflags: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_open_xrcd_resp`; followed by `driver_data[]`
    pub struct OpenXrcdResp = 4 {
        pub xrcd_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_close_xrcd`
    pub struct CloseXrcd = 4 {
        pub xrcd_handle: u32,
    }
}

write_cmd!(OpenXrcdCmd = IB_USER_VERBS_CMD_OPEN_XRCD(OpenXrcd) -> OpenXrcdResp);
write_cmd!(CloseXrcdCmd = IB_USER_VERBS_CMD_CLOSE_XRCD(CloseXrcd) -> ());

impl Uverbs {
    /// Opens (or creates, per `oflags`) the XRC domain tied to the inode of `fd`
    /// (-1 for none); returns its handle.
    pub(crate) fn open_xrcd(
        &self,
        fd: i32,
        oflags: u32,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<u32> {
        let req = OpenXrcd {
            fd: fd as u32,
            oflags,
            ..Default::default()
        };
        Ok(self
            .write::<OpenXrcdCmd>(&req, drv_in, drv_out)?
            .xrcd_handle)
    }

    pub(crate) fn close_xrcd(&self, xrcd_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_XRCD,
            UVERBS_METHOD_XRCD_DESTROY,
            UVERBS_ATTR_DESTROY_XRCD_HANDLE,
        );
        self.destroy(Verb::CloseXrcd, "XRCD_DESTROY", ioctl, xrcd_handle, || {
            self.write::<CloseXrcdCmd>(&CloseXrcd { xrcd_handle }, &[], &mut [])
        })
    }
}
