//! Multicast group attachment.

use super::channel::Uverbs;
use crate::entry::Result;

kstruct! {
    /// `struct ib_uverbs_attach_mcast`; followed by `driver_data[]`
    pub struct AttachMcast = 24 {
        pub gid: [u8; 16],
        pub qp_handle: u32,
        pub mlid: u16,
        pub reserved: u16,
    }
}

kstruct! {
    /// `struct ib_uverbs_detach_mcast`; followed by `driver_data[]`
    pub struct DetachMcast = 24 {
        pub gid: [u8; 16],
        pub qp_handle: u32,
        pub mlid: u16,
        pub reserved: u16,
    }
}

write_cmd!(AttachMcastCmd = IB_USER_VERBS_CMD_ATTACH_MCAST(AttachMcast) -> ());
write_cmd!(DetachMcastCmd = IB_USER_VERBS_CMD_DETACH_MCAST(DetachMcast) -> ());

impl Uverbs {
    pub(crate) fn attach_mcast(&self, qp_handle: u32, gid: [u8; 16], mlid: u16) -> Result<()> {
        let req = AttachMcast {
            gid,
            qp_handle,
            mlid,
            ..Default::default()
        };
        self.write::<AttachMcastCmd>(&req, &[], &mut [])
    }

    pub(crate) fn detach_mcast(&self, qp_handle: u32, gid: [u8; 16], mlid: u16) -> Result<()> {
        let req = DetachMcast {
            gid,
            qp_handle,
            mlid,
            ..Default::default()
        };
        self.write::<DetachMcastCmd>(&req, &[], &mut [])
    }
}
