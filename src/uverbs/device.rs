//! GET_CONTEXT, QUERY_DEVICE(_EX), QUERY_PORT and completion channels.

use std::os::fd::OwnedFd;

use super::channel::{Uverbs, Verb};
use super::fallback::Fallback;
use super::ids::*;
use super::ioctl::IoctlCmd;
use super::pod::Pod;
use super::sys;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_get_context`; followed by `driver_data[]`
    pub struct GetContext = 8 {
        pub response: u64,
    }
}

kstruct! {
    /// `struct ib_uverbs_get_context_resp`; followed by `driver_data[]`
    pub struct GetContextResp = 8 {
        pub async_fd: u32,
        pub num_comp_vectors: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_device`; followed by `driver_data[]`
    pub struct QueryDevice = 8 {
        pub response: u64,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_device_resp`
    pub struct QueryDeviceResp = 176 {
        pub fw_ver: u64,
        pub node_guid: u64,
        pub sys_image_guid: u64,
        pub max_mr_size: u64,
        pub page_size_cap: u64,
        pub vendor_id: u32,
        pub vendor_part_id: u32,
        pub hw_ver: u32,
        pub max_qp: u32,
        pub max_qp_wr: u32,
        pub device_cap_flags: u32,
        pub max_sge: u32,
        pub max_sge_rd: u32,
        pub max_cq: u32,
        pub max_cqe: u32,
        pub max_mr: u32,
        pub max_pd: u32,
        pub max_qp_rd_atom: u32,
        pub max_ee_rd_atom: u32,
        pub max_res_rd_atom: u32,
        pub max_qp_init_rd_atom: u32,
        pub max_ee_init_rd_atom: u32,
        pub atomic_cap: u32,
        pub max_ee: u32,
        pub max_rdd: u32,
        pub max_mw: u32,
        pub max_raw_ipv6_qp: u32,
        pub max_raw_ethy_qp: u32,
        pub max_mcast_grp: u32,
        pub max_mcast_qp_attach: u32,
        pub max_total_mcast_qp_attach: u32,
        pub max_ah: u32,
        pub max_fmr: u32,
        pub max_map_per_fmr: u32,
        pub max_srq: u32,
        pub max_srq_wr: u32,
        pub max_srq_sge: u32,
        pub max_pkeys: u16,
        pub local_ca_ack_delay: u8,
        pub phys_port_cnt: u8,
        pub reserved: [u8; 4],
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_query_device`
    pub struct ExQueryDevice = 8 {
        pub comp_mask: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_odp_caps`
    pub struct OdpCaps = 24 {
        pub general_caps: u64,
        pub rc_odp_caps: u32,
        pub uc_odp_caps: u32,
        pub ud_odp_caps: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_rss_caps`
    pub struct RssCaps = 16 {
        pub supported_qpts: u32,
        pub max_rwq_indirection_tables: u32,
        pub max_rwq_indirection_table_size: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_tm_caps`
    pub struct TmCaps = 24 {
        pub max_rndv_hdr_size: u32,
        pub max_num_tags: u32,
        pub flags: u32,
        pub max_ops: u32,
        pub max_sge: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_cq_moderation_caps`
    pub struct CqModerationCaps = 8 {
        pub max_cq_moderation_count: u16,
        pub max_cq_moderation_period: u16,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_query_device_resp`
    pub struct ExQueryDeviceResp = 304 {
        pub base: QueryDeviceResp,
        pub comp_mask: u32,
        pub response_length: u32,
        pub odp_caps: OdpCaps,
        pub timestamp_mask: u64,
        pub hca_core_clock: u64,
        pub device_cap_flags_ex: u64,
        pub rss_caps: RssCaps,
        pub max_wq_type_rq: u32,
        pub raw_packet_caps: u32,
        pub tm_caps: TmCaps,
        pub cq_moderation_caps: CqModerationCaps,
        pub max_dm_size: u64,
        pub xrc_odp_caps: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_port`; followed by `driver_data[]`
    pub struct QueryPort = 16 {
        pub response: u64,
        pub port_num: u8,
        pub reserved: [u8; 7],
    }
}

kstruct! {
    /// `struct ib_uverbs_query_port_resp`
    pub struct QueryPortResp = 40 {
        pub port_cap_flags: u32,
        pub max_msg_sz: u32,
        pub bad_pkey_cntr: u32,
        pub qkey_viol_cntr: u32,
        pub gid_tbl_len: u32,
        pub pkey_tbl_len: u16,
        pub lid: u16,
        pub sm_lid: u16,
        pub state: u8,
        pub max_mtu: u8,
        pub active_mtu: u8,
        pub lmc: u8,
        pub max_vl_num: u8,
        pub sm_sl: u8,
        pub subnet_timeout: u8,
        pub init_type_reply: u8,
        pub active_width: u8,
        pub active_speed: u8,
        pub phys_state: u8,
        pub link_layer: u8,
        pub flags: u8,
        pub reserved: u8,
    }
}

kstruct! {
    /// `struct ib_uverbs_async_event_desc`
    pub struct AsyncEventDesc = 16 {
        pub element: u64,
        pub event_type: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_comp_event_desc`
    pub struct CompEventDesc = 8 {
        pub cq_handle: u64,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_comp_channel`
    pub struct CreateCompChannel = 8 {
        pub response: u64,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_comp_channel_resp`
    pub struct CreateCompChannelResp = 4 {
        pub fd: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_query_port_resp_ex` (ioctl QUERY_PORT's answer)
    pub struct QueryPortRespEx = 48 {
        pub legacy_resp: QueryPortResp,
        pub port_cap_flags2: u16,
        pub reserved: [u8; 2],
        pub active_speed_ex: u32,
    }
}

write_cmd!(GetContextCmd = IB_USER_VERBS_CMD_GET_CONTEXT(GetContext) -> GetContextResp);
write_cmd!(QueryDeviceCmd = IB_USER_VERBS_CMD_QUERY_DEVICE(QueryDevice) -> QueryDeviceResp);
write_ex_cmd!(ExQueryDeviceCmd = IB_USER_VERBS_EX_CMD_QUERY_DEVICE(ExQueryDevice) -> ExQueryDeviceResp);
write_cmd!(QueryPortCmd = IB_USER_VERBS_CMD_QUERY_PORT(QueryPort) -> QueryPortResp);
write_cmd!(CreateCompChannelCmd = IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL(CreateCompChannel) -> CreateCompChannelResp);

/// What GET_CONTEXT gives a new context.
#[derive(Debug)]
pub(crate) struct ContextInfo {
    /// Where the kernel reports async events (`ibv_context::async_fd`).
    pub async_fd: OwnedFd,
    pub num_comp_vectors: u32,
}

impl Uverbs {
    /// Creates the kernel side of a context; must be the first command on the fd.
    pub(crate) fn get_context(&self, drv_in: &[u8], drv_out: &mut [u8]) -> Result<ContextInfo> {
        let r = self.write::<GetContextCmd>(&GetContext::default(), drv_in, drv_out)?;
        Ok(ContextInfo {
            async_fd: sys::own_new_fd(r.async_fd as i32)?,
            num_comp_vectors: r.num_comp_vectors,
        })
    }

    pub(crate) fn query_device(
        &self,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<QueryDeviceResp> {
        self.write::<QueryDeviceCmd>(&QueryDevice::default(), drv_in, drv_out)
    }

    /// The extended device query (EX_QUERY_DEVICE), into the caller's zeroed
    /// `resp`; older kernels fill less, the rest reads as zero
    /// (`response_length` says how much was filled).
    pub(crate) fn query_device_ex_into(
        &self,
        drv_in: &[u8],
        drv_out: &mut [u8],
        resp: &mut ExQueryDeviceResp,
    ) -> Result<()> {
        self.write_ex_into::<ExQueryDeviceCmd>(
            ExQueryDevice::default().as_bytes(),
            drv_in,
            drv_out,
            resp,
        )
    }

    /// Port attributes: the ioctl method (which adds `port_cap_flags2`), else write().
    pub(crate) fn query_port(&self, port_num: u8) -> Result<QueryPortRespEx> {
        let mut resp = QueryPortRespEx::default();
        let mut c = IoctlCmd::new("QUERY_PORT", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
        c.const_in(UVERBS_ATTR_QUERY_PORT_PORT_NUM, port_num.into());
        c.ptr_out_pod(UVERBS_ATTR_QUERY_PORT_RESP, &mut resp);
        match self.ioctl_fallback(Verb::QueryPort, &mut c)? {
            Fallback::Done => Ok(resp),
            _ => {
                let req = QueryPort {
                    port_num,
                    ..Default::default()
                };
                let legacy_resp = self.write::<QueryPortCmd>(&req, &[], &mut [])?;
                Ok(QueryPortRespEx {
                    legacy_resp,
                    ..Default::default()
                })
            }
        }
    }

    /// A new completion event channel fd.
    pub(crate) fn create_comp_channel(&self) -> Result<OwnedFd> {
        let r = self.write::<CreateCompChannelCmd>(&CreateCompChannel::default(), &[], &mut [])?;
        sys::own_new_fd(r.fd as i32)
    }
}
