//! Completion queues.

use std::os::fd::RawFd;

use super::channel::{Uverbs, Verb};
use super::fallback::Fallback;
use super::ids::*;
use super::ioctl::IoctlCmd;
use super::pod::Pod;
use crate::entry::{Errno, Result};

kstruct! {
    /// `struct ib_uverbs_create_cq`; followed by `driver_data[]`
    pub struct CreateCq = 32 {
        pub response: u64,
        pub user_handle: u64,
        pub cqe: u32,
        pub comp_vector: u32,
        pub comp_channel: i32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_cq`
    pub struct ExCreateCq = 32 {
        pub user_handle: u64,
        pub cqe: u32,
        pub comp_vector: u32,
        pub comp_channel: i32,
        pub comp_mask: u32,
        pub flags: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_create_cq_resp`
    pub struct CreateCqResp = 8 {
        pub cq_handle: u32,
        pub cqe: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_create_cq_resp`
    pub struct ExCreateCqResp = 16 {
        pub base: CreateCqResp,
        pub comp_mask: u32,
        pub response_length: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_resize_cq`; followed by `driver_data[]`
    pub struct ResizeCq = 16 {
        pub response: u64,
        pub cq_handle: u32,
        pub cqe: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_resize_cq_resp`; followed by `driver_data[]`
    pub struct ResizeCqResp = 8 {
        pub cqe: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_poll_cq`
    pub struct PollCq = 16 {
        pub response: u64,
        pub cq_handle: u32,
        pub ne: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_wc`
    pub struct Wc = 48 {
        pub wr_id: u64,
        pub status: u32,
        pub opcode: u32,
        pub vendor_err: u32,
        pub byte_len: u32,
        pub ex: u32,
        pub qp_num: u32,
        pub src_qp: u32,
        pub wc_flags: u32,
        pub pkey_index: u16,
        pub slid: u16,
        pub sl: u8,
        pub dlid_path_bits: u8,
        pub port_num: u8,
        pub reserved: u8,
    }
}

kstruct! {
    /// `struct ib_uverbs_poll_cq_resp`; followed by `wc[]`
    pub struct PollCqResp = 8 {
        pub count: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_req_notify_cq`
    pub struct ReqNotifyCq = 8 {
        pub cq_handle: u32,
        pub solicited_only: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_cq`
    pub struct DestroyCq = 16 {
        pub response: u64,
        pub cq_handle: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_destroy_cq_resp`
    pub struct DestroyCqResp = 8 {
        pub comp_events_reported: u32,
        pub async_events_reported: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_cq_moderation`
    pub struct CqModeration = 4 {
        pub cq_count: u16,
        pub cq_period: u16,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_modify_cq`
    pub struct ExModifyCq = 16 {
        pub cq_handle: u32,
        pub attr_mask: u32,
        pub attr: CqModeration,
        pub reserved: u32,
    }
}

write_cmd!(CreateCqCmd = IB_USER_VERBS_CMD_CREATE_CQ(CreateCq) -> CreateCqResp);
write_ex_cmd!(ExCreateCqCmd = IB_USER_VERBS_EX_CMD_CREATE_CQ(ExCreateCq) -> ExCreateCqResp);
write_cmd!(ResizeCqCmd = IB_USER_VERBS_CMD_RESIZE_CQ(ResizeCq) -> ResizeCqResp);
write_cmd!(PollCqCmd = IB_USER_VERBS_CMD_POLL_CQ(PollCq) -> PollCqResp);
write_cmd!(ReqNotifyCqCmd = IB_USER_VERBS_CMD_REQ_NOTIFY_CQ(ReqNotifyCq) -> ());
write_cmd!(DestroyCqCmd = IB_USER_VERBS_CMD_DESTROY_CQ(DestroyCq) -> DestroyCqResp);
write_ex_cmd!(ExModifyCqCmd = IB_USER_VERBS_EX_CMD_MODIFY_CQ(ExModifyCq) -> ());

/// `IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION`
pub(crate) const CQ_FLAGS_TIMESTAMP_COMPLETION: u32 = 1 << 0;

/// Arguments of CQ creation.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CqCreate {
    pub cqe: u32,
    /// Returned in events (the address of the C `ibv_cq`).
    pub user_handle: u64,
    pub comp_channel: Option<RawFd>,
    pub comp_vector: u32,
    pub flags: u32,
    /// The context's async fd, for kernels that take it per object.
    pub async_fd: Option<RawFd>,
    /// `flags` can only be carried by the `_ex` write command.
    pub flags_need_ex: bool,
}

/// A created CQ: its handle and the real number of entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CqCreated {
    pub cq_handle: u32,
    pub cqe: u32,
}

impl Uverbs {
    /// Creates a CQ with the ioctl method, or CREATE_CQ / EX_CREATE_CQ on older
    /// kernels. rxe answers `drv_out` with `rxe::CreateCqResp`.
    pub(crate) fn create_cq(
        &self,
        a: &CqCreate,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<CqCreated> {
        let mut resp_cqe = [0u8; 4];
        let cqe = a.cqe.to_ne_bytes();
        let user_handle = a.user_handle.to_ne_bytes();
        let vector = a.comp_vector.to_ne_bytes();
        let flags = a.flags.to_ne_bytes();
        let mut c = IoctlCmd::new("CQ_CREATE", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
        let handle = c.idr_out(UVERBS_ATTR_CREATE_CQ_HANDLE);
        c.ptr_out(UVERBS_ATTR_CREATE_CQ_RESP_CQE, &mut resp_cqe);
        c.ptr_in(UVERBS_ATTR_CREATE_CQ_CQE, &cqe);
        c.ptr_in(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, &user_handle);
        c.fd_in(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, a.comp_channel);
        c.ptr_in(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, &vector);
        // Optional, so that a kernel without per-object async fds still accepts it.
        if let Some(fd_attr) = c.fd_in(UVERBS_ATTR_CREATE_CQ_EVENT_FD, a.async_fd) {
            c.optional(fd_attr);
        }
        if a.flags != 0 {
            if a.flags_need_ex || a.flags & !CQ_FLAGS_TIMESTAMP_COMPLETION != 0 {
                c.fallback_require_ex();
            }
            c.ptr_in(UVERBS_ATTR_CREATE_CQ_FLAGS, &flags);
        }
        c.uhw(drv_in, drv_out);
        let how = self.ioctl_fallback(Verb::CreateCq, &mut c);
        let cq_handle = c.read_idr(handle);
        let channel = a.comp_channel.unwrap_or(-1);
        match how? {
            Fallback::Done => Ok(CqCreated {
                cq_handle,
                cqe: u32::from_ne_bytes(resp_cqe),
            }),
            Fallback::TryWrite => {
                let req = CreateCq {
                    user_handle: a.user_handle,
                    cqe: a.cqe,
                    comp_vector: a.comp_vector,
                    comp_channel: channel,
                    ..Default::default()
                };
                let r = self.write::<CreateCqCmd>(&req, drv_in, drv_out)?;
                Ok(CqCreated {
                    cq_handle: r.cq_handle,
                    cqe: r.cqe,
                })
            }
            Fallback::TryWriteEx => {
                let req = ExCreateCq {
                    user_handle: a.user_handle,
                    cqe: a.cqe,
                    comp_vector: a.comp_vector,
                    comp_channel: channel,
                    flags: a.flags,
                    ..Default::default()
                };
                let r = self.write_ex::<ExCreateCqCmd>(&req, drv_in, drv_out)?;
                Ok(CqCreated {
                    cq_handle: r.base.cq_handle,
                    cqe: r.base.cqe,
                })
            }
        }
    }

    /// Resizes a CQ; returns the new number of entries. rxe answers `drv_out`
    /// with `rxe::ResizeCqResp`.
    pub(crate) fn resize_cq(
        &self,
        cq_handle: u32,
        cqe: u32,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<u32> {
        let req = ResizeCq {
            cq_handle,
            cqe,
            ..Default::default()
        };
        Ok(self.write::<ResizeCqCmd>(&req, drv_in, drv_out)?.cqe)
    }

    /// Polls up to `wc.len()` completions through the kernel; returns how many.
    pub(crate) fn poll_cq(&self, cq_handle: u32, wc: &mut [Wc]) -> Result<usize> {
        let ne = u32::try_from(wc.len()).map_err(|_| Errno::EINVAL)?;
        let mut out = vec![0u8; size_of_val(wc)];
        let req = PollCq {
            cq_handle,
            ne,
            ..Default::default()
        };
        let (r, resp) = self.write_payload::<PollCqCmd>(&req, &[], &mut out);
        r?;
        let n = (resp.count as usize).min(wc.len());
        for (w, b) in wc[..n].iter_mut().zip(out.chunks_exact(size_of::<Wc>())) {
            *w = Wc::from_prefix(b);
        }
        Ok(n)
    }

    pub(crate) fn req_notify_cq(&self, cq_handle: u32, solicited_only: bool) -> Result<()> {
        let req = ReqNotifyCq {
            cq_handle,
            solicited_only: solicited_only as u32,
        };
        self.write::<ReqNotifyCqCmd>(&req, &[], &mut [])
    }

    /// Destroys a CQ; returns how many completion and async events the kernel
    /// reported for it (to wait for their acknowledgement).
    pub(crate) fn destroy_cq(&self, cq_handle: u32) -> Result<DestroyCqResp> {
        super::disassoc::destroy_result(self.destroy_cq_cmd(cq_handle))
    }

    fn destroy_cq_cmd(&self, cq_handle: u32) -> Result<DestroyCqResp> {
        let mut resp = DestroyCqResp::default();
        let mut c = IoctlCmd::new("CQ_DESTROY", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
        c.idr_in(UVERBS_ATTR_DESTROY_CQ_HANDLE, cq_handle);
        c.ptr_out_pod(UVERBS_ATTR_DESTROY_CQ_RESP, &mut resp);
        match self.ioctl_fallback(Verb::DestroyCq, &mut c)? {
            Fallback::Done => Ok(resp),
            _ => {
                let req = DestroyCq {
                    cq_handle,
                    ..Default::default()
                };
                self.write::<DestroyCqCmd>(&req, &[], &mut [])
            }
        }
    }
}

impl Uverbs {
    /// CQ moderation (the extended MODIFY_CQ command; it has no ioctl method).
    pub(crate) fn modify_cq(&self, req: &ExModifyCq, drv_in: &[u8]) -> Result<()> {
        self.write_ex::<ExModifyCqCmd>(req, drv_in, &mut [])
    }
}
