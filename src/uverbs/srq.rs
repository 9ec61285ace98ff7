//! Shared receive queues.

use super::Uverbs;
use super::fallback::{Fallback, Verb};
use super::ids::*;
use super::ioctl::IoctlCmd;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_create_srq`; followed by `driver_data[]`
    pub struct CreateSrq = 32 {
        pub response: u64,
        pub user_handle: u64,
        pub pd_handle: u32,
        pub max_wr: u32,
        pub max_sge: u32,
        pub srq_limit: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_xsrq`; followed by `driver_data[]`
    pub struct CreateXsrq = 48 {
        pub response: u64,
        pub user_handle: u64,
        pub srq_type: u32,
        pub pd_handle: u32,
        pub max_wr: u32,
        pub max_sge: u32,
        pub srq_limit: u32,
        pub max_num_tags: u32,
        pub xrcd_handle: u32,
        pub cq_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_srq_resp`; followed by `driver_data[]`
    pub struct CreateSrqResp = 16 {
        pub srq_handle: u32,
        pub max_wr: u32,
        pub max_sge: u32,
        pub srqn: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_modify_srq`; followed by `driver_data[]`
    pub struct ModifySrq = 16 {
        pub srq_handle: u32,
        pub attr_mask: u32,
        pub max_wr: u32,
        pub srq_limit: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_srq`; followed by `driver_data[]`
    pub struct QuerySrq = 16 {
        pub response: u64,
        pub srq_handle: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_srq_resp`
    pub struct QuerySrqResp = 16 {
        pub max_wr: u32,
        pub max_sge: u32,
        pub srq_limit: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_srq`
    pub struct DestroySrq = 16 {
        pub response: u64,
        pub srq_handle: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_srq_resp`
    pub struct DestroySrqResp = 4 {
        pub events_reported: u32,
    }
}

write_cmd!(CreateSrqCmd = IB_USER_VERBS_CMD_CREATE_SRQ(CreateSrq) -> CreateSrqResp);
write_cmd!(CreateXsrqCmd = IB_USER_VERBS_CMD_CREATE_XSRQ(CreateXsrq) -> CreateSrqResp);
write_cmd!(ModifySrqCmd = IB_USER_VERBS_CMD_MODIFY_SRQ(ModifySrq) -> ());
write_cmd!(QuerySrqCmd = IB_USER_VERBS_CMD_QUERY_SRQ(QuerySrq) -> QuerySrqResp);
write_cmd!(DestroySrqCmd = IB_USER_VERBS_CMD_DESTROY_SRQ(DestroySrq) -> DestroySrqResp);

impl Uverbs {
    /// Creates a basic SRQ. rxe answers `drv_out` with `rxe::CreateSrqResp`.
    pub fn create_srq(
        &self,
        req: &CreateSrq,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateSrqResp> {
        self.write::<CreateSrqCmd>(req, drv_in, drv_out)
    }

    /// Creates an SRQ of any type (XRC, tag matching).
    pub fn create_xsrq(
        &self,
        req: &CreateXsrq,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateSrqResp> {
        self.write::<CreateXsrqCmd>(req, drv_in, drv_out)
    }

    /// rxe passes `rxe::ModifySrqCmd` as `drv_in` when resizing.
    pub fn modify_srq(&self, req: &ModifySrq, drv_in: &[u8]) -> Result<()> {
        self.write::<ModifySrqCmd>(req, drv_in, &mut [])
    }

    pub fn query_srq(
        &self,
        srq_handle: u32,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<QuerySrqResp> {
        let req = QuerySrq {
            srq_handle,
            ..Default::default()
        };
        self.write::<QuerySrqCmd>(&req, drv_in, drv_out)
    }

    /// Destroys an SRQ; returns how many async events the kernel reported for it.
    pub fn destroy_srq(&self, srq_handle: u32) -> Result<u32> {
        let mut resp = DestroySrqResp::default();
        let mut c = IoctlCmd::new("SRQ_DESTROY", UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY);
        c.idr_in(UVERBS_ATTR_DESTROY_SRQ_HANDLE, srq_handle);
        c.ptr_out_pod(UVERBS_ATTR_DESTROY_SRQ_RESP, &mut resp);
        match self.ioctl_fallback(Verb::DestroySrq, &mut c)? {
            Fallback::Done => Ok(resp.events_reported),
            _ => {
                let req = DestroySrq {
                    srq_handle,
                    ..Default::default()
                };
                Ok(self
                    .write::<DestroySrqCmd>(&req, &[], &mut [])?
                    .events_reported)
            }
        }
    }
}
