/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/sa.h> for libibverbs-rs.
 *
 * Subnet administration records in host-friendly form (used by librdmacm
 * and ibacm), plus struct ibv_path_record, the packed big-endian 64-byte
 * PathRecord as it travels in SA MADs.  Gaps where the SA record has
 * reserved bits are simply not represented in the host-form structs.
 */
#ifndef INFINIBAND_SA_H
#define INFINIBAND_SA_H

#include <infiniband/verbs.h>
#include <linux/types.h>

struct ibv_sa_path_rec {
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	int raw_traffic;
	__be32 flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	int reversible;
	uint8_t numb_path;
	__be16 pkey;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
};

struct ibv_sa_mcmember_rec {
	union ibv_gid mgid;
	union ibv_gid port_gid;
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t traffic_class;
	uint16_t pkey;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t sl;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t scope;
	uint8_t join_state;
	int proxy_join;
};

struct ibv_sa_service_rec {
	uint64_t id;
	union ibv_gid gid;
	uint16_t pkey;
	/* 16 reserved bits of the wire record fall in the padding here */
	uint32_t lease;
	uint8_t key[16];
	uint8_t name[64];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

/* Top bit of ibv_path_record.reversible_numpath. */
#define IBV_PATH_RECORD_REVERSIBLE 0x80

/* Sub-byte fields are packed as noted, most significant bits first. */
struct ibv_path_record {
	__be64 service_id;
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	__be32 flowlabel_hoplimit; /* reserved:4 flow label:20 hop limit:8 */
	uint8_t tclass;
	uint8_t reversible_numpath; /* reversible:1 numb path:7 */
	__be16 pkey;
	__be16 qosclass_sl;         /* qos class:12 sl:4 */
	uint8_t mtu;                /* selector:2 mtu:6 */
	uint8_t rate;               /* selector:2 rate:6 */
	uint8_t packetlifetime;     /* selector:2 lifetime:6 */
	uint8_t preference;
	uint8_t reserved[6];
};

/* ibv_path_data.flags */
#define IBV_PATH_FLAG_GMP             (1<<0)
#define IBV_PATH_FLAG_PRIMARY         (1<<1)
#define IBV_PATH_FLAG_ALTERNATE       (1<<2)
#define IBV_PATH_FLAG_OUTBOUND        (1<<3)
#define IBV_PATH_FLAG_INBOUND         (1<<4)
#define IBV_PATH_FLAG_INBOUND_REVERSE (1<<5)
#define IBV_PATH_FLAG_BIDIRECTIONAL                                            \
	(IBV_PATH_FLAG_OUTBOUND | IBV_PATH_FLAG_INBOUND_REVERSE)

struct ibv_path_data {
	uint32_t flags;
	uint32_t reserved;
	struct ibv_path_record path;
};

#endif /* INFINIBAND_SA_H */
