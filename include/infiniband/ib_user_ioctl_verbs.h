/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/ib_user_ioctl_verbs.h> for libibverbs-rs.
 *
 * The uverbs ioctl types shared by the kernel and user space.  Debian's
 * linux-libc-dev ships <rdma/ib_user_ioctl_verbs.h> too, but the bookworm
 * copy lacks RDMA_DRIVER_MANA, which rdma-core 44 has; so the full set is
 * spelled out here.  The include guard is the one the uapi header uses, so
 * a program may include either header (or both) and gets one definition.
 *
 * Values are written as plain hex; every enumerator, struct member, size
 * and alignment matches rdma-core 44.
 */
#ifndef IB_USER_IOCTL_VERBS_H
#define IB_USER_IOCTL_VERBS_H

#include <linux/types.h>
#include <rdma/ib_user_verbs.h>

/* Only a bare 64-bit slot unless verbs_api.h asked for a pointer union. */
#ifndef RDMA_UAPI_PTR
#define RDMA_UAPI_PTR(_type, _name) __aligned_u64 _name
#endif

/* Access bits 20..29 are "optional": a kernel may ignore them. */
#define IB_UVERBS_ACCESS_OPTIONAL_FIRST (1 << 20)
#define IB_UVERBS_ACCESS_OPTIONAL_LAST (1 << 29)

enum ib_uverbs_core_support {
	IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS = 0x1,
	IB_UVERBS_CORE_SUPPORT_ROBUST_UDATA = 0x2, /* rdma-core 64 */
};

enum ib_uverbs_access_flags {
	IB_UVERBS_ACCESS_LOCAL_WRITE      = 0x01,
	IB_UVERBS_ACCESS_REMOTE_WRITE     = 0x02,
	IB_UVERBS_ACCESS_REMOTE_READ      = 0x04,
	IB_UVERBS_ACCESS_REMOTE_ATOMIC    = 0x08,
	IB_UVERBS_ACCESS_MW_BIND          = 0x10,
	IB_UVERBS_ACCESS_ZERO_BASED       = 0x20,
	IB_UVERBS_ACCESS_ON_DEMAND        = 0x40,
	IB_UVERBS_ACCESS_HUGETLB          = 0x80,
	IB_UVERBS_ACCESS_FLUSH_GLOBAL     = 0x100, /* rdma-core 64 */
	IB_UVERBS_ACCESS_FLUSH_PERSISTENT = 0x200, /* rdma-core 64 */
	IB_UVERBS_ACCESS_RELAXED_ORDERING = 0x00100000, /* first optional bit */
	IB_UVERBS_ACCESS_OPTIONAL_RANGE   = 0x3ff00000, /* bits 20..29 */
};

enum ib_uverbs_srq_type {
	IB_UVERBS_SRQT_BASIC = 0,
	IB_UVERBS_SRQT_XRC   = 1,
	IB_UVERBS_SRQT_TM    = 2,
};

enum ib_uverbs_wq_type {
	IB_UVERBS_WQT_RQ = 0,
};

enum ib_uverbs_wq_flags {
	IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING       = 0x1,
	IB_UVERBS_WQ_FLAGS_SCATTER_FCS           = 0x2,
	IB_UVERBS_WQ_FLAGS_DELAY_DROP            = 0x4,
	IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING = 0x8,
};

enum ib_uverbs_qp_type {
	IB_UVERBS_QPT_RC         = 2,
	IB_UVERBS_QPT_UC         = 3,
	IB_UVERBS_QPT_UD         = 4,
	IB_UVERBS_QPT_RAW_PACKET = 8,
	IB_UVERBS_QPT_XRC_INI    = 9,
	IB_UVERBS_QPT_XRC_TGT    = 10,
	IB_UVERBS_QPT_DRIVER     = 0xff,
};

enum ib_uverbs_qp_create_flags {
	IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK = 0x0002,
	IB_UVERBS_QP_CREATE_SCATTER_FCS              = 0x0100,
	IB_UVERBS_QP_CREATE_CVLAN_STRIPPING          = 0x0200,
	IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING    = 0x0800,
	IB_UVERBS_QP_CREATE_SQ_SIG_ALL               = 0x1000,
};

/* PortInfo:CapabilityMask bits.  Bit 31 is written as an unsigned long long
 * constant, which (as in rdma-core) makes the enum's type unsigned. */
