//! Work queues (RSS receive queues) and their indirection tables: the
//! commands rdma-core 44's ibv_cmd_create_wq / modify_wq / destroy_wq and
//! ibv_cmd_create_rwq_ind_table send (WQ_CREATE / WQ_DESTROY ioctl methods
//! with the extended write() fallbacks; MODIFY_WQ and CREATE_RWQ_IND_TBL are
//! extended write() commands only).

use super::channel::{Uverbs, Verb};
use super::fallback::Fallback;
use super::ids::*;
use super::ioctl::IoctlCmd;
use super::pod::Pod;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_ex_create_wq`
    pub struct CreateWq = 40 {
        pub comp_mask: u32,
        pub wq_type: u32,
        pub user_handle: u64,
        pub pd_handle: u32,
        pub cq_handle: u32,
        pub max_wr: u32,
        pub max_sge: u32,
        pub create_flags: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_wq_resp`
    pub struct CreateWqResp = 24 {
        pub comp_mask: u32,
        pub response_length: u32,
        pub wq_handle: u32,
        pub max_wr: u32,
        pub max_sge: u32,
        pub wqn: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_modify_wq`
    pub struct ModifyWq = 24 {
        pub attr_mask: u32,
        pub wq_handle: u32,
        pub wq_state: u32,
        pub curr_wq_state: u32,
        pub flags: u32,
        pub flags_mask: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_destroy_wq`
    pub struct DestroyWq = 8 {
        pub comp_mask: u32,
        pub wq_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_destroy_wq_resp`
    pub struct DestroyWqResp = 16 {
        pub comp_mask: u32,
        pub response_length: u32,
        pub events_reported: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_rwq_ind_table`; followed by `wq_handles[]`
    pub struct CreateRwqIndTable = 8 {
        pub comp_mask: u32,
        pub log_ind_tbl_size: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_rwq_ind_table_resp`
    pub struct CreateRwqIndTableResp = 16 {
        pub comp_mask: u32,
        pub response_length: u32,
        pub ind_tbl_handle: u32,
        pub ind_tbl_num: u32,
    }
}

write_ex_cmd!(CreateWqCmd = IB_USER_VERBS_EX_CMD_CREATE_WQ(CreateWq) -> CreateWqResp);
write_ex_cmd!(ModifyWqCmd = IB_USER_VERBS_EX_CMD_MODIFY_WQ(ModifyWq) -> ());
write_ex_cmd!(DestroyWqCmd = IB_USER_VERBS_EX_CMD_DESTROY_WQ(DestroyWq) -> DestroyWqResp);
write_ex_cmd!(
    CreateRwqIndTableCmd =
        IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL(CreateRwqIndTable) -> CreateRwqIndTableResp
);

impl Uverbs {
    /// Creates a WQ: the WQ_CREATE method (with `ioctl_flags`), or the
    /// extended CREATE_WQ command (with `req.create_flags`) on a kernel without
    /// it. `async_fd` is the context's event fd. The answer's
    /// `response_length` is not the kernel's after an ioctl.
    pub(crate) fn create_wq(
        &self,
        req: &CreateWq,
        ioctl_flags: u32,
        async_fd: Option<std::os::fd::RawFd>,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateWqResp> {
        let (mut max_wr, mut max_sge, mut wqn) = ([0u8; 4], [0u8; 4], [0u8; 4]);
        let user_handle = req.user_handle.to_ne_bytes();
        let mut c = IoctlCmd::new("WQ_CREATE", UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE);
        let handle = c.idr_out(UVERBS_ATTR_CREATE_WQ_HANDLE);
        c.ptr_in(UVERBS_ATTR_CREATE_WQ_USER_HANDLE, &user_handle);
        c.idr_in(UVERBS_ATTR_CREATE_WQ_PD_HANDLE, req.pd_handle);
        c.idr_in(UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, req.cq_handle);
        c.const_in(UVERBS_ATTR_CREATE_WQ_TYPE, req.wq_type.into());
        c.u32_in(UVERBS_ATTR_CREATE_WQ_MAX_WR, req.max_wr);
        c.u32_in(UVERBS_ATTR_CREATE_WQ_MAX_SGE, req.max_sge);
        c.fd_in(UVERBS_ATTR_CREATE_WQ_EVENT_FD, async_fd);
        c.u32_in(UVERBS_ATTR_CREATE_WQ_FLAGS, ioctl_flags);
        c.ptr_out(UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, &mut max_wr);
        c.ptr_out(UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, &mut max_sge);
        c.ptr_out(UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, &mut wqn);
        c.uhw(drv_in, drv_out);
        c.fallback_require_ex();
        let how = self.ioctl_fallback(Verb::CreateWq, &mut c);
        let wq_handle = c.read_idr(handle);
        match how? {
            Fallback::Done => Ok(CreateWqResp {
                wq_handle,
                max_wr: u32::from_ne_bytes(max_wr),
                max_sge: u32::from_ne_bytes(max_sge),
                wqn: u32::from_ne_bytes(wqn),
                ..Default::default()
            }),
            _ => self.write_ex::<CreateWqCmd>(req, drv_in, drv_out),
        }
    }

    pub(crate) fn modify_wq(&self, req: &ModifyWq, drv_in: &[u8]) -> Result<()> {
        self.write_ex::<ModifyWqCmd>(req, drv_in, &mut [])
    }

    /// Destroys a WQ; returns how many async events the kernel reported for it.
    pub(crate) fn destroy_wq(&self, wq_handle: u32) -> Result<u32> {
        let mut events = [0u8; 4];
        let mut c = IoctlCmd::new("WQ_DESTROY", UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY);
        c.ptr_out(UVERBS_ATTR_DESTROY_WQ_RESP, &mut events);
        c.idr_in(UVERBS_ATTR_DESTROY_WQ_HANDLE, wq_handle);
        match self.ioctl_fallback(Verb::DestroyWq, &mut c)? {
            Fallback::Done => Ok(u32::from_ne_bytes(events)),
            _ => {
                let req = DestroyWq {
                    wq_handle,
                    ..Default::default()
                };
                Ok(self
                    .write_ex::<DestroyWqCmd>(&req, &[], &mut [])?
                    .events_reported)
            }
        }
    }

    /// Creates an RSS indirection table of `2^log_ind_tbl_size` WQs; `handles`
    /// is the table's WQ handles, zero-padded to a multiple of 8 bytes (part
    /// of the core request, which the kernel reads them from).
    pub(crate) fn create_rwq_ind_table(
        &self,
        log_ind_tbl_size: u32,
        handles: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateRwqIndTableResp> {
        let req = CreateRwqIndTable {
            comp_mask: 0,
            log_ind_tbl_size,
        };
        let core = [req.as_bytes(), handles].concat();
        self.write_ex_core::<CreateRwqIndTableCmd>(&core, &[], drv_out)
    }
}
