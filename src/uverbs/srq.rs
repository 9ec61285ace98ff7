//! Shared receive queues.

use super::channel::{Uverbs, Verb};
use super::fallback::Fallback;
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
    pub(crate) fn create_srq(
        &self,
        req: &CreateSrq,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateSrqResp> {
        self.write::<CreateSrqCmd>(req, drv_in, drv_out)
    }

    /// Creates an SRQ of any type (XRC, tag matching).
    pub(crate) fn create_xsrq(
        &self,
        req: &CreateXsrq,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateSrqResp> {
        self.write::<CreateXsrqCmd>(req, drv_in, drv_out)
    }

    /// Creates an SRQ of any type as rdma-core 44's ibv_cmd_create_srq_ex
    /// does: the SRQ_CREATE ioctl method (the kernel judges the type and the
    /// handles), and on a kernel without it CREATE_SRQ for a basic SRQ,
    /// CREATE_XSRQ otherwise. `async_fd` is the context's event fd. The
    /// answer's `srqn` is the XRC SRQ number (0 for other types).
    pub(crate) fn create_srq_ex(
        &self,
        req: &CreateXsrq,
        async_fd: Option<std::os::fd::RawFd>,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateSrqResp> {
        const XRC: u32 = 1;
        const TM: u32 = 2;
        let (mut max_wr, mut max_sge, mut srqn) = ([0u8; 4], [0u8; 4], [0u8; 4]);
        let user_handle = req.user_handle.to_ne_bytes();
        let mut c = IoctlCmd::new("SRQ_CREATE", UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE);
        match req.srq_type {
            XRC => {
                c.idr_in(UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, req.xrcd_handle);
                c.idr_in(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, req.cq_handle);
                c.ptr_out(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, &mut srqn);
            }
            TM => {
                c.idr_in(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, req.cq_handle);
                c.u32_in(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, req.max_num_tags);
            }
            _ => {}
        }
        let handle = c.idr_out(UVERBS_ATTR_CREATE_SRQ_HANDLE);
        c.const_in(UVERBS_ATTR_CREATE_SRQ_TYPE, req.srq_type.into());
        c.ptr_in(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, &user_handle);
        c.idr_in(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, req.pd_handle);
        c.u32_in(UVERBS_ATTR_CREATE_SRQ_MAX_WR, req.max_wr);
        c.u32_in(UVERBS_ATTR_CREATE_SRQ_MAX_SGE, req.max_sge);
        c.u32_in(UVERBS_ATTR_CREATE_SRQ_LIMIT, req.srq_limit);
        c.fd_in(UVERBS_ATTR_CREATE_SRQ_EVENT_FD, async_fd);
        c.ptr_out(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, &mut max_wr);
        c.ptr_out(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, &mut max_sge);
        c.uhw(drv_in, drv_out);
        let how = self.ioctl_fallback(Verb::CreateSrq, &mut c);
        let srq_handle = c.read_idr(handle);
        match how? {
            Fallback::Done => Ok(CreateSrqResp {
                srq_handle,
                max_wr: u32::from_ne_bytes(max_wr),
                max_sge: u32::from_ne_bytes(max_sge),
                srqn: u32::from_ne_bytes(srqn),
            }),
            _ if req.srq_type == 0 => {
                let basic = CreateSrq {
                    user_handle: req.user_handle,
                    pd_handle: req.pd_handle,
                    max_wr: req.max_wr,
                    max_sge: req.max_sge,
                    srq_limit: req.srq_limit,
                    ..Default::default()
                };
                self.write::<CreateSrqCmd>(&basic, drv_in, drv_out)
            }
            _ => self.write::<CreateXsrqCmd>(req, drv_in, drv_out),
        }
    }

    /// rxe passes `rxe::ModifySrqCmd` as `drv_in` when resizing.
    pub(crate) fn modify_srq(&self, req: &ModifySrq, drv_in: &[u8]) -> Result<()> {
        self.write::<ModifySrqCmd>(req, drv_in, &mut [])
    }

    pub(crate) fn query_srq(
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
    pub(crate) fn destroy_srq(&self, srq_handle: u32) -> Result<u32> {
        super::disassoc::destroy_result(self.destroy_srq_cmd(srq_handle))
    }

    fn destroy_srq_cmd(&self, srq_handle: u32) -> Result<u32> {
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