enum ib_uverbs_query_port_cap_flags {
	IB_UVERBS_PCF_SM                              = 0x00000002,
	IB_UVERBS_PCF_NOTICE_SUP                      = 0x00000004,
	IB_UVERBS_PCF_TRAP_SUP                        = 0x00000008,
	IB_UVERBS_PCF_OPT_IPD_SUP                     = 0x00000010,
	IB_UVERBS_PCF_AUTO_MIGR_SUP                   = 0x00000020,
	IB_UVERBS_PCF_SL_MAP_SUP                      = 0x00000040,
	IB_UVERBS_PCF_MKEY_NVRAM                      = 0x00000080,
	IB_UVERBS_PCF_PKEY_NVRAM                      = 0x00000100,
	IB_UVERBS_PCF_LED_INFO_SUP                    = 0x00000200,
	IB_UVERBS_PCF_SM_DISABLED                     = 0x00000400,
	IB_UVERBS_PCF_SYS_IMAGE_GUID_SUP              = 0x00000800,
	IB_UVERBS_PCF_PKEY_SW_EXT_PORT_TRAP_SUP       = 0x00001000,
	IB_UVERBS_PCF_EXTENDED_SPEEDS_SUP             = 0x00004000,
	IB_UVERBS_PCF_CM_SUP                          = 0x00010000,
	IB_UVERBS_PCF_SNMP_TUNNEL_SUP                 = 0x00020000,
	IB_UVERBS_PCF_REINIT_SUP                      = 0x00040000,
	IB_UVERBS_PCF_DEVICE_MGMT_SUP                 = 0x00080000,
	IB_UVERBS_PCF_VENDOR_CLASS_SUP                = 0x00100000,
	IB_UVERBS_PCF_DR_NOTICE_SUP                   = 0x00200000,
	IB_UVERBS_PCF_CAP_MASK_NOTICE_SUP             = 0x00400000,
	IB_UVERBS_PCF_BOOT_MGMT_SUP                   = 0x00800000,
	IB_UVERBS_PCF_LINK_LATENCY_SUP                = 0x01000000,
	IB_UVERBS_PCF_CLIENT_REG_SUP                  = 0x02000000,
	IB_UVERBS_PCF_LINK_SPEED_WIDTH_TABLE_SUP      = 0x08000000,
	IB_UVERBS_PCF_VENDOR_SPECIFIC_MADS_TABLE_SUP  = 0x10000000,
	IB_UVERBS_PCF_MCAST_PKEY_TRAP_SUPPRESSION_SUP = 0x20000000,
	IB_UVERBS_PCF_MCAST_FDB_TOP_SUP               = 0x40000000,
	IB_UVERBS_PCF_HIERARCHY_INFO_SUP              = 0x80000000ULL,
	/* Bit 26 is not reported by the SM: the kernel uses it to say the
	 * port's GIDs are IP based (RoCE). */
	IB_UVERBS_PCF_IP_BASED_GIDS                   = 0x04000000,
};

enum ib_uverbs_query_port_flags {
	IB_UVERBS_QPF_GRH_REQUIRED = 0x1,
};

enum ib_uverbs_flow_action_esp_keymat {
	IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM = 0,
};

enum ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo {
	IB_UVERBS_FLOW_ACTION_IV_ALGO_SEQ = 0,
};

struct ib_uverbs_flow_action_esp_keymat_aes_gcm {
	__aligned_u64 iv;
	__u32 iv_algo;     /* an ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo */
	__u32 salt;
	__u32 icv_len;
	__u32 key_len;
	__u32 aes_key[8];  /* room for a 256-bit key */
};

enum ib_uverbs_flow_action_esp_replay {
	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE = 0,
	IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP  = 1,
};

struct ib_uverbs_flow_action_esp_replay_bmp {
	__u32 size;
};

/* Several pairs share a bit: the zero value of the bit is the default. */
enum ib_uverbs_flow_action_esp_flags {
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_INLINE_CRYPTO  = 0x0UL,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD   = 0x1UL,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TUNNEL         = 0x0UL,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_TRANSPORT      = 0x2UL,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_DECRYPT        = 0x0UL,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ENCRYPT        = 0x4UL,
	IB_UVERBS_FLOW_ACTION_ESP_FLAGS_ESN_NEW_WINDOW = 0x8UL,
};

