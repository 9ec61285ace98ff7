//! The netlink wire format: building requests and parsing replies.
//!
//! Everything here works on byte slices with explicit bounds checks, so a
//! malformed reply is an `EINVAL`, never a panic or an out-of-bounds read.

use crate::entry::{Errno, Result};

pub(super) const NLMSG_HDRLEN: usize = 16;
pub(super) const NLA_HDRLEN: usize = 4;

pub(super) const NLMSG_NOOP: u16 = 1;
pub(super) const NLMSG_ERROR: u16 = 2;
pub(super) const NLMSG_DONE: u16 = 3;
pub(super) const NLMSG_OVERRUN: u16 = 4;

pub(super) const NLM_F_REQUEST: u16 = 0x1;
pub(super) const NLM_F_MULTI: u16 = 0x2;
pub(super) const NLM_F_DUMP_INTR: u16 = 0x10;
pub(super) const NLM_F_DUMP: u16 = 0x300;

/// The attribute type bits (the top two are the nested / byte-order flags).
const NLA_TYPE_MASK: u16 = 0x3fff;

/// Attribute types at or above this are ignored (the newest NLDEV one is < 128).
pub(super) const MAX_ATTR: usize = 128;

pub(super) const fn align4(n: usize) -> usize {
    (n + 3) & !3
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A request under construction: header, then attributes.
pub(super) struct Request {
    buf: Vec<u8>,
}

impl Request {
    pub(super) fn new(ty: u16, flags: u16, seq: u32) -> Request {
        let mut buf = Vec::with_capacity(64);
        buf.extend_from_slice(&0u32.to_ne_bytes()); // length, set by finish()
        buf.extend_from_slice(&ty.to_ne_bytes());
        buf.extend_from_slice(&(flags | NLM_F_REQUEST).to_ne_bytes());
        buf.extend_from_slice(&seq.to_ne_bytes());
        buf.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel fills it
        Request { buf }
    }

    fn put(&mut self, ty: u16, data: &[u8]) {
        let len = (NLA_HDRLEN + data.len()) as u16;
        self.buf.extend_from_slice(&len.to_ne_bytes());
        self.buf.extend_from_slice(&ty.to_ne_bytes());
        self.buf.extend_from_slice(data);
        self.buf.resize(align4(self.buf.len()), 0);
    }

    /// A family's fixed header (e.g. `struct rtmsg`), right after the netlink one.
    pub(super) fn header(mut self, h: &[u8]) -> Request {
        self.buf.extend_from_slice(h);
        self.buf.resize(align4(self.buf.len()), 0);
        self
    }

    pub(super) fn put_bytes(mut self, ty: u16, data: &[u8]) -> Request {
        self.put(ty, data);
        self
    }

    pub(super) fn put_u32(mut self, ty: u16, v: u32) -> Request {
        self.put(ty, &v.to_ne_bytes());
        self
    }

    /// A NUL-terminated string attribute.
    pub(super) fn put_str(mut self, ty: u16, s: &str) -> Request {
        let mut data = s.as_bytes().to_vec();
        data.push(0);
        self.put(ty, &data);
        self
    }

    pub(super) fn finish(mut self) -> Vec<u8> {
        let len = self.buf.len() as u32;
        self.buf[..4].copy_from_slice(&len.to_ne_bytes());
        self.buf
    }
}

/// One message of a received datagram.
#[derive(Clone, Copy, Debug)]
pub(super) struct Msg<'a> {
    pub ty: u16,
    pub flags: u16,
    pub seq: u32,
    pub payload: &'a [u8],
}

/// Splits a datagram into its messages. A header that claims more bytes than
/// remain is an error; fewer than a header's worth of trailing bytes is padding.
pub(super) fn split(buf: &[u8]) -> Result<Vec<Msg<'_>>> {
    let mut msgs = Vec::new();
    let mut rest = buf;
    while rest.len() >= NLMSG_HDRLEN {
        let len = u32_at(rest, 0).ok_or(Errno::EINVAL)? as usize;
        if len < NLMSG_HDRLEN || len > rest.len() {
            return Err(Errno::EINVAL);
        }
        msgs.push(Msg {
            ty: u16_at(rest, 4).ok_or(Errno::EINVAL)?,
            flags: u16_at(rest, 6).ok_or(Errno::EINVAL)?,
            seq: u32_at(rest, 8).ok_or(Errno::EINVAL)?,
            payload: &rest[NLMSG_HDRLEN..len],
        });
        rest = rest.get(align4(len)..).unwrap_or(&[]);
    }
    Ok(msgs)
}

/// The errno of an `NLMSG_ERROR` (or `NLMSG_DONE`) payload, which holds a
/// negative errno: 0 is success, a value that is not negative reads as `EIO`.
pub(super) fn error_code(payload: &[u8]) -> Result<i32> {
    let e = u32_at(payload, 0).ok_or(Errno::EINVAL)? as i32;
    Ok(match e {
        0 => 0,
        e if e < 0 && e != i32::MIN => -e,
        _ => libc::EIO,
    })
}

/// The attributes of one message, by type; a repeated type keeps the last one.
pub(super) struct Attrs<'a> {
    slots: [Option<&'a [u8]>; MAX_ATTR],
}

impl<'a> Attrs<'a> {
    /// Parses a message payload (NLDEV messages have no family header).
    /// Any attribute that does not fit in the payload is an error.
    pub(super) fn parse(buf: &'a [u8]) -> Result<Attrs<'a>> {
        let mut slots = [None; MAX_ATTR];
        let mut rest = buf;
        while !rest.is_empty() {
            let len = u16_at(rest, 0).ok_or(Errno::EINVAL)? as usize;
            let ty = (u16_at(rest, 2).ok_or(Errno::EINVAL)? & NLA_TYPE_MASK) as usize;
            if len < NLA_HDRLEN || len > rest.len() {
                return Err(Errno::EINVAL);
            }
            if let Some(slot) = slots.get_mut(ty) {
                *slot = Some(&rest[NLA_HDRLEN..len]);
            }
            rest = rest.get(align4(len)..).unwrap_or(&[]);
        }
        Ok(Attrs { slots })
    }

    pub(super) fn get(&self, ty: u16) -> Option<&'a [u8]> {
        self.slots.get(ty as usize).copied().flatten()
    }

    fn bytes<const N: usize>(&self, ty: u16) -> Option<[u8; N]> {
        self.get(ty)?.get(..N)?.try_into().ok()
    }

    /// The integer getters read the leading bytes, `None` if absent or short.
    pub(super) fn u8(&self, ty: u16) -> Option<u8> {
        self.bytes::<1>(ty).map(|b| b[0])
    }

    pub(super) fn u32(&self, ty: u16) -> Option<u32> {
        self.bytes(ty).map(u32::from_ne_bytes)
    }

    pub(super) fn u64(&self, ty: u16) -> Option<u64> {
        self.bytes(ty).map(u64::from_ne_bytes)
    }

    /// A NUL-terminated UTF-8 string; `None` if absent, unterminated or not UTF-8.
    pub(super) fn str(&self, ty: u16) -> Option<&'a str> {
        let b = self.get(ty)?;
        let end = b.iter().position(|&c| c == 0)?;
        std::str::from_utf8(&b[..end]).ok()
    }
}
