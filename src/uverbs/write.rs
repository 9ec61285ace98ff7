//! The legacy write() transport: `ib_uverbs_cmd_hdr` commands, the `_ex` commands
//! with `ib_uverbs_ex_cmd_hdr`, and the same commands tunnelled through the
//! `INVOKE_WRITE` ioctl method when the kernel has it.

use super::channel::Uverbs;
use super::ids::*;
use super::ioctl::IoctlCmd;
use super::pod::Pod;
use super::sys;
use crate::entry::{Errno, Result};

kstruct! {
    /// `struct ib_uverbs_cmd_hdr`; `in_words`/`out_words` count 4-byte units.
    pub struct CmdHdr = 8 {
        pub command: u32,
        pub in_words: u16,
        pub out_words: u16,
    }
}

kstruct! {
    /// `struct ib_uverbs_ex_cmd_hdr`; follows `CmdHdr` in `_ex` commands, whose
    /// word counts are all 8-byte units and exclude both headers.
    pub struct ExCmdHdr = 16 {
        pub response: u64,
        pub provider_in_words: u16,
        pub provider_out_words: u16,
        pub cmd_hdr_reserved: u32,
    }
}

/// Marks an `_ex` command in `CmdHdr::command`.
pub(crate) const IB_USER_VERBS_CMD_FLAG_EXTENDED: u32 = 0x8000_0000;

// enum ib_uverbs_write_cmds
pub(crate) const IB_USER_VERBS_CMD_GET_CONTEXT: u32 = 0;
pub(crate) const IB_USER_VERBS_CMD_QUERY_DEVICE: u32 = 1;
pub(crate) const IB_USER_VERBS_CMD_QUERY_PORT: u32 = 2;
pub(crate) const IB_USER_VERBS_CMD_ALLOC_PD: u32 = 3;
pub(crate) const IB_USER_VERBS_CMD_DEALLOC_PD: u32 = 4;
pub(crate) const IB_USER_VERBS_CMD_CREATE_AH: u32 = 5;
pub(crate) const IB_USER_VERBS_CMD_DESTROY_AH: u32 = 8;
pub(crate) const IB_USER_VERBS_CMD_REG_MR: u32 = 9;
pub(crate) const IB_USER_VERBS_CMD_REREG_MR: u32 = 11;
pub(crate) const IB_USER_VERBS_CMD_DEREG_MR: u32 = 13;
pub(crate) const IB_USER_VERBS_CMD_ALLOC_MW: u32 = 14;
pub(crate) const IB_USER_VERBS_CMD_DEALLOC_MW: u32 = 16;
pub(crate) const IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL: u32 = 17;
pub(crate) const IB_USER_VERBS_CMD_CREATE_CQ: u32 = 18;
pub(crate) const IB_USER_VERBS_CMD_RESIZE_CQ: u32 = 19;
pub(crate) const IB_USER_VERBS_CMD_DESTROY_CQ: u32 = 20;
pub(crate) const IB_USER_VERBS_CMD_POLL_CQ: u32 = 21;
pub(crate) const IB_USER_VERBS_CMD_REQ_NOTIFY_CQ: u32 = 23;
pub(crate) const IB_USER_VERBS_CMD_CREATE_QP: u32 = 24;
pub(crate) const IB_USER_VERBS_CMD_QUERY_QP: u32 = 25;
pub(crate) const IB_USER_VERBS_CMD_MODIFY_QP: u32 = 26;
pub(crate) const IB_USER_VERBS_CMD_DESTROY_QP: u32 = 27;
pub(crate) const IB_USER_VERBS_CMD_POST_SEND: u32 = 28;
pub(crate) const IB_USER_VERBS_CMD_POST_RECV: u32 = 29;
pub(crate) const IB_USER_VERBS_CMD_ATTACH_MCAST: u32 = 30;
pub(crate) const IB_USER_VERBS_CMD_DETACH_MCAST: u32 = 31;
pub(crate) const IB_USER_VERBS_CMD_CREATE_SRQ: u32 = 32;
pub(crate) const IB_USER_VERBS_CMD_MODIFY_SRQ: u32 = 33;
pub(crate) const IB_USER_VERBS_CMD_QUERY_SRQ: u32 = 34;
pub(crate) const IB_USER_VERBS_CMD_DESTROY_SRQ: u32 = 35;
pub(crate) const IB_USER_VERBS_CMD_POST_SRQ_RECV: u32 = 36;
pub(crate) const IB_USER_VERBS_CMD_OPEN_XRCD: u32 = 37;
pub(crate) const IB_USER_VERBS_CMD_CLOSE_XRCD: u32 = 38;
pub(crate) const IB_USER_VERBS_CMD_CREATE_XSRQ: u32 = 39;
pub(crate) const IB_USER_VERBS_CMD_OPEN_QP: u32 = 40;

