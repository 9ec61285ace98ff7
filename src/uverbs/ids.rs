//! Object, method and attribute ids of the ioctl interface (`ib_user_ioctl_cmds.h`).
#![allow(dead_code)]

// enum uverbs_default_objects
pub(crate) const UVERBS_OBJECT_DEVICE: u16 = 0;
pub(crate) const UVERBS_OBJECT_PD: u16 = 1;
pub(crate) const UVERBS_OBJECT_COMP_CHANNEL: u16 = 2;
pub(crate) const UVERBS_OBJECT_CQ: u16 = 3;
pub(crate) const UVERBS_OBJECT_QP: u16 = 4;
pub(crate) const UVERBS_OBJECT_SRQ: u16 = 5;
pub(crate) const UVERBS_OBJECT_AH: u16 = 6;
pub(crate) const UVERBS_OBJECT_MR: u16 = 7;
pub(crate) const UVERBS_OBJECT_MW: u16 = 8;
pub(crate) const UVERBS_OBJECT_FLOW: u16 = 9;
pub(crate) const UVERBS_OBJECT_XRCD: u16 = 10;
pub(crate) const UVERBS_OBJECT_RWQ_IND_TBL: u16 = 11;
pub(crate) const UVERBS_OBJECT_WQ: u16 = 12;
pub(crate) const UVERBS_OBJECT_FLOW_ACTION: u16 = 13;
pub(crate) const UVERBS_OBJECT_DM: u16 = 14;
pub(crate) const UVERBS_OBJECT_COUNTERS: u16 = 15;
pub(crate) const UVERBS_OBJECT_ASYNC_EVENT: u16 = 16;

// enum (anonymous)
pub(crate) const UVERBS_ATTR_UHW_IN: u16 = 0x1000;
pub(crate) const UVERBS_ATTR_UHW_OUT: u16 = 0x1001;

// enum uverbs_methods_device
pub(crate) const UVERBS_METHOD_INVOKE_WRITE: u16 = 0;
pub(crate) const UVERBS_METHOD_INFO_HANDLES: u16 = 1;
pub(crate) const UVERBS_METHOD_QUERY_PORT: u16 = 2;
pub(crate) const UVERBS_METHOD_GET_CONTEXT: u16 = 3;
pub(crate) const UVERBS_METHOD_QUERY_CONTEXT: u16 = 4;
pub(crate) const UVERBS_METHOD_QUERY_GID_TABLE: u16 = 5;
pub(crate) const UVERBS_METHOD_QUERY_GID_ENTRY: u16 = 6;

// enum uverbs_attrs_invoke_write_cmd_attr_ids
pub(crate) const UVERBS_ATTR_CORE_IN: u16 = 0;
pub(crate) const UVERBS_ATTR_CORE_OUT: u16 = 1;
pub(crate) const UVERBS_ATTR_WRITE_CMD: u16 = 2;

// enum uverbs_attrs_query_port_cmd_attr_ids
pub(crate) const UVERBS_ATTR_QUERY_PORT_PORT_NUM: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_PORT_RESP: u16 = 1;

// enum uverbs_attrs_get_context_attr_ids
pub(crate) const UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS: u16 = 0;
pub(crate) const UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT: u16 = 1;

// enum uverbs_attrs_query_context_attr_ids
pub(crate) const UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT: u16 = 1;

// enum uverbs_attrs_create_cq_cmd_attr_ids
pub(crate) const UVERBS_ATTR_CREATE_CQ_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_CREATE_CQ_CQE: u16 = 1;
pub(crate) const UVERBS_ATTR_CREATE_CQ_USER_HANDLE: u16 = 2;
pub(crate) const UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL: u16 = 3;
pub(crate) const UVERBS_ATTR_CREATE_CQ_COMP_VECTOR: u16 = 4;
pub(crate) const UVERBS_ATTR_CREATE_CQ_FLAGS: u16 = 5;
pub(crate) const UVERBS_ATTR_CREATE_CQ_RESP_CQE: u16 = 6;
pub(crate) const UVERBS_ATTR_CREATE_CQ_EVENT_FD: u16 = 7;

