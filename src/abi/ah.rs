//! Address handles: `ibv_ah`, its attributes, GRH and static rates.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_global_route {
    pub dgid: ibv_gid,
    pub flow_label: u32,
    pub sgid_index: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
}
layout!(ibv_global_route, 24, 8;
    dgid: 0, flow_label: 16, sgid_index: 20, hop_limit: 21, traffic_class: 22,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_grh {
    pub version_tclass_flow: __be32,
    pub paylen: __be16,
    pub next_hdr: u8,
    pub hop_limit: u8,
    pub sgid: ibv_gid,
    pub dgid: ibv_gid,
}
layout!(ibv_grh, 40, 8;
    version_tclass_flow: 0, paylen: 4, next_hdr: 6, hop_limit: 7, sgid: 8, dgid: 24,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ah_attr {
    pub grh: ibv_global_route,
    pub dlid: u16,
    pub sl: u8,
    pub src_path_bits: u8,
    pub static_rate: u8,
    pub is_global: u8,
    pub port_num: u8,
}
layout!(ibv_ah_attr, 32, 8;
    grh: 0, dlid: 24, sl: 26, src_path_bits: 27, static_rate: 28, is_global: 29, port_num: 30,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ah {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub handle: u32,
}
layout!(ibv_ah, 24, 8; context: 0, pd: 8, handle: 16);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_rate_enum {
    IBV_RATE_MAX = 0,
    IBV_RATE_2_5_GBPS = 2,
    IBV_RATE_5_GBPS = 5,
    IBV_RATE_10_GBPS = 3,
    IBV_RATE_20_GBPS = 6,
    IBV_RATE_30_GBPS = 4,
    IBV_RATE_40_GBPS = 7,
    IBV_RATE_60_GBPS = 8,
    IBV_RATE_80_GBPS = 9,
    IBV_RATE_120_GBPS = 10,
    IBV_RATE_14_GBPS = 11,
    IBV_RATE_56_GBPS = 12,
    IBV_RATE_112_GBPS = 13,
    IBV_RATE_168_GBPS = 14,
    IBV_RATE_25_GBPS = 15,
    IBV_RATE_100_GBPS = 16,
    IBV_RATE_200_GBPS = 17,
    IBV_RATE_300_GBPS = 18,
    IBV_RATE_28_GBPS = 19,
    IBV_RATE_50_GBPS = 20,
    IBV_RATE_400_GBPS = 21,
    IBV_RATE_600_GBPS = 22,
    IBV_RATE_800_GBPS = 23,
    IBV_RATE_1200_GBPS = 24,
}
c_enum!(ibv_rate: u32 = ibv_rate_enum {
    IBV_RATE_MAX, IBV_RATE_2_5_GBPS, IBV_RATE_5_GBPS, IBV_RATE_10_GBPS, IBV_RATE_20_GBPS,
    IBV_RATE_30_GBPS, IBV_RATE_40_GBPS, IBV_RATE_60_GBPS, IBV_RATE_80_GBPS, IBV_RATE_120_GBPS,
    IBV_RATE_14_GBPS, IBV_RATE_56_GBPS, IBV_RATE_112_GBPS, IBV_RATE_168_GBPS, IBV_RATE_25_GBPS,
    IBV_RATE_100_GBPS, IBV_RATE_200_GBPS, IBV_RATE_300_GBPS, IBV_RATE_28_GBPS, IBV_RATE_50_GBPS,
    IBV_RATE_400_GBPS, IBV_RATE_600_GBPS, IBV_RATE_800_GBPS, IBV_RATE_1200_GBPS,
});

/// Length of an Ethernet link-layer address.
pub const ETHERNET_LL_SIZE: usize = 6;
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MIN: u16 = 0xC000;
pub const IB_ROCE_UDP_ENCAP_VALID_PORT_MAX: u16 = 0xFFFF;
pub const IB_GRH_FLOWLABEL_MASK: u32 = 0x000F_FFFF;