// Extended commands reuse the numbers of their legacy twins.
pub(crate) const IB_USER_VERBS_EX_CMD_QUERY_DEVICE: u32 = IB_USER_VERBS_CMD_QUERY_DEVICE;
pub(crate) const IB_USER_VERBS_EX_CMD_CREATE_CQ: u32 = IB_USER_VERBS_CMD_CREATE_CQ;
pub(crate) const IB_USER_VERBS_EX_CMD_CREATE_QP: u32 = IB_USER_VERBS_CMD_CREATE_QP;
pub(crate) const IB_USER_VERBS_EX_CMD_MODIFY_QP: u32 = IB_USER_VERBS_CMD_MODIFY_QP;
pub(crate) const IB_USER_VERBS_EX_CMD_CREATE_FLOW: u32 = 50;
pub(crate) const IB_USER_VERBS_EX_CMD_DESTROY_FLOW: u32 = 51;
pub(crate) const IB_USER_VERBS_EX_CMD_CREATE_WQ: u32 = 52;
pub(crate) const IB_USER_VERBS_EX_CMD_MODIFY_WQ: u32 = 53;
pub(crate) const IB_USER_VERBS_EX_CMD_DESTROY_WQ: u32 = 54;
pub(crate) const IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL: u32 = 55;
pub(crate) const IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL: u32 = 56;
pub(crate) const IB_USER_VERBS_EX_CMD_MODIFY_CQ: u32 = 57;

/// A legacy write() command: `CmdHdr`, then `Req`, then driver data.
///
/// If `Resp` is not `()`, `Req` starts with the `u64 response` field: the kernel
/// writes `Resp` followed by the driver's response at that address, which this
/// layer fills in (leave it 0).
pub(crate) trait WriteCmd {
    const NAME: &'static str;
    const CMD: u32;
    type Req: Pod;
    type Resp: Pod;
}

/// An extended write() command: `CmdHdr`, `ExCmdHdr`, `Req`, then driver data.
/// Sizes of `Req`, `Resp` and the driver data must be multiples of 8.
pub(crate) trait WriteExCmd {
    const NAME: &'static str;
    const CMD: u32;
    type Req: Pod;
    type Resp: Pod;
}

/// Commands up to this size are built on the stack (the rxe doorbell is one).
const STACK_BUF: usize = 256;

/// Runs `f` on a zeroed scratch buffer of `len` bytes, on the stack when small.
fn with_buf<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    if len <= STACK_BUF {
        let mut b = [0u8; STACK_BUF];
        f(&mut b[..len])
    } else {
        f(&mut vec![0u8; len])
    }
}

/// The legacy header: both sizes in 4-byte words, the request size including it.
pub(crate) fn legacy_hdr(cmd: u32, req_len: usize, resp_len: usize) -> Result<CmdHdr> {
    let total = size_of::<CmdHdr>() + req_len;
    if !total.is_multiple_of(4) || !resp_len.is_multiple_of(4) {
        return Err(Errno::EINVAL);
    }
    Ok(CmdHdr {
        command: cmd,
        in_words: words(total, 4)?,
        out_words: words(resp_len, 4)?,
    })
}

/// The extended headers: core and driver sizes separately, in 8-byte words,
/// not counting the headers. `response` is filled in when the command is sent.
pub(crate) fn ex_hdrs(
    cmd: u32,
    core_in: usize,
    drv_in: usize,
    core_out: usize,
    drv_out: usize,
) -> Result<(CmdHdr, ExCmdHdr)> {
    if [core_in, drv_in, core_out, drv_out]
        .iter()
        .any(|n| n % 8 != 0)
    {
        return Err(Errno::EINVAL);
    }
    let hdr = CmdHdr {
        command: cmd | IB_USER_VERBS_CMD_FLAG_EXTENDED,
        in_words: words(core_in, 8)?,
        out_words: words(core_out, 8)?,
    };
    let ex = ExCmdHdr {
        response: 0,
        provider_in_words: words(drv_in, 8)?,
        provider_out_words: words(drv_out, 8)?,
        cmd_hdr_reserved: 0,
    };
    Ok((hdr, ex))
}

fn words(len: usize, unit: usize) -> Result<u16> {
    u16::try_from(len / unit).map_err(|_| Errno::EINVAL)
}

/// How the bytes after the core request/response are labelled for `INVOKE_WRITE`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// Driver data (`UHW_IN`/`UHW_OUT`).
    Driver,
    /// Part of the core command: work requests, completions.
    Core,
}