// enum uverbs_attrs_destroy_cq_cmd_attr_ids
pub(crate) const UVERBS_ATTR_DESTROY_CQ_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_DESTROY_CQ_RESP: u16 = 1;

// enum uverbs_attrs_create_flow_action_esp
pub(crate) const UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS: u16 = 1;
pub(crate) const UVERBS_ATTR_FLOW_ACTION_ESP_ESN: u16 = 2;
pub(crate) const UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT: u16 = 3;
pub(crate) const UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY: u16 = 4;
pub(crate) const UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP: u16 = 5;

// enum uverbs_attrs_modify_flow_action_esp
pub(crate) const UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE: u16 = 0;

// enum uverbs_attrs_destroy_flow_action_esp
pub(crate) const UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE: u16 = 0;

// enum uverbs_attrs_create_qp_cmd_attr_ids
pub(crate) const UVERBS_ATTR_CREATE_QP_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_CREATE_QP_XRCD_HANDLE: u16 = 1;
pub(crate) const UVERBS_ATTR_CREATE_QP_PD_HANDLE: u16 = 2;
pub(crate) const UVERBS_ATTR_CREATE_QP_SRQ_HANDLE: u16 = 3;
pub(crate) const UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE: u16 = 4;
pub(crate) const UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE: u16 = 5;
pub(crate) const UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE: u16 = 6;
pub(crate) const UVERBS_ATTR_CREATE_QP_USER_HANDLE: u16 = 7;
pub(crate) const UVERBS_ATTR_CREATE_QP_CAP: u16 = 8;
pub(crate) const UVERBS_ATTR_CREATE_QP_TYPE: u16 = 9;
pub(crate) const UVERBS_ATTR_CREATE_QP_FLAGS: u16 = 10;
pub(crate) const UVERBS_ATTR_CREATE_QP_SOURCE_QPN: u16 = 11;
pub(crate) const UVERBS_ATTR_CREATE_QP_EVENT_FD: u16 = 12;
pub(crate) const UVERBS_ATTR_CREATE_QP_RESP_CAP: u16 = 13;
pub(crate) const UVERBS_ATTR_CREATE_QP_RESP_QP_NUM: u16 = 14;

// enum uverbs_attrs_destroy_qp_cmd_attr_ids
pub(crate) const UVERBS_ATTR_DESTROY_QP_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_DESTROY_QP_RESP: u16 = 1;

// enum uverbs_methods_qp
pub(crate) const UVERBS_METHOD_QP_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_QP_DESTROY: u16 = 1;

// enum uverbs_attrs_create_srq_cmd_attr_ids
pub(crate) const UVERBS_ATTR_CREATE_SRQ_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_PD_HANDLE: u16 = 1;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE: u16 = 2;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE: u16 = 3;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_USER_HANDLE: u16 = 4;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_MAX_WR: u16 = 5;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_MAX_SGE: u16 = 6;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_LIMIT: u16 = 7;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS: u16 = 8;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_TYPE: u16 = 9;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_EVENT_FD: u16 = 10;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR: u16 = 11;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE: u16 = 12;
pub(crate) const UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM: u16 = 13;

// enum uverbs_attrs_destroy_srq_cmd_attr_ids
pub(crate) const UVERBS_ATTR_DESTROY_SRQ_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_DESTROY_SRQ_RESP: u16 = 1;

// enum uverbs_methods_srq
pub(crate) const UVERBS_METHOD_SRQ_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_SRQ_DESTROY: u16 = 1;

// enum uverbs_methods_cq
pub(crate) const UVERBS_METHOD_CQ_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_CQ_DESTROY: u16 = 1;