/* One link of a chain of headers to push in ESP tunnel mode. */
struct ib_uverbs_flow_action_esp_encap {
	RDMA_UAPI_PTR(void *, val_ptr);   /* a flow spec filter struct */
	RDMA_UAPI_PTR(struct ib_uverbs_flow_action_esp_encap *, next_ptr);
	__u16 len;                        /* size of *val_ptr */
	__u16 type;                       /* flow spec type of *val_ptr */
};

struct ib_uverbs_flow_action_esp {
	__u32 spi;
	__u32 seq;
	__u32 tfc_pad;
	__u32 flags;
	__aligned_u64 hard_limit_pkts;
};

enum ib_uverbs_read_counters_flags {
	IB_UVERBS_READ_COUNTERS_PREFER_CACHED = 0x1,
};

enum ib_uverbs_advise_mr_advice {
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH          = 0,
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE    = 1,
	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT = 2,
};

enum ib_uverbs_advise_mr_flag {
	IB_UVERBS_ADVISE_MR_FLAG_FLUSH = 0x1,
};

struct ib_uverbs_query_port_resp_ex {
	struct ib_uverbs_query_port_resp legacy_resp;
	__u16 port_cap_flags2;
	/* rdma-core 64 split 44's reserved[6]; same size and offsets. */
	__u8 reserved[2];
	__u32 active_speed_ex;
};

struct ib_uverbs_qp_cap {
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
};

/* Kernel driver ids; I40IW was renamed IRDMA and keeps its number. */
enum rdma_driver_id {
	RDMA_DRIVER_UNKNOWN    = 0,
	RDMA_DRIVER_MLX5       = 1,
	RDMA_DRIVER_MLX4       = 2,
	RDMA_DRIVER_CXGB3      = 3,
	RDMA_DRIVER_CXGB4      = 4,
	RDMA_DRIVER_MTHCA      = 5,
	RDMA_DRIVER_BNXT_RE    = 6,
	RDMA_DRIVER_OCRDMA     = 7,
	RDMA_DRIVER_NES        = 8,
	RDMA_DRIVER_I40IW      = 9,
	RDMA_DRIVER_IRDMA      = 9,
	RDMA_DRIVER_VMW_PVRDMA = 10,
	RDMA_DRIVER_QEDR       = 11,
	RDMA_DRIVER_HNS        = 12,
	RDMA_DRIVER_USNIC      = 13,
	RDMA_DRIVER_RXE        = 14,
	RDMA_DRIVER_HFI1       = 15,
	RDMA_DRIVER_QIB        = 16,
	RDMA_DRIVER_EFA        = 17,
	RDMA_DRIVER_SIW        = 18,
	RDMA_DRIVER_ERDMA      = 19,
	RDMA_DRIVER_MANA       = 20,
	RDMA_DRIVER_IONIC      = 21, /* rdma-core 64 */
};

enum ib_uverbs_gid_type {
	IB_UVERBS_GID_TYPE_IB      = 0,
	IB_UVERBS_GID_TYPE_ROCE_V1 = 1,
	IB_UVERBS_GID_TYPE_ROCE_V2 = 2,
};

struct ib_uverbs_gid_entry {
	__aligned_u64 gid[2];
	__u32 gid_index;
	__u32 port_num;
	__u32 gid_type;
	__u32 netdev_ifindex;  /* 0 when no net device backs the GID */
};

/* rdma-core 64: a buffer named by a dma-buf fd or a user virtual address. */
enum ib_uverbs_buffer_type {
	IB_UVERBS_BUFFER_TYPE_DMABUF = 0x0,
	IB_UVERBS_BUFFER_TYPE_VA     = 0x1,
};

struct ib_uverbs_buffer_desc {
	__u32 type;
	__s32 fd;
	__u32 flags;
	__u32 optional_flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

/* rdma-core 65: completion counters. */
enum ib_uverbs_comp_cntr_entry {
	IB_UVERBS_COMP_CNTR_ENTRY_COMP = 0,
	IB_UVERBS_COMP_CNTR_ENTRY_ERR  = 1,
};

enum ib_uverbs_comp_cntr_modify_op {
	IB_UVERBS_COMP_CNTR_MODIFY_OP_SET = 0,
	IB_UVERBS_COMP_CNTR_MODIFY_OP_INC = 1,
};

enum ib_uverbs_qp_attach_comp_cntr_op {
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND              = 1 << 0,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV              = 1 << 1,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ         = 1 << 2,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ  = 1 << 3,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE        = 1 << 4,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
};

#endif /* IB_USER_IOCTL_VERBS_H */
