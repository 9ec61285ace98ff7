//! Flow steering rules and RSS indirection tables: CREATE_FLOW (an extended
//! write() command only) and the destroy commands (the ioctl methods, with
//! rdma-core's extended write() fallbacks).

use super::channel::{Uverbs, Verb};
use super::ids::*;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_create_flow` with its `ib_uverbs_flow_attr` inline;
    /// followed by the flow specs (`flow_attr.size` bytes).
    pub struct CreateFlow = 24 {
        pub comp_mask: u32,
        pub qp_handle: u32,
        pub attr_type: u32,
        pub size: u16,
        pub priority: u16,
        pub num_of_specs: u8,
        pub reserved: [u8; 2],
        pub port: u8,
        pub flags: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_flow_resp`
    pub struct CreateFlowResp = 8 {
        pub comp_mask: u32,
        pub flow_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_flow`
    pub struct DestroyFlow = 8 {
        pub comp_mask: u32,
        pub flow_handle: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_destroy_rwq_ind_table`
    pub struct DestroyRwqIndTable = 8 {
        pub comp_mask: u32,
        pub ind_tbl_handle: u32,
    }
}

write_ex_cmd!(CreateFlowCmd = IB_USER_VERBS_EX_CMD_CREATE_FLOW(CreateFlow) -> CreateFlowResp);
write_ex_cmd!(DestroyFlowCmd = IB_USER_VERBS_EX_CMD_DESTROY_FLOW(DestroyFlow) -> ());
write_ex_cmd!(
    DestroyRwqIndTableCmd = IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL(DestroyRwqIndTable) -> ()
);

impl Uverbs {
    /// Creates a flow rule: `core` is a `CreateFlow` and its specs; `drv_in`
    /// the driver's data.
    pub(crate) fn create_flow(&self, core: &[u8], drv_in: &[u8]) -> Result<CreateFlowResp> {
        self.write_ex_core::<CreateFlowCmd>(core, drv_in, &mut [])
    }

    /// rdma-core 44 records a kernel without these methods under destroy_ah's
    /// bit; so do we.
    pub(crate) fn destroy_flow(&self, flow_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_FLOW,
            UVERBS_METHOD_FLOW_DESTROY,
            UVERBS_ATTR_DESTROY_FLOW_HANDLE,
        );
        self.destroy(Verb::DestroyAh, "FLOW_DESTROY", ioctl, flow_handle, || {
            let req = DestroyFlow {
                flow_handle,
                ..Default::default()
            };
            self.write_ex::<DestroyFlowCmd>(&req, &[], &mut [])
        })
    }

    pub(crate) fn destroy_rwq_ind_table(&self, ind_tbl_handle: u32) -> Result<()> {
        let ioctl = (
            UVERBS_OBJECT_RWQ_IND_TBL,
            UVERBS_METHOD_RWQ_IND_TBL_DESTROY,
            UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE,
        );
        self.destroy(
            Verb::DestroyAh,
            "RWQ_IND_TBL_DESTROY",
            ioctl,
            ind_tbl_handle,
            || {
                let req = DestroyRwqIndTable {
                    ind_tbl_handle,
                    ..Default::default()
                };
                self.write_ex::<DestroyRwqIndTableCmd>(&req, &[], &mut [])
            },
        )
    }
}