// enum uverbs_attrs_create_wq_cmd_attr_ids
pub(crate) const UVERBS_ATTR_CREATE_WQ_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_CREATE_WQ_PD_HANDLE: u16 = 1;
pub(crate) const UVERBS_ATTR_CREATE_WQ_CQ_HANDLE: u16 = 2;
pub(crate) const UVERBS_ATTR_CREATE_WQ_USER_HANDLE: u16 = 3;
pub(crate) const UVERBS_ATTR_CREATE_WQ_TYPE: u16 = 4;
pub(crate) const UVERBS_ATTR_CREATE_WQ_EVENT_FD: u16 = 5;
pub(crate) const UVERBS_ATTR_CREATE_WQ_MAX_WR: u16 = 6;
pub(crate) const UVERBS_ATTR_CREATE_WQ_MAX_SGE: u16 = 7;
pub(crate) const UVERBS_ATTR_CREATE_WQ_FLAGS: u16 = 8;
pub(crate) const UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR: u16 = 9;
pub(crate) const UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE: u16 = 10;
pub(crate) const UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM: u16 = 11;

// enum uverbs_attrs_destroy_wq_cmd_attr_ids
pub(crate) const UVERBS_ATTR_DESTROY_WQ_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_DESTROY_WQ_RESP: u16 = 1;

// enum uverbs_methods_wq
pub(crate) const UVERBS_METHOD_WQ_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_WQ_DESTROY: u16 = 1;

// enum uverbs_methods_actions_flow_action_ops
pub(crate) const UVERBS_METHOD_FLOW_ACTION_ESP_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_FLOW_ACTION_DESTROY: u16 = 1;
pub(crate) const UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY: u16 = 2;

// enum uverbs_attrs_alloc_dm_cmd_attr_ids
pub(crate) const UVERBS_ATTR_ALLOC_DM_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_ALLOC_DM_LENGTH: u16 = 1;
pub(crate) const UVERBS_ATTR_ALLOC_DM_ALIGNMENT: u16 = 2;

// enum uverbs_attrs_free_dm_cmd_attr_ids
pub(crate) const UVERBS_ATTR_FREE_DM_HANDLE: u16 = 0;

// enum uverbs_methods_dm
pub(crate) const UVERBS_METHOD_DM_ALLOC: u16 = 0;
pub(crate) const UVERBS_METHOD_DM_FREE: u16 = 1;

// enum uverbs_attrs_reg_dm_mr_cmd_attr_ids
pub(crate) const UVERBS_ATTR_REG_DM_MR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_REG_DM_MR_OFFSET: u16 = 1;
pub(crate) const UVERBS_ATTR_REG_DM_MR_LENGTH: u16 = 2;
pub(crate) const UVERBS_ATTR_REG_DM_MR_PD_HANDLE: u16 = 3;
pub(crate) const UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS: u16 = 4;
pub(crate) const UVERBS_ATTR_REG_DM_MR_DM_HANDLE: u16 = 5;
pub(crate) const UVERBS_ATTR_REG_DM_MR_RESP_LKEY: u16 = 6;
pub(crate) const UVERBS_ATTR_REG_DM_MR_RESP_RKEY: u16 = 7;

// enum uverbs_methods_mr
pub(crate) const UVERBS_METHOD_DM_MR_REG: u16 = 0;
pub(crate) const UVERBS_METHOD_MR_DESTROY: u16 = 1;
pub(crate) const UVERBS_METHOD_ADVISE_MR: u16 = 2;
pub(crate) const UVERBS_METHOD_QUERY_MR: u16 = 3;
pub(crate) const UVERBS_METHOD_REG_DMABUF_MR: u16 = 4;

// enum uverbs_attrs_mr_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_MR_HANDLE: u16 = 0;

// enum uverbs_attrs_advise_mr_cmd_attr_ids
pub(crate) const UVERBS_ATTR_ADVISE_MR_PD_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_ADVISE_MR_ADVICE: u16 = 1;
pub(crate) const UVERBS_ATTR_ADVISE_MR_FLAGS: u16 = 2;
pub(crate) const UVERBS_ATTR_ADVISE_MR_SGE_LIST: u16 = 3;

// enum uverbs_attrs_query_mr_cmd_attr_ids
pub(crate) const UVERBS_ATTR_QUERY_MR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_MR_RESP_LKEY: u16 = 1;
pub(crate) const UVERBS_ATTR_QUERY_MR_RESP_RKEY: u16 = 2;
pub(crate) const UVERBS_ATTR_QUERY_MR_RESP_LENGTH: u16 = 3;
pub(crate) const UVERBS_ATTR_QUERY_MR_RESP_IOVA: u16 = 4;

