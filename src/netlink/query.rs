//! One request and its replies, over any [`Transport`] (a socket, or a script in tests).

use super::msg::{
    Attrs, Msg, NLM_F_DUMP_INTR, NLM_F_MULTI, NLMSG_DONE, NLMSG_ERROR, NLMSG_NOOP, NLMSG_OVERRUN,
    Request, error_code, split,
};
use crate::entry::{Errno, Result, trace_level, trace_line};

/// Where requests go and replies come from.
pub(super) trait Transport {
    fn send(&mut self, req: &[u8]) -> Result<()>;
    /// Receives one datagram into `buf`, returning its full length (which may
    /// exceed `buf.len()` if it was truncated).
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize>;
}

/// Larger than any dump datagram the kernel builds (at most 32 KiB).
const RECV_BUF: usize = 64 * 1024;

/// Bounds one exchange, so a peer that never says "done" cannot keep us looping.
const MAX_DATAGRAMS: usize = 1 << 16;

/// A transport and the sequence numbers of the requests sent over it.
pub(super) struct Conn<T> {
    t: T,
    seq: u32,
    buf: Vec<u8>,
}

impl<T: Transport> Conn<T> {
    pub(super) fn new(t: T) -> Conn<T> {
        Conn {
            t,
            seq: 0,
            buf: vec![0; RECV_BUF],
        }
    }

    #[cfg(test)]
    pub(super) fn transport(&self) -> &T {
        &self.t
    }

    /// Sends a request of type `ty` (attributes added by `build`) and passes the
    /// attributes of every reply message to `on_msg`. Returns how many there were.
    pub(super) fn exchange(
        &mut self,
        name: &str,
        ty: u16,
        flags: u16,
        build: impl FnOnce(Request) -> Request,
        mut on_msg: impl FnMut(&Attrs<'_>) -> Result<()>,
    ) -> Result<usize> {
        self.exchange_raw(name, ty, flags, build, |m| {
            on_msg(&Attrs::parse(m.payload)?)
        })
    }

    /// As [`Conn::exchange`], passing each reply message whole (for families
    /// whose messages start with a fixed header before the attributes).
    pub(super) fn exchange_raw(
        &mut self,
        name: &str,
        ty: u16,
        flags: u16,
        build: impl FnOnce(Request) -> Request,
        mut on_msg: impl FnMut(&Msg<'_>) -> Result<()>,
    ) -> Result<usize> {
        self.seq = self.seq.wrapping_add(1);
        let req = build(Request::new(ty, flags, self.seq)).finish();
        let r = self.run(&req, &mut on_msg);
        if trace_level() >= 2 {
            match &r {
                Ok(n) => trace_line(format_args!("netlink {name} = {n} message(s)")),
                Err(e) => trace_line(format_args!("netlink {name} = error {e:?}")),
            }
        }
        r
    }

    fn run(
        &mut self,
        req: &[u8],
        on_msg: &mut impl FnMut(&Msg<'_>) -> Result<()>,
    ) -> Result<usize> {
        self.t.send(req)?;
        let mut count = 0;
        for _ in 0..MAX_DATAGRAMS {
            let n = self.t.recv(&mut self.buf)?;
            let dgram = self.buf.get(..n).ok_or(Errno(libc::EMSGSIZE))?;
            if process_raw(dgram, self.seq, &mut count, on_msg)? {
                return Ok(count);
            }
        }
        Err(Errno::EIO)
    }
}

/// Handles one datagram of replies to request `seq`; true once the exchange is
/// over: after `NLMSG_DONE`, an acknowledgement, or a datagram holding a
/// message that is not part of a multipart reply.
#[cfg(test)]
pub(super) fn process(
    dgram: &[u8],
    seq: u32,
    count: &mut usize,
    on_msg: &mut impl FnMut(&Attrs<'_>) -> Result<()>,
) -> Result<bool> {
    process_raw(dgram, seq, count, &mut |m| {
        on_msg(&Attrs::parse(m.payload)?)
    })
}

/// [`process`] with the whole messages.
pub(super) fn process_raw(
    dgram: &[u8],
    seq: u32,
    count: &mut usize,
    on_msg: &mut impl FnMut(&Msg<'_>) -> Result<()>,
) -> Result<bool> {
    let mut done = false;
    for m in split(dgram)? {
        if m.seq != seq {
            continue; // a late reply to an earlier request
        }
        match m.ty {
            NLMSG_NOOP => {}
            NLMSG_ERROR => match error_code(m.payload)? {
                0 => done = true,
                e => return Err(Errno(e)),
            },
            // The payload of DONE is the dump's own result, when the kernel sends one.
            NLMSG_DONE => match error_code(m.payload) {
                Ok(e) if e != 0 => return Err(Errno(e)),
                _ => return Ok(true),
            },
            NLMSG_OVERRUN => return Err(Errno::EIO),
            _ => {
                // The device list changed during the dump: what we have is inconsistent.
                if m.flags & NLM_F_DUMP_INTR != 0 {
                    return Err(Errno(libc::EINTR));
                }
                on_msg(&m)?;
                *count += 1;
                if m.flags & NLM_F_MULTI == 0 {
                    done = true;
                }
            }
        }
    }
    Ok(done)
}
