//! Flow steering: rules, the spec union and flow actions.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_eth_filter {
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    pub ether_type: u16,
    pub vlan_tag: u16,
}
layout!(ibv_flow_eth_filter, 16, 2; dst_mac: 0, src_mac: 6, ether_type: 12, vlan_tag: 14);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_eth {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_eth_filter,
    pub mask: ibv_flow_eth_filter,
}
layout!(ibv_flow_spec_eth, 40, 4; r#type: 0, size: 4, val: 6, mask: 22);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_ipv4_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
}
layout!(ibv_flow_ipv4_filter, 8, 4; src_ip: 0, dst_ip: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_ipv4 {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_ipv4_filter,
    pub mask: ibv_flow_ipv4_filter,
}
layout!(ibv_flow_spec_ipv4, 24, 4; r#type: 0, size: 4, val: 8, mask: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_ipv4_ext_filter {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub proto: u8,
    pub tos: u8,
    pub ttl: u8,
    pub flags: u8,
}
layout!(ibv_flow_ipv4_ext_filter, 12, 4;
    src_ip: 0, dst_ip: 4, proto: 8, tos: 9, ttl: 10, flags: 11,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_ipv4_ext {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_ipv4_ext_filter,
    pub mask: ibv_flow_ipv4_ext_filter,
}
layout!(ibv_flow_spec_ipv4_ext, 32, 4; r#type: 0, size: 4, val: 8, mask: 20);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_ipv6_filter {
    pub src_ip: [u8; 16],
    pub dst_ip: [u8; 16],
    pub flow_label: u32,
    pub next_hdr: u8,
    pub traffic_class: u8,
    pub hop_limit: u8,
}
layout!(ibv_flow_ipv6_filter, 40, 4;
    src_ip: 0, dst_ip: 16, flow_label: 32, next_hdr: 36, traffic_class: 37, hop_limit: 38,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_ipv6 {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_ipv6_filter,
    pub mask: ibv_flow_ipv6_filter,
}
layout!(ibv_flow_spec_ipv6, 88, 4; r#type: 0, size: 4, val: 8, mask: 48);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_esp_filter {
    pub spi: u32,
    pub seq: u32,
}
layout!(ibv_flow_esp_filter, 8, 4; spi: 0, seq: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_esp {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_esp_filter,
    pub mask: ibv_flow_esp_filter,
}
layout!(ibv_flow_spec_esp, 24, 4; r#type: 0, size: 4, val: 8, mask: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_tcp_udp_filter {
    pub dst_port: u16,
    pub src_port: u16,
}
layout!(ibv_flow_tcp_udp_filter, 4, 2; dst_port: 0, src_port: 2);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_tcp_udp {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_tcp_udp_filter,
    pub mask: ibv_flow_tcp_udp_filter,
}
layout!(ibv_flow_spec_tcp_udp, 16, 4; r#type: 0, size: 4, val: 6, mask: 10);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_gre_filter {
    pub c_ks_res0_ver: u16,
    pub protocol: u16,
    pub key: u32,
}
layout!(ibv_flow_gre_filter, 8, 4; c_ks_res0_ver: 0, protocol: 2, key: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_gre {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_gre_filter,
    pub mask: ibv_flow_gre_filter,
}
layout!(ibv_flow_spec_gre, 24, 4; r#type: 0, size: 4, val: 8, mask: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_mpls_filter {
    pub label: u32,
}
layout!(ibv_flow_mpls_filter, 4, 4; label: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_mpls {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_mpls_filter,
    pub mask: ibv_flow_mpls_filter,
}
layout!(ibv_flow_spec_mpls, 16, 4; r#type: 0, size: 4, val: 8, mask: 12);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_tunnel_filter {
    pub tunnel_id: u32,
}
layout!(ibv_flow_tunnel_filter, 4, 4; tunnel_id: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_tunnel {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub val: ibv_flow_tunnel_filter,
    pub mask: ibv_flow_tunnel_filter,
}
layout!(ibv_flow_spec_tunnel, 16, 4; r#type: 0, size: 4, val: 8, mask: 12);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_action_tag {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub tag_id: u32,
}
layout!(ibv_flow_spec_action_tag, 12, 4; r#type: 0, size: 4, tag_id: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_action_drop {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
}
layout!(ibv_flow_spec_action_drop, 8, 4; r#type: 0, size: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_action_handle {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub action: *const ibv_flow_action,
}
layout!(ibv_flow_spec_action_handle, 16, 8; r#type: 0, size: 4, action: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_counter_action {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
    pub counters: *mut ibv_counters,
}
layout!(ibv_flow_spec_counter_action, 16, 8; r#type: 0, size: 4, counters: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec_hdr {
    pub r#type: ibv_flow_spec_type,
    pub size: u16,
}
layout!(ibv_flow_spec_hdr, 8, 4; r#type: 0, size: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_flow_spec_anon {
    pub hdr: ibv_flow_spec_hdr,
    pub eth: ibv_flow_spec_eth,
    pub ipv4: ibv_flow_spec_ipv4,
    pub tcp_udp: ibv_flow_spec_tcp_udp,
    pub ipv4_ext: ibv_flow_spec_ipv4_ext,
    pub ipv6: ibv_flow_spec_ipv6,
    pub esp: ibv_flow_spec_esp,
    pub tunnel: ibv_flow_spec_tunnel,
    pub gre: ibv_flow_spec_gre,
    pub mpls: ibv_flow_spec_mpls,
    pub flow_tag: ibv_flow_spec_action_tag,
    pub drop: ibv_flow_spec_action_drop,
    pub handle: ibv_flow_spec_action_handle,
    pub flow_count: ibv_flow_spec_counter_action,
}
layout!(ibv_flow_spec_anon, 88, 8;
    hdr: 0, eth: 0, ipv4: 0, tcp_udp: 0, ipv4_ext: 0, ipv6: 0, esp: 0, tunnel: 0, gre: 0, mpls: 0,
    flow_tag: 0, drop: 0, handle: 0, flow_count: 0,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_spec {
    /// In C an anonymous union: its members are members of `ibv_flow_spec`.
    pub anon: ibv_flow_spec_anon,
}
layout!(ibv_flow_spec, 88, 8; anon: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_attr {
    pub comp_mask: u32,
    pub r#type: ibv_flow_attr_type,
    pub size: u16,
    pub priority: u16,
    pub num_of_specs: u8,
    pub port: u8,
    pub flags: u32,
}
layout!(ibv_flow_attr, 20, 4;
    comp_mask: 0, r#type: 4, size: 8, priority: 10, num_of_specs: 12, port: 13, flags: 16,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow {
    pub comp_mask: u32,
    pub context: *mut ibv_context,
    pub handle: u32,
}
layout!(ibv_flow, 24, 8; comp_mask: 0, context: 8, handle: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action {
    pub context: *mut ibv_context,
}
layout!(ibv_flow_action, 8, 8; context: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_flow_action_esp_attr {
    pub esp_attr: *mut ib_uverbs_flow_action_esp,
    pub keymat_proto: ib_uverbs_flow_action_esp_keymat,
    pub keymat_len: u16,
    pub keymat_ptr: *mut c_void,
    pub replay_proto: ib_uverbs_flow_action_esp_replay,
    pub replay_len: u16,
    pub replay_ptr: *mut c_void,
    pub esp_encap: *mut ib_uverbs_flow_action_esp_encap,
    pub comp_mask: u32,
    pub esn: u32,
}
layout!(ibv_flow_action_esp_attr, 56, 8;
    esp_attr: 0, keymat_proto: 8, keymat_len: 12, keymat_ptr: 16, replay_proto: 24, replay_len: 28,
    replay_ptr: 32, esp_encap: 40, comp_mask: 48, esn: 52,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_flow_flags_enum {
    IBV_FLOW_ATTR_FLAGS_DONT_TRAP = 2,
    IBV_FLOW_ATTR_FLAGS_EGRESS = 4,
}
c_enum!(ibv_flow_flags: u32 = ibv_flow_flags_enum {
    IBV_FLOW_ATTR_FLAGS_DONT_TRAP, IBV_FLOW_ATTR_FLAGS_EGRESS,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_flow_attr_type_enum {
    IBV_FLOW_ATTR_NORMAL = 0,
    IBV_FLOW_ATTR_ALL_DEFAULT = 1,
    IBV_FLOW_ATTR_MC_DEFAULT = 2,
    IBV_FLOW_ATTR_SNIFFER = 3,
}
c_enum!(ibv_flow_attr_type: u32 = ibv_flow_attr_type_enum {
    IBV_FLOW_ATTR_NORMAL, IBV_FLOW_ATTR_ALL_DEFAULT, IBV_FLOW_ATTR_MC_DEFAULT,
    IBV_FLOW_ATTR_SNIFFER,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_flow_spec_type_enum {
    IBV_FLOW_SPEC_ETH = 32,
    IBV_FLOW_SPEC_IPV4 = 48,
    IBV_FLOW_SPEC_IPV6 = 49,
    IBV_FLOW_SPEC_IPV4_EXT = 50,
    IBV_FLOW_SPEC_ESP = 52,
    IBV_FLOW_SPEC_TCP = 64,
    IBV_FLOW_SPEC_UDP = 65,
    IBV_FLOW_SPEC_VXLAN_TUNNEL = 80,
    IBV_FLOW_SPEC_GRE = 81,
    IBV_FLOW_SPEC_MPLS = 96,
    IBV_FLOW_SPEC_INNER = 256,
    IBV_FLOW_SPEC_ACTION_TAG = 4096,
    IBV_FLOW_SPEC_ACTION_DROP = 4097,
    IBV_FLOW_SPEC_ACTION_HANDLE = 4098,
    IBV_FLOW_SPEC_ACTION_COUNT = 4099,
}
c_enum!(ibv_flow_spec_type: u32 = ibv_flow_spec_type_enum {
    IBV_FLOW_SPEC_ETH, IBV_FLOW_SPEC_IPV4, IBV_FLOW_SPEC_IPV6, IBV_FLOW_SPEC_IPV4_EXT,
    IBV_FLOW_SPEC_ESP, IBV_FLOW_SPEC_TCP, IBV_FLOW_SPEC_UDP, IBV_FLOW_SPEC_VXLAN_TUNNEL,
    IBV_FLOW_SPEC_GRE, IBV_FLOW_SPEC_MPLS, IBV_FLOW_SPEC_INNER, IBV_FLOW_SPEC_ACTION_TAG,
    IBV_FLOW_SPEC_ACTION_DROP, IBV_FLOW_SPEC_ACTION_HANDLE, IBV_FLOW_SPEC_ACTION_COUNT,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_flow_action_esp_mask_enum {
    IBV_FLOW_ACTION_ESP_MASK_ESN = 1,
}
c_enum!(ibv_flow_action_esp_mask: u32 = ibv_flow_action_esp_mask_enum {
    IBV_FLOW_ACTION_ESP_MASK_ESN,
});
