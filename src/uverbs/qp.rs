//! Queue pairs, and the address vectors and attributes they carry.

use super::channel::{Uverbs, Verb};
use super::fallback::Fallback;
use super::ids::*;
use super::ioctl::IoctlCmd;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_global_route`
    pub struct GlobalRoute = 24 {
        pub dgid: [u8; 16],
        pub flow_label: u32,
        pub sgid_index: u8,
        pub hop_limit: u8,
        pub traffic_class: u8,
        pub reserved: u8,
    }
}

kstruct! {
    /// `struct ib_uverbs_ah_attr`
    pub struct AhAttr = 32 {
        pub grh: GlobalRoute,
        pub dlid: u16,
        pub sl: u8,
        pub src_path_bits: u8,
        pub static_rate: u8,
        pub is_global: u8,
        pub port_num: u8,
        pub reserved: u8,
    }
}

kstruct! {
    /// `struct ib_uverbs_qp_attr`
    pub struct QpAttr = 144 {
        pub qp_attr_mask: u32,
        pub qp_state: u32,
        pub cur_qp_state: u32,
        pub path_mtu: u32,
        pub path_mig_state: u32,
        pub qkey: u32,
        pub rq_psn: u32,
        pub sq_psn: u32,
        pub dest_qp_num: u32,
        pub qp_access_flags: u32,
        pub ah_attr: AhAttr,
        pub alt_ah_attr: AhAttr,
        pub max_send_wr: u32,
        pub max_recv_wr: u32,
        pub max_send_sge: u32,
        pub max_recv_sge: u32,
        pub max_inline_data: u32,
        pub pkey_index: u16,
        pub alt_pkey_index: u16,
        pub en_sqd_async_notify: u8,
        pub sq_draining: u8,
        pub max_rd_atomic: u8,
        pub max_dest_rd_atomic: u8,
        pub min_rnr_timer: u8,
        pub port_num: u8,
        pub timeout: u8,
        pub retry_cnt: u8,
        pub rnr_retry: u8,
        pub alt_port_num: u8,
        pub alt_timeout: u8,
        pub reserved: [u8; 5],
    }
}

kstruct! {
    /// `struct ib_uverbs_create_qp`; followed by `driver_data[]`
    pub struct CreateQp = 56 {
        pub response: u64,
        pub user_handle: u64,
        pub pd_handle: u32,
        pub send_cq_handle: u32,
        pub recv_cq_handle: u32,
        pub srq_handle: u32,
        pub max_send_wr: u32,
        pub max_recv_wr: u32,
        pub max_send_sge: u32,
        pub max_recv_sge: u32,
        pub max_inline_data: u32,
        pub sq_sig_all: u8,
        pub qp_type: u8,
        pub is_srq: u8,
        pub reserved: u8,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_qp`
    pub struct ExCreateQp = 64 {
        pub user_handle: u64,
        pub pd_handle: u32,
        pub send_cq_handle: u32,
        pub recv_cq_handle: u32,
        pub srq_handle: u32,
        pub max_send_wr: u32,
        pub max_recv_wr: u32,
        pub max_send_sge: u32,
        pub max_recv_sge: u32,
        pub max_inline_data: u32,
        pub sq_sig_all: u8,
        pub qp_type: u8,
        pub is_srq: u8,
        pub reserved: u8,
        pub comp_mask: u32,
        pub create_flags: u32,
        pub rwq_ind_tbl_handle: u32,
        pub source_qpn: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_open_qp`; followed by `driver_data[]`
    pub struct OpenQp = 32 {
        pub response: u64,
        pub user_handle: u64,
        pub pd_handle: u32,
        pub qpn: u32,
        pub qp_type: u8,
        pub reserved: [u8; 7],
    }
}

kstruct! {
    /// `struct ib_uverbs_create_qp_resp`
    pub struct CreateQpResp = 32 {
        pub qp_handle: u32,
        pub qpn: u32,
        pub max_send_wr: u32,
        pub max_recv_wr: u32,
        pub max_send_sge: u32,
        pub max_recv_sge: u32,
        pub max_inline_data: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_qp_resp`
    pub struct ExCreateQpResp = 40 {
        pub base: CreateQpResp,
        pub comp_mask: u32,
        pub response_length: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_qp_dest`
    pub struct QpDest = 32 {
        pub dgid: [u8; 16],
        pub flow_label: u32,
        pub dlid: u16,
        pub reserved: u16,
        pub sgid_index: u8,
        pub hop_limit: u8,
        pub traffic_class: u8,
        pub sl: u8,
        pub src_path_bits: u8,
        pub static_rate: u8,
        pub is_global: u8,
        pub port_num: u8,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_qp`; followed by `driver_data[]`
    pub struct QueryQp = 16 {
        pub response: u64,
        pub qp_handle: u32,
        pub attr_mask: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_qp_resp`; followed by `driver_data[]`
    pub struct QueryQpResp = 128 {
        pub dest: QpDest,
        pub alt_dest: QpDest,
        pub max_send_wr: u32,
        pub max_recv_wr: u32,
        pub max_send_sge: u32,
        pub max_recv_sge: u32,
        pub max_inline_data: u32,
        pub qkey: u32,
        pub rq_psn: u32,
        pub sq_psn: u32,
        pub dest_qp_num: u32,
        pub qp_access_flags: u32,
        pub pkey_index: u16,
        pub alt_pkey_index: u16,
        pub qp_state: u8,
        pub cur_qp_state: u8,
        pub path_mtu: u8,
        pub path_mig_state: u8,
        pub sq_draining: u8,
        pub max_rd_atomic: u8,
        pub max_dest_rd_atomic: u8,
        pub min_rnr_timer: u8,
        pub port_num: u8,
        pub timeout: u8,
        pub retry_cnt: u8,
        pub rnr_retry: u8,
        pub alt_port_num: u8,
        pub alt_timeout: u8,
        pub sq_sig_all: u8,
        pub reserved: [u8; 5],
    }
}

kstruct! {
    /// `struct ib_uverbs_modify_qp`
    pub struct ModifyQp = 112 {
        pub dest: QpDest,
        pub alt_dest: QpDest,
        pub qp_handle: u32,
        pub attr_mask: u32,
        pub qkey: u32,
        pub rq_psn: u32,
        pub sq_psn: u32,
        pub dest_qp_num: u32,
        pub qp_access_flags: u32,
        pub pkey_index: u16,
        pub alt_pkey_index: u16,
        pub qp_state: u8,
        pub cur_qp_state: u8,
        pub path_mtu: u8,
        pub path_mig_state: u8,
        pub en_sqd_async_notify: u8,
        pub max_rd_atomic: u8,
        pub max_dest_rd_atomic: u8,
        pub min_rnr_timer: u8,
        pub port_num: u8,
        pub timeout: u8,
        pub retry_cnt: u8,
        pub rnr_retry: u8,
        pub alt_port_num: u8,
        pub alt_timeout: u8,
        pub reserved: [u8; 2],
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_modify_qp`
    pub struct ExModifyQp = 120 {
        pub base: ModifyQp,
        pub rate_limit: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_modify_qp_resp`
    pub struct ExModifyQpResp = 8 {
        pub comp_mask: u32,
        pub response_length: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_qp`
    pub struct DestroyQp = 16 {
        pub response: u64,
        pub qp_handle: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_qp_resp`
    pub struct DestroyQpResp = 4 {
        pub events_reported: u32,
    }
}

write_cmd!(CreateQpCmd = IB_USER_VERBS_CMD_CREATE_QP(CreateQp) -> CreateQpResp);
write_ex_cmd!(ExCreateQpCmd = IB_USER_VERBS_EX_CMD_CREATE_QP(ExCreateQp) -> ExCreateQpResp);
write_cmd!(OpenQpCmd = IB_USER_VERBS_CMD_OPEN_QP(OpenQp) -> CreateQpResp);
write_cmd!(QueryQpCmd = IB_USER_VERBS_CMD_QUERY_QP(QueryQp) -> QueryQpResp);
write_cmd!(ModifyQpCmd = IB_USER_VERBS_CMD_MODIFY_QP(ModifyQp) -> ());
write_ex_cmd!(ExModifyQpCmd = IB_USER_VERBS_EX_CMD_MODIFY_QP(ExModifyQp) -> ExModifyQpResp);
write_cmd!(DestroyQpCmd = IB_USER_VERBS_CMD_DESTROY_QP(DestroyQp) -> DestroyQpResp);

impl Uverbs {
    /// Creates a QP with the legacy command. rxe answers `drv_out` with
    /// `rxe::CreateQpResp` (the queues to mmap).
    #[inline]
    pub(crate) fn create_qp(
        &self,
        req: &CreateQp,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateQpResp> {
        self.write::<CreateQpCmd>(req, drv_in, drv_out)
    }

    /// Creates a QP with the extended command (QP types, create flags, RSS).
    pub(crate) fn create_qp_ex(
        &self,
        req: &ExCreateQp,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<ExCreateQpResp> {
        self.write_ex::<ExCreateQpCmd>(req, drv_in, drv_out)
    }

    /// Opens a shareable XRC target QP by number.
    pub(crate) fn open_qp(
        &self,
        req: &OpenQp,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CreateQpResp> {
        self.write::<OpenQpCmd>(req, drv_in, drv_out)
    }

    pub(crate) fn query_qp(
        &self,
        qp_handle: u32,
        attr_mask: u32,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<QueryQpResp> {
        let req = QueryQp {
            qp_handle,
            attr_mask,
            ..Default::default()
        };
        self.write::<QueryQpCmd>(&req, drv_in, drv_out)
    }

    #[inline]
    pub(crate) fn modify_qp(&self, req: &ModifyQp, drv_in: &[u8]) -> Result<()> {
        self.write::<ModifyQpCmd>(req, drv_in, &mut [])
    }

    /// The extended modify (rate limit, and masks beyond the legacy ones).
    pub(crate) fn modify_qp_ex(
        &self,
        req: &ExModifyQp,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<ExModifyQpResp> {
        self.write_ex::<ExModifyQpCmd>(req, drv_in, drv_out)
    }

    /// Destroys a QP; returns how many async events the kernel reported for it.
    pub(crate) fn destroy_qp(&self, qp_handle: u32) -> Result<u32> {
        super::disassoc::destroy_result(self.destroy_qp_cmd(qp_handle))
    }

    fn destroy_qp_cmd(&self, qp_handle: u32) -> Result<u32> {
        let mut resp = DestroyQpResp::default();
        let mut c = IoctlCmd::new("QP_DESTROY", UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY);
        c.idr_in(UVERBS_ATTR_DESTROY_QP_HANDLE, qp_handle);
        c.ptr_out_pod(UVERBS_ATTR_DESTROY_QP_RESP, &mut resp);
        match self.ioctl_fallback(Verb::DestroyQp, &mut c)? {
            Fallback::Done => Ok(resp.events_reported),
            _ => {
                let req = DestroyQp {
                    qp_handle,
                    ..Default::default()
                };
                Ok(self
                    .write::<DestroyQpCmd>(&req, &[], &mut [])?
                    .events_reported)
            }
        }
    }
}