// enum uverbs_attrs_reg_dmabuf_mr_cmd_attr_ids
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE: u16 = 1;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_OFFSET: u16 = 2;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_LENGTH: u16 = 3;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_IOVA: u16 = 4;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_FD: u16 = 5;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS: u16 = 6;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY: u16 = 7;
pub(crate) const UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY: u16 = 8;

// enum uverbs_attrs_create_counters_cmd_attr_ids
pub(crate) const UVERBS_ATTR_CREATE_COUNTERS_HANDLE: u16 = 0;

// enum uverbs_attrs_destroy_counters_cmd_attr_ids
pub(crate) const UVERBS_ATTR_DESTROY_COUNTERS_HANDLE: u16 = 0;

// enum uverbs_attrs_read_counters_cmd_attr_ids
pub(crate) const UVERBS_ATTR_READ_COUNTERS_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_READ_COUNTERS_BUFF: u16 = 1;
pub(crate) const UVERBS_ATTR_READ_COUNTERS_FLAGS: u16 = 2;

// enum uverbs_methods_actions_counters_ops
pub(crate) const UVERBS_METHOD_COUNTERS_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_COUNTERS_DESTROY: u16 = 1;
pub(crate) const UVERBS_METHOD_COUNTERS_READ: u16 = 2;

// enum uverbs_attrs_info_handles_id
pub(crate) const UVERBS_ATTR_INFO_OBJECT_ID: u16 = 0;
pub(crate) const UVERBS_ATTR_INFO_TOTAL_HANDLES: u16 = 1;
pub(crate) const UVERBS_ATTR_INFO_HANDLES_LIST: u16 = 2;

// enum uverbs_methods_pd
pub(crate) const UVERBS_METHOD_PD_DESTROY: u16 = 0;

// enum uverbs_attrs_pd_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_PD_HANDLE: u16 = 0;

// enum uverbs_methods_mw
pub(crate) const UVERBS_METHOD_MW_DESTROY: u16 = 0;

// enum uverbs_attrs_mw_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_MW_HANDLE: u16 = 0;

// enum uverbs_methods_xrcd
pub(crate) const UVERBS_METHOD_XRCD_DESTROY: u16 = 0;

// enum uverbs_attrs_xrcd_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_XRCD_HANDLE: u16 = 0;

// enum uverbs_methods_ah
pub(crate) const UVERBS_METHOD_AH_DESTROY: u16 = 0;

// enum uverbs_attrs_ah_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_AH_HANDLE: u16 = 0;

// enum uverbs_methods_rwq_ind_tbl
pub(crate) const UVERBS_METHOD_RWQ_IND_TBL_DESTROY: u16 = 0;

// enum uverbs_attrs_rwq_ind_tbl_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE: u16 = 0;

// enum uverbs_methods_flow
pub(crate) const UVERBS_METHOD_FLOW_DESTROY: u16 = 0;

// enum uverbs_attrs_flow_destroy_ids
pub(crate) const UVERBS_ATTR_DESTROY_FLOW_HANDLE: u16 = 0;

// enum uverbs_method_async_event
pub(crate) const UVERBS_METHOD_ASYNC_EVENT_ALLOC: u16 = 0;

// enum uverbs_attrs_async_event_create
pub(crate) const UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE: u16 = 0;

// enum uverbs_attrs_query_gid_table_cmd_attr_ids
pub(crate) const UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_GID_TABLE_FLAGS: u16 = 1;
pub(crate) const UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES: u16 = 2;
pub(crate) const UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES: u16 = 3;

// enum uverbs_attrs_query_gid_entry_cmd_attr_ids
pub(crate) const UVERBS_ATTR_QUERY_GID_ENTRY_PORT: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX: u16 = 1;
pub(crate) const UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS: u16 = 2;
pub(crate) const UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY: u16 = 3;

// ---- ib_user_ioctl_verbs.h

// enum ib_uverbs_core_support
pub(crate) const IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS: u32 = 1;