impl Uverbs {
    /// Sends a legacy command; returns the core response, the driver's response
    /// lands in `drv_out`. `drv_in`/`drv_out` lengths must be multiples of 4.
    pub(crate) fn write<C: WriteCmd>(
        &self,
        req: &C::Req,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<C::Resp> {
        let (r, resp) = self.write_legacy::<C>(req, drv_in, drv_out, Tail::Driver);
        r.map(|()| resp)
    }

    /// As [`Uverbs::write`], for commands whose variable part is not driver data
    /// but core payload (POST_SEND/POST_RECV/POST_SRQ_RECV work requests,
    /// POLL_CQ completions). The response is returned even when the command
    /// failed, as the post commands report the failing WR in it.
    pub(crate) fn write_payload<C: WriteCmd>(
        &self,
        req: &C::Req,
        payload_in: &[u8],
        payload_out: &mut [u8],
    ) -> (Result<()>, C::Resp) {
        self.write_legacy::<C>(req, payload_in, payload_out, Tail::Core)
    }

    fn write_legacy<C: WriteCmd>(
        &self,
        req: &C::Req,
        tail_in: &[u8],
        tail_out: &mut [u8],
        tail: Tail,
    ) -> (Result<()>, C::Resp) {
        let core = req.as_bytes();
        let core_out = size_of::<C::Resp>();
        let has_resp = core_out + tail_out.len() > 0;
        if has_resp && core.len() < 8 {
            return (Err(Errno::EINVAL), C::Resp::zeroed());
        }
        if tail == Tail::Driver && self.ioctl_write() {
            // The ioctl takes each part by its own pointer: no copies, and no
            // header to build, only its limits to keep (the same requests
            // fail as with write()). What the kernel leaves of the responses
            // reads as zero, as with write().
            let (n_in, n_out) = (
                size_of::<CmdHdr>() + core.len() + tail_in.len(),
                core_out + tail_out.len(),
            );
            if n_in % 4 != 0 || n_out % 4 != 0 || n_in / 4 > 0xffff || n_out / 4 > 0xffff {
                return (Err(Errno::EINVAL), C::Resp::zeroed());
            }
            let mut resp = C::Resp::zeroed();
            // Tested first: most commands have no driver response, and a
            // fill of an empty slice whose length is only known here is
            // still a memset call.
            if !tail_out.is_empty() {
                tail_out.fill(0);
            }
            let r = self.invoke_write(C::CMD, core, tail_in, resp.as_bytes_mut(), tail_out);
            self.trace_write(C::NAME, C::CMD, &r);
            return (r, resp);
        }
        let hdr = match legacy_hdr(
            C::CMD,
            core.len() + tail_in.len(),
            core_out + tail_out.len(),
        ) {
            Ok(h) => h,
            Err(e) => return (Err(e), C::Resp::zeroed()),
        };
        let hlen = size_of::<CmdHdr>();
        let (r, resp) = with_buf(hlen + core.len() + tail_in.len(), |buf| {
            buf[..hlen].copy_from_slice(hdr.as_bytes());
            buf[hlen..hlen + core.len()].copy_from_slice(core);
            buf[hlen + core.len()..].copy_from_slice(tail_in);
            with_buf(core_out + tail_out.len(), |resp| {
                let r = if self.ioctl_write() {
                    // Work requests and completions are part of the core buffers.
                    self.invoke_write(C::CMD, &buf[hlen..], &[], resp, &mut [])
                } else if has_resp {
                    // The legacy `response` field is the first u64 of the core request.
                    sys::write_cmd_resp(self.fd(), buf, hlen, resp)
                } else {
                    sys::write_cmd(self.fd(), buf)
                };
                tail_out.copy_from_slice(&resp[core_out..]);
                (r, C::Resp::from_prefix(&resp[..core_out]))
            })
        });
        self.trace_write(C::NAME, C::CMD, &r);
        (r, resp)
    }

    /// Sends an extended command; as [`Uverbs::write`] but lengths are multiples of 8.
    pub(crate) fn write_ex<C: WriteExCmd>(
        &self,
        req: &C::Req,
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<C::Resp> {
        self.write_ex_core::<C>(req.as_bytes(), drv_in, drv_out)
    }

    /// As [`Uverbs::write_ex`], for a core request longer than `C::Req`: the
    /// struct and the array the kernel reads after it (flow specs, WQ handles).
    pub(crate) fn write_ex_core<C: WriteExCmd>(
        &self,
        core: &[u8],
        drv_in: &[u8],
        drv_out: &mut [u8],
    ) -> Result<C::Resp> {
        let mut resp = C::Resp::zeroed();
        self.write_ex_into::<C>(core, drv_in, drv_out, &mut resp)
            .map(|()| resp)
    }

    /// As [`Uverbs::write_ex_core`], the response written into `resp`,
    /// which the caller has zeroed: for a large response (EX_QUERY_DEVICE's
    /// 248 bytes), no copy of it on the way back.
    pub(crate) fn write_ex_into<C: WriteExCmd>(
        &self,
        core: &[u8],
        drv_in: &[u8],
        drv_out: &mut [u8],
        resp: &mut C::Resp,
    ) -> Result<()> {
        let r = self.write_ex_inner::<C>(core, drv_in, drv_out, resp);
        self.trace_write(C::NAME, C::CMD | IB_USER_VERBS_CMD_FLAG_EXTENDED, &r);
        r
    }

    /// `resp` is zeroed on entry: what the kernel leaves of it reads as zero.
    fn write_ex_inner<C: WriteExCmd>(
        &self,
        core: &[u8],
        drv_in: &[u8],
        drv_out: &mut [u8],
        resp: &mut C::Resp,
    ) -> Result<()> {
        let core_out = size_of::<C::Resp>();
        let (hdr, ex) = ex_hdrs(C::CMD, core.len(), drv_in.len(), core_out, drv_out.len())?;
        if self.ioctl_write() {
            if !drv_out.is_empty() {
                drv_out.fill(0);
            }
            let cmd = C::CMD | IB_USER_VERBS_CMD_FLAG_EXTENDED;
            return self.invoke_write(cmd, core, drv_in, resp.as_bytes_mut(), drv_out);
        }
        let hlen = size_of::<CmdHdr>() + size_of::<ExCmdHdr>();
        with_buf(hlen + core.len() + drv_in.len(), |buf| {
            buf[..size_of::<CmdHdr>()].copy_from_slice(hdr.as_bytes());
            buf[size_of::<CmdHdr>()..hlen].copy_from_slice(ex.as_bytes());
            buf[hlen..hlen + core.len()].copy_from_slice(core);
            buf[hlen + core.len()..].copy_from_slice(drv_in);
            with_buf(core_out + drv_out.len(), |r| {
                // `ExCmdHdr::response` sits right after `CmdHdr`.
                sys::write_cmd_resp(self.fd(), buf, size_of::<CmdHdr>(), r)?;
                drv_out.copy_from_slice(&r[core_out..]);
                *resp = C::Resp::from_prefix(&r[..core_out]);
                Ok(())
            })
        })
    }

    /// A write command carried by `UVERBS_METHOD_INVOKE_WRITE`: the kernel takes
    /// the response buffers from the attributes and ignores `response` fields.
    /// Requests and responses each have a core part and the driver's part.
    /// Inlined into each command's `write`: called out of line, its slices
    /// and its frame cost about 50 instructions per command (REG_MR).
    #[inline(always)]
    fn invoke_write(
        &self,
        cmd: u32,
        req_core: &[u8],
        req_drv: &[u8],
        resp_core: &mut [u8],
        resp_drv: &mut [u8],
    ) -> Result<()> {
        let mut c = IoctlCmd::new(
            "INVOKE_WRITE",
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_INVOKE_WRITE,
        );
        c.const_in(UVERBS_ATTR_WRITE_CMD, cmd as u64);
        if !req_core.is_empty() {
            c.ptr_in(UVERBS_ATTR_CORE_IN, req_core);
        }
        if !resp_core.is_empty() {
            c.ptr_out(UVERBS_ATTR_CORE_OUT, resp_core);
        }
        c.uhw(req_drv, resp_drv);
        self.ioctl(&mut c)
    }
}

/// Declares a marker type for a legacy write() command.
macro_rules! write_cmd {
    ($(#[$m:meta])* $ty:ident = $cmd:ident($req:ty) -> $resp:ty) => {
        $(#[$m])*
        pub(crate) struct $ty;
        impl $crate::uverbs::write::WriteCmd for $ty {
            const NAME: &'static str = stringify!($cmd);
            const CMD: u32 = $crate::uverbs::write::$cmd;
            type Req = $req;
            type Resp = $resp;
        }
    };
}

/// Declares a marker type for an extended write() command.
macro_rules! write_ex_cmd {
    ($(#[$m:meta])* $ty:ident = $cmd:ident($req:ty) -> $resp:ty) => {
        $(#[$m])*
        pub(crate) struct $ty;
        impl $crate::uverbs::write::WriteExCmd for $ty {
            const NAME: &'static str = stringify!($cmd);
            const CMD: u32 = $crate::uverbs::write::$cmd;
            type Req = $req;
            type Resp = $resp;
        }
    };
}
