//! Flow steering rules and RSS indirection tables: their destroy commands
//! (the ioctl methods, with rdma-core's extended write() fallbacks).

use super::Uverbs;
use super::fallback::Verb;
use super::ids::*;
use crate::entry::Result;

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

write_ex_cmd!(DestroyFlowCmd = IB_USER_VERBS_EX_CMD_DESTROY_FLOW(DestroyFlow) -> ());
write_ex_cmd!(
    DestroyRwqIndTableCmd = IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL(DestroyRwqIndTable) -> ()
);

impl Uverbs {
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