// enum ib_uverbs_srq_type
pub(crate) const IB_UVERBS_SRQT_BASIC: u32 = 0;
pub(crate) const IB_UVERBS_SRQT_XRC: u32 = 1;
pub(crate) const IB_UVERBS_SRQT_TM: u32 = 2;

// enum ib_uverbs_qp_type
pub(crate) const IB_UVERBS_QPT_RC: u32 = 2;
pub(crate) const IB_UVERBS_QPT_UC: u32 = 3;
pub(crate) const IB_UVERBS_QPT_UD: u32 = 4;
pub(crate) const IB_UVERBS_QPT_RAW_PACKET: u32 = 8;
pub(crate) const IB_UVERBS_QPT_XRC_INI: u32 = 9;
pub(crate) const IB_UVERBS_QPT_XRC_TGT: u32 = 10;
pub(crate) const IB_UVERBS_QPT_DRIVER: u32 = 255;

// enum ib_uverbs_qp_create_flags
pub(crate) const IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK: u32 = 2;
pub(crate) const IB_UVERBS_QP_CREATE_SCATTER_FCS: u32 = 0x100;
pub(crate) const IB_UVERBS_QP_CREATE_CVLAN_STRIPPING: u32 = 0x200;
pub(crate) const IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING: u32 = 0x800;
pub(crate) const IB_UVERBS_QP_CREATE_SQ_SIG_ALL: u32 = 0x1000;

// enum rdma_driver_id
pub(crate) const RDMA_DRIVER_UNKNOWN: u32 = 0;
pub(crate) const RDMA_DRIVER_MLX5: u32 = 1;
pub(crate) const RDMA_DRIVER_MLX4: u32 = 2;
pub(crate) const RDMA_DRIVER_CXGB3: u32 = 3;
pub(crate) const RDMA_DRIVER_CXGB4: u32 = 4;
pub(crate) const RDMA_DRIVER_MTHCA: u32 = 5;
pub(crate) const RDMA_DRIVER_BNXT_RE: u32 = 6;
pub(crate) const RDMA_DRIVER_OCRDMA: u32 = 7;
pub(crate) const RDMA_DRIVER_NES: u32 = 8;
pub(crate) const RDMA_DRIVER_I40IW: u32 = 9;
pub(crate) const RDMA_DRIVER_IRDMA: u32 = 9;
pub(crate) const RDMA_DRIVER_VMW_PVRDMA: u32 = 10;
pub(crate) const RDMA_DRIVER_QEDR: u32 = 11;
pub(crate) const RDMA_DRIVER_HNS: u32 = 12;
pub(crate) const RDMA_DRIVER_USNIC: u32 = 13;
pub(crate) const RDMA_DRIVER_RXE: u32 = 14;
pub(crate) const RDMA_DRIVER_HFI1: u32 = 15;
pub(crate) const RDMA_DRIVER_QIB: u32 = 16;
pub(crate) const RDMA_DRIVER_EFA: u32 = 17;
pub(crate) const RDMA_DRIVER_SIW: u32 = 18;
pub(crate) const RDMA_DRIVER_ERDMA: u32 = 19;

// rdma-core 65 (kernel 6.17+ uAPI): DMA handles, dma-buf export, completion
// counters, the port speed query, REG_MR and the CQ buffer attributes.
pub(crate) const UVERBS_OBJECT_DMAH: u16 = 17;
pub(crate) const UVERBS_OBJECT_DMABUF: u16 = 18;
pub(crate) const UVERBS_OBJECT_COMP_CNTR: u16 = 19;

// enum uverbs_methods_device (65's additions)
pub(crate) const UVERBS_METHOD_QUERY_PORT_SPEED: u16 = 7;
pub(crate) const UVERBS_METHOD_QUERY_COMP_CNTR_CAPS: u16 = 8;
pub(crate) const UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_PORT_SPEED_RESP: u16 = 1;
pub(crate) const UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS: u16 = 0;
pub(crate) const UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE: u16 = 1;
pub(crate) const UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS: u16 = 2;

