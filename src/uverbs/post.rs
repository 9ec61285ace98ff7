//! Posting work requests through the kernel (and the rxe doorbell).

use super::channel::Uverbs;
use super::pod::Pod;
use super::write::IB_USER_VERBS_CMD_POST_SEND;
use crate::entry::{Errno, Result};

kstruct! {
    /// `struct ib_uverbs_sge`
    pub struct Sge = 16 {
        pub addr: u64,
        pub length: u32,
        pub lkey: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_send_wr`
    pub struct SendWr = 56 {
        pub wr_id: u64,
        pub num_sge: u32,
        pub opcode: u32,
        pub send_flags: u32,
        pub ex: u32,
        pub wr: [u64; 4],
    }
}

kstruct! {
    /// `struct ib_uverbs_post_send`; followed by `send_wr[]`
    pub struct PostSend = 24 {
        pub response: u64,
        pub qp_handle: u32,
        pub wr_count: u32,
        pub sge_count: u32,
        pub wqe_size: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_post_send_resp`
    pub struct PostSendResp = 4 {
        pub bad_wr: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_recv_wr`
    pub struct RecvWr = 16 {
        pub wr_id: u64,
        pub num_sge: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_post_recv`; followed by `recv_wr[]`
    pub struct PostRecv = 24 {
        pub response: u64,
        pub qp_handle: u32,
        pub wr_count: u32,
        pub sge_count: u32,
        pub wqe_size: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_post_recv_resp`
    pub struct PostRecvResp = 4 {
        pub bad_wr: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_post_srq_recv`; followed by `recv[]`
    pub struct PostSrqRecv = 24 {
        pub response: u64,
        pub srq_handle: u32,
        pub wr_count: u32,
        pub sge_count: u32,
        pub wqe_size: u32,
    }
}

kstruct! {
    /// `struct ib_uverbs_post_srq_recv_resp`
    pub struct PostSrqRecvResp = 4 {
        pub bad_wr: u32,
    }
}

kstruct! {
    /// The doorbell's whole write(2): the header, then `PostSend`, built in
    /// place (no byte copies).
    pub struct Doorbell = 32 {
        pub hdr: super::write::CmdHdr,
        pub req: PostSend,
    }
}

write_cmd!(PostSendCmd = IB_USER_VERBS_CMD_POST_SEND(PostSend) -> PostSendResp);
write_cmd!(PostRecvCmd = IB_USER_VERBS_CMD_POST_RECV(PostRecv) -> PostRecvResp);
write_cmd!(PostSrqRecvCmd = IB_USER_VERBS_CMD_POST_SRQ_RECV(PostSrqRecv) -> PostSrqRecvResp);

/// The outcome of a post through the kernel: its result and, if the kernel
/// named one, the 0-based index of the first work request it did not post.
pub(crate) type PostResult = (Result<()>, Option<usize>);

impl Uverbs {
    /// Posts send work requests through the kernel. `wrs` holds `wr_count`
    /// entries of `wqe_size` bytes (each a `SendWr` or larger) followed by
    /// `sge_count` `Sge`s.
    pub(crate) fn post_send(&self, req: &PostSend, wrs: &[u8]) -> PostResult {
        let (r, resp) = self.write_payload::<PostSendCmd>(req, wrs, &mut []);
        (r, bad_wr(resp.bad_wr))
    }

    /// The rxe doorbell: an empty POST_SEND tells the kernel to process the
    /// send queue the library filled in shared memory. This is the data
    /// path: one write(2) of a fixed 32-byte command built on the stack (as
    /// rdma-core sends it, whatever transport other commands use), with a
    /// 4-byte response; one compare of its result on success (see
    /// `doorbell_ok`), the rest out of line.
    #[inline(always)]
    pub(crate) fn post_send_doorbell(&self, qp_handle: u32) -> Result<()> {
        let mut resp = PostSendResp::default();
        let req = PostSend {
            response: (&raw mut resp) as u64,
            qp_handle,
            wr_count: 0,
            sge_count: 0,
            // sizeof(struct ibv_send_wr), as rdma-core sends it.
            wqe_size: 128,
        };
        let cmd = Doorbell {
            hdr: super::write::CmdHdr {
                command: IB_USER_VERBS_CMD_POST_SEND,
                in_words: (size_of::<Doorbell>() / 4) as u16,
                out_words: (size_of::<PostSendResp>() / 4) as u16,
            },
            req,
        };
        let n = super::sys::write_raw(self.fd(), cmd.as_bytes());
        if n != self.doorbell_ok {
            return self.doorbell_outcome(n);
        }
        Ok(())
    }

    /// A doorbell's result other than a plain success (or any, traced):
    /// errno of a failed write (still this thread's: nothing ran since), EIO
    /// for a short one.
    #[cold]
    #[inline(never)]
    fn doorbell_outcome(&self, n: isize) -> Result<()> {
        let r = match n {
            n if n == size_of::<Doorbell>() as isize => Ok(()),
            n if n < 0 => Err(Errno::last()),
            _ => Err(Errno::EIO),
        };
        if crate::entry::trace_level() >= 2 {
            self.trace_write("POST_SEND (doorbell)", IB_USER_VERBS_CMD_POST_SEND, &r);
        }
        r
    }

    /// As [`Uverbs::post_send`], with `RecvWr` entries.
    pub(crate) fn post_recv(&self, req: &PostRecv, wrs: &[u8]) -> PostResult {
        let (r, resp) = self.write_payload::<PostRecvCmd>(req, wrs, &mut []);
        (r, bad_wr(resp.bad_wr))
    }
    pub(crate) fn post_srq_recv(&self, req: &PostSrqRecv, wrs: &[u8]) -> PostResult {
        let (r, resp) = self.write_payload::<PostSrqRecvCmd>(req, wrs, &mut []);
        (r, bad_wr(resp.bad_wr))
    }
}

/// The kernel counts the failed WR from 1; 0 means it named none.
fn bad_wr(n: u32) -> Option<usize> {
    (n as usize).checked_sub(1)
}