// enum uverbs_attrs_create_cq_cmd_attr_ids (65's additions)
pub(crate) const UVERBS_ATTR_CREATE_CQ_BUFFER_VA: u16 = 8;
pub(crate) const UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH: u16 = 9;
pub(crate) const UVERBS_ATTR_CREATE_CQ_BUFFER_FD: u16 = 10;
pub(crate) const UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET: u16 = 11;

// QP_ATTACH_COMP_CNTR of enum uverbs_methods_qp
pub(crate) const UVERBS_METHOD_QP_ATTACH_COMP_CNTR: u16 = 2;
pub(crate) const UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE: u16 = 1;
pub(crate) const UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK: u16 = 2;

// enum uverbs_methods_dmah
pub(crate) const UVERBS_METHOD_DMAH_ALLOC: u16 = 0;
pub(crate) const UVERBS_METHOD_DMAH_FREE: u16 = 1;
pub(crate) const UVERBS_ATTR_ALLOC_DMAH_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_ALLOC_DMAH_CPU_ID: u16 = 1;
pub(crate) const UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE: u16 = 2;
pub(crate) const UVERBS_ATTR_ALLOC_DMAH_PH: u16 = 3;
pub(crate) const UVERBS_ATTR_FREE_DMA_HANDLE: u16 = 0;

// enum uverbs_methods_dmabuf
pub(crate) const UVERBS_METHOD_DMABUF_ALLOC: u16 = 0;
pub(crate) const UVERBS_ATTR_ALLOC_DMABUF_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_ALLOC_DMABUF_PGOFF: u16 = 1;

// REG_MR of enum uverbs_methods_mr, and its attributes
pub(crate) const UVERBS_METHOD_REG_MR: u16 = 5;
pub(crate) const UVERBS_ATTR_REG_MR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_REG_MR_PD_HANDLE: u16 = 1;
pub(crate) const UVERBS_ATTR_REG_MR_DMA_HANDLE: u16 = 2;
pub(crate) const UVERBS_ATTR_REG_MR_IOVA: u16 = 3;
pub(crate) const UVERBS_ATTR_REG_MR_ADDR: u16 = 4;
pub(crate) const UVERBS_ATTR_REG_MR_LENGTH: u16 = 5;
pub(crate) const UVERBS_ATTR_REG_MR_ACCESS_FLAGS: u16 = 6;
pub(crate) const UVERBS_ATTR_REG_MR_FD: u16 = 7;
pub(crate) const UVERBS_ATTR_REG_MR_FD_OFFSET: u16 = 8;
pub(crate) const UVERBS_ATTR_REG_MR_RESP_LKEY: u16 = 9;
pub(crate) const UVERBS_ATTR_REG_MR_RESP_RKEY: u16 = 10;

// enum uverbs_methods_comp_cntr and their attributes
pub(crate) const UVERBS_METHOD_COMP_CNTR_CREATE: u16 = 0;
pub(crate) const UVERBS_METHOD_COMP_CNTR_DESTROY: u16 = 1;
pub(crate) const UVERBS_METHOD_COMP_CNTR_MODIFY: u16 = 2;
pub(crate) const UVERBS_METHOD_COMP_CNTR_READ: u16 = 3;
pub(crate) const UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY: u16 = 1;
pub(crate) const UVERBS_ATTR_MODIFY_COMP_CNTR_OP: u16 = 2;
pub(crate) const UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE: u16 = 3;
pub(crate) const UVERBS_ATTR_READ_COMP_CNTR_HANDLE: u16 = 0;
pub(crate) const UVERBS_ATTR_READ_COMP_CNTR_ENTRY: u16 = 1;
pub(crate) const UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE: u16 = 2;
// enum ib_uverbs_comp_cntr_entry / ib_uverbs_comp_cntr_modify_op
pub(crate) const IB_UVERBS_COMP_CNTR_ENTRY_COMP: u64 = 0;
pub(crate) const IB_UVERBS_COMP_CNTR_ENTRY_ERR: u64 = 1;
pub(crate) const IB_UVERBS_COMP_CNTR_MODIFY_OP_SET: u64 = 0;
pub(crate) const IB_UVERBS_COMP_CNTR_MODIFY_OP_INC: u64 = 1;
