//! The element formats of the rxe rings (`rdma_user_rxe.h`) and safe builders
//! that encode a work request into a ring slot or decode a completion.
//!
//! Sizes and offsets below were measured with a C program compiled against
//! the installed `rdma/rdma_user_rxe.h` and `rdma/ib_user_verbs.h`.

use std::mem::{offset_of, size_of};

use crate::entry::{Errno, Result};
use crate::uverbs::Pod;
use crate::uverbs::pod::kstruct;

/// A CQ element: `struct ib_uverbs_wc`.
pub(crate) use crate::uverbs::cq::Wc as Cqe;
/// `struct rxe_sge`, which has the layout of `ib_uverbs_sge` and `ibv_sge`.
pub(crate) use crate::uverbs::post::Sge;

/// Writes `v`'s bytes to the start of `out`; panics if `out` is shorter.
#[inline]
fn put<T: Pod>(v: &T, out: &mut [u8]) {
    out[..size_of::<T>()].copy_from_slice(v.as_bytes());
}

/// `enum ib_uverbs_wr_opcode` (the same numbers as `ibv_wr_opcode`).
pub(crate) mod opcode {
    pub(crate) const RDMA_WRITE: u32 = 0;
    pub(crate) const RDMA_WRITE_WITH_IMM: u32 = 1;
    pub(crate) const SEND: u32 = 2;
    pub(crate) const SEND_WITH_IMM: u32 = 3;
    pub(crate) const RDMA_READ: u32 = 4;
    pub(crate) const ATOMIC_CMP_AND_SWP: u32 = 5;
    pub(crate) const ATOMIC_FETCH_AND_ADD: u32 = 6;
    pub(crate) const LOCAL_INV: u32 = 7;
    pub(crate) const BIND_MW: u32 = 8;
    pub(crate) const SEND_WITH_INV: u32 = 9;
}

/// `IBV_SEND_INLINE`: the kernel reads the payload from the WQE itself.
pub(crate) const SEND_INLINE: u32 = 1 << 3;

kstruct! {
    /// `wr.rdma` of `struct rxe_send_wr`.
    pub struct Rdma = 16 {
        pub remote_addr: u64,
        pub rkey: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `wr.atomic` of `struct rxe_send_wr`.
    pub struct Atomic = 32 {
        pub remote_addr: u64,
        pub compare_add: u64,
        pub swap: u64,
        pub rkey: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct rxe_global_route` (the layout of `ibv_global_route`); `pad` is
    /// C's implicit tail padding.
    pub struct GlobalRoute = 24 {
        pub dgid: [u8; 16],
        pub flow_label: u32,
        pub sgid_index: u8,
        pub hop_limit: u8,
        pub traffic_class: u8,
        pub pad: u8,
    }
}

kstruct! {
    /// `struct rxe_av`; the address unions (`sockaddr_in` or `sockaddr_in6`)
    /// are kept as bytes.
    pub struct Av = 88 {
        pub port_num: u8,
        pub network_type: u8,
        pub dmac: [u8; 6],
        pub grh: GlobalRoute,
        pub sgid_addr: [u8; 28],
        pub dgid_addr: [u8; 28],
    }
}

kstruct! {
    /// `wr.ud` of `struct rxe_send_wr`.
    pub struct Ud = 120 {
        pub remote_qpn: u32,
        pub remote_qkey: u32,
        pub pkey_index: u16,
        pub reserved: u16,
        pub ah_num: u32,
        pub pad: [u32; 4],
        pub av: Av,
    }
}

kstruct! {
    /// `wr.mw` of `struct rxe_send_wr` (memory window bind).
    pub struct Mw = 32 {
        pub addr: u64,
        pub length: u64,
        pub mr_lkey: u32,
        pub mw_rkey: u32,
        pub rkey: u32,
        pub access: u32,
    }
}

kstruct! {
    /// The `wr` union of `struct rxe_send_wr`, as raw 8-byte-aligned storage;
    /// see [`WrUnion::set`] and [`WrUnion::variant`].
    pub struct WrUnion = 120 {
        pub raw: [u64; 15],
    }
}

impl WrUnion {
    /// Stores variant `v` at the start of the union (the rest unchanged).
    pub(crate) fn set<T: Pod>(&mut self, v: &T) {
        const { assert!(size_of::<T>() <= size_of::<WrUnion>()) };
        self.as_bytes_mut()[..size_of::<T>()].copy_from_slice(v.as_bytes());
    }
}

kstruct! {
    /// `struct rxe_send_wr`; `ex` is `imm_data` (big-endian, stored as given)
    /// or `invalidate_rkey`.
    pub struct SendWr = 144 {
        pub wr_id: u64,
        pub reserved: u32,
        pub opcode: u32,
        pub send_flags: u32,
        pub ex: u32,
        pub wr: WrUnion,
    }
}

kstruct! {
    /// `struct rxe_dma_info` without its trailing area (SGEs or inline data).
    pub struct DmaInfo = 24 {
        pub length: u32,
        pub resid: u32,
        pub cur_sge: u32,
        pub num_sge: u32,
        pub sge_offset: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct rxe_send_wqe`; the SGEs or inline data follow in the slot.
    pub struct SendWqe = 208 {
        pub wr: SendWr,
        pub status: u32,
        pub state: u32,
        pub iova: u64,
        pub mask: u32,
        pub first_psn: u32,
        pub last_psn: u32,
        pub ack_length: u32,
        pub ssn: u32,
        pub has_rd_atomic: u32,
        pub dma: DmaInfo,
    }
}

kstruct! {
    /// `struct rxe_recv_wqe`; the SGEs follow in the slot.
    pub struct RecvWqe = 40 {
        pub wr_id: u64,
        pub reserved: u32,
        pub padding: u32,
        pub dma: DmaInfo,
    }
}

// Offsets from the C headers (the sizes are checked by `kstruct!`).
const _: () = {
    assert!(offset_of!(GlobalRoute, flow_label) == 16 && offset_of!(GlobalRoute, pad) == 23);
    assert!(offset_of!(Av, grh) == 8 && offset_of!(Av, sgid_addr) == 32);
    assert!(offset_of!(Av, dgid_addr) == 60);
    assert!(offset_of!(Ud, ah_num) == 12 && offset_of!(Ud, av) == 32);
    assert!(offset_of!(Atomic, rkey) == 24 && offset_of!(Mw, access) == 28);
    assert!(offset_of!(SendWr, opcode) == 12 && offset_of!(SendWr, ex) == 20);
    assert!(offset_of!(SendWr, wr) == 24);
    assert!(offset_of!(SendWqe, status) == 144 && offset_of!(SendWqe, iova) == 152);
    assert!(offset_of!(SendWqe, ssn) == 176 && offset_of!(SendWqe, dma) == 184);
    assert!(offset_of!(RecvWqe, dma) == 16);
    assert!(size_of::<Sge>() == 16 && offset_of!(Sge, lkey) == 12);
    assert!(size_of::<Cqe>() == 48 && offset_of!(Cqe, ex) == 24);
    assert!(offset_of!(Cqe, pkey_index) == 40 && offset_of!(Cqe, sl) == 44);
};

/// Smallest slot each ring may have (`ProducerQueue::new`'s `min_elem_size`).
pub(crate) const SEND_WQE_SIZE: usize = size_of::<SendWqe>();
pub(crate) const RECV_WQE_SIZE: usize = size_of::<RecvWqe>();
pub(crate) const CQE_SIZE: usize = size_of::<Cqe>();

const AF_INET6: u16 = 10;

impl Av {
    /// The address vector old kernels (no `ah_num`) need in UD WQEs. The
    /// network type follows the destination GID: IPv4 if it is v4-mapped.
    pub(crate) fn new(port_num: u8, grh: GlobalRoute, sgid: [u8; 16], dmac: [u8; 6]) -> Av {
        let v4 = is_v4_mapped(&grh.dgid);
        Av {
            port_num,
            network_type: if v4 { 1 } else { 2 },
            dmac,
            grh,
            sgid_addr: gid_to_sockaddr(&sgid),
            dgid_addr: gid_to_sockaddr(&grh.dgid),
        }
    }
}

fn is_v4_mapped(gid: &[u8; 16]) -> bool {
    gid[..10] == [0; 10] && gid[10..12] == [0xff, 0xff]
}

/// A GID as `sockaddr_in` (v4-mapped) or `sockaddr_in6`. Like rdma-core, the
/// IPv4 form leaves `sin_family` 0: the kernel goes by `network_type`.
fn gid_to_sockaddr(gid: &[u8; 16]) -> [u8; 28] {
    let mut s = [0u8; 28];
    if is_v4_mapped(gid) {
        s[4..8].copy_from_slice(&gid[12..]);
    } else {
        s[..2].copy_from_slice(&AF_INET6.to_ne_bytes());
        s[8..24].copy_from_slice(gid);
    }
    s
}

/// What a send work request does, with its opcode-specific fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendOp {
    Send,
    /// `imm_data` in network byte order, as in `ibv_send_wr`.
    SendWithImm {
        imm_data: u32,
    },
    SendWithInv {
        invalidate_rkey: u32,
    },
    RdmaWrite {
        remote_addr: u64,
        rkey: u32,
    },
    RdmaWriteWithImm {
        remote_addr: u64,
        rkey: u32,
        imm_data: u32,
    },
    RdmaRead {
        remote_addr: u64,
        rkey: u32,
    },
    AtomicCmpSwp {
        remote_addr: u64,
        rkey: u32,
        compare: u64,
        swap: u64,
    },
    AtomicFetchAdd {
        remote_addr: u64,
        rkey: u32,
        add: u64,
    },
    LocalInv {
        invalidate_rkey: u32,
    },
    BindMw(Mw),
    /// An opcode rxe's library does not interpret (rdma-core passes it on
    /// and the kernel completes it in error): `ex` and the RDMA fields as
    /// given.
    Other {
        opcode: u32,
        ex: u32,
        remote_addr: u64,
        rkey: u32,
    },
}

/// The payload: a gather list, or bytes copied into the WQE (`IBV_SEND_INLINE`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Payload<'a> {
    Sge(&'a [Sge]),
    Inline(&'a [&'a [u8]]),
}

/// The destination of a send on a UD QP.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UdDest<'a> {
    pub remote_qpn: u32,
    pub remote_qkey: u32,
    /// The kernel's AH number; 0 on old kernels, which read `av` instead.
    pub ah_num: u32,
    pub av: Option<&'a Av>,
}

/// A send work request in rxe terms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SendReq<'a> {
    pub wr_id: u64,
    pub op: SendOp,
    /// `IBV_SEND_*`; `SEND_INLINE` must agree with `payload`.
    pub send_flags: u32,
    pub payload: Payload<'a>,
    /// Required for sends on UD QPs, refused otherwise.
    pub ud: Option<UdDest<'a>>,
    /// The QP's send sequence number for this WQE.
    pub ssn: u32,
}

/// The send queue's limits as created (`max_send_sge`, `max_inline_data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SendLimits {
    pub max_sge: u32,
    pub max_inline: u32,
}

/// Total length of a gather list; `EINVAL` if it does not fit in 32 bits.
#[inline(always)]
fn sge_length(sges: &[Sge]) -> Result<u32> {
    sges.iter()
        .try_fold(0u32, |n, s| n.checked_add(s.length))
        .ok_or(Errno::EINVAL)
}

/// Writes the `wr` union of `op` into `u` (zeroed) and returns its opcode,
/// `ex` and `iova`.
#[inline(always)]
fn encode_op(op: &SendOp, u: &mut WrUnion) -> (u32, u32, u64) {
    fn rdma(u: &mut WrUnion, remote_addr: u64, rkey: u32) -> u64 {
        u.set(&Rdma {
            remote_addr,
            rkey,
            reserved: 0,
        });
        remote_addr
    }
    fn atomic(u: &mut WrUnion, remote_addr: u64, rkey: u32, compare_add: u64, swap: u64) -> u64 {
        u.set(&Atomic {
            remote_addr,
            compare_add,
            swap,
            rkey,
            reserved: 0,
        });
        remote_addr
    }
    use opcode::*;
    match *op {
        SendOp::Send => (SEND, 0, 0),
        SendOp::SendWithImm { imm_data } => (SEND_WITH_IMM, imm_data, 0),
        SendOp::SendWithInv { invalidate_rkey } => (SEND_WITH_INV, invalidate_rkey, 0),
        SendOp::RdmaWrite { remote_addr, rkey } => (RDMA_WRITE, 0, rdma(u, remote_addr, rkey)),
        SendOp::RdmaWriteWithImm {
            remote_addr,
            rkey,
            imm_data,
        } => (RDMA_WRITE_WITH_IMM, imm_data, rdma(u, remote_addr, rkey)),
        SendOp::RdmaRead { remote_addr, rkey } => (RDMA_READ, 0, rdma(u, remote_addr, rkey)),
        SendOp::AtomicCmpSwp {
            remote_addr,
            rkey,
            compare,
            swap,
        } => (
            ATOMIC_CMP_AND_SWP,
            0,
            atomic(u, remote_addr, rkey, compare, swap),
        ),
        SendOp::AtomicFetchAdd {
            remote_addr,
            rkey,
            add,
        } => (
            ATOMIC_FETCH_AND_ADD,
            0,
            atomic(u, remote_addr, rkey, add, 0),
        ),
        SendOp::LocalInv { invalidate_rkey } => (LOCAL_INV, invalidate_rkey, 0),
        SendOp::BindMw(mw) => {
            u.set(&mw);
            (BIND_MW, 0, 0)
        }
        SendOp::Other {
            opcode,
            ex,
            remote_addr,
            rkey,
        } => (opcode, ex, rdma(u, remote_addr, rkey)),
    }
}

/// Writes a WQE header for `op` in place (zeroed first, no copy of the
/// 208-byte struct); `EINVAL` if the slot cannot hold one.
#[inline(always)]
fn put_header<'a>(
    slot: &'a mut [u8],
    wr_id: u64,
    op: &SendOp,
    send_flags: u32,
    ssn: u32,
) -> Result<&'a mut SendWqe> {
    let w = SendWqe::from_bytes_mut(slot).ok_or(Errno::EINVAL)?;
    *w = SendWqe::default();
    let (opcode, ex, iova) = encode_op(op, &mut w.wr.wr);
    w.wr.wr_id = wr_id;
    w.wr.opcode = opcode;
    w.wr.send_flags = send_flags;
    w.wr.ex = ex;
    w.iova = iova;
    w.ssn = ssn;
    Ok(w)
}

/// Encodes `req` into a send queue slot (`Batch::push_with`):
/// the header and the payload; the rest of the slot is left as it was. Checks as rdma-core's rxe post_send does, with
/// its errno (`EINVAL`): more SGEs than `max_sge`, more inline bytes than
/// `max_inline`, atomics without 8 aligned bytes, a bind with data; and,
/// beyond it, a request that does not fit the slot or mismatches UD.
#[inline(always)]
pub(crate) fn write_send_wqe(slot: &mut [u8], req: &SendReq<'_>, lim: &SendLimits) -> Result<()> {
    let room = slot.len().checked_sub(SEND_WQE_SIZE).ok_or(Errno::EINVAL)?;
    let (num_sge, length, tail) = match req.payload {
        Payload::Sge(s) => (s.len(), sge_length(s)?, size_of_val(s)),
        Payload::Inline(b) => {
            let n = b.iter().try_fold(0usize, |n, b| n.checked_add(b.len()));
            let n = n.ok_or(Errno::EINVAL)?;
            (b.len(), u32::try_from(n).map_err(|_| Errno::EINVAL)?, n)
        }
    };
    let inline = matches!(req.payload, Payload::Inline(_));
    if num_sge > lim.max_sge as usize
        || (inline && length > lim.max_inline)
        || (!inline && req.send_flags & SEND_INLINE != 0)
        || tail > room
    {
        return Err(Errno::EINVAL);
    }
    match req.op {
        SendOp::AtomicCmpSwp { remote_addr, .. } | SendOp::AtomicFetchAdd { remote_addr, .. }
            if length < 8 || remote_addr & 7 != 0 =>
        {
            return Err(Errno::EINVAL);
        }
        SendOp::BindMw(_) if num_sge != 0 || length != 0 => return Err(Errno::EINVAL),
        _ => {}
    }
    let ud = match req.ud {
        Some(ud) => {
            if !matches!(req.op, SendOp::Send | SendOp::SendWithImm { .. }) {
                return Err(Errno::EINVAL);
            }
            let av = match (ud.ah_num, ud.av) {
                (0, None) => return Err(Errno::EINVAL),
                (0, Some(av)) => *av,
                _ => Av::default(),
            };
            Some(Ud {
                remote_qpn: ud.remote_qpn,
                remote_qkey: ud.remote_qkey,
                ah_num: ud.ah_num,
                av,
                ..Ud::default()
            })
        }
        None => None,
    };
    match req.payload {
        Payload::Sge(sges) => {
            write_sges(&mut slot[SEND_WQE_SIZE..], sges)?;
        }
        Payload::Inline(bufs) => {
            let mut at = SEND_WQE_SIZE;
            for b in bufs {
                slot[at..at + b.len()].copy_from_slice(b);
                at += b.len();
            }
        }
    }
    // Only the header and the payload are written (as rdma-core, which
    // leaves the rest of the slot as it was).
    let flags = req.send_flags | if inline { SEND_INLINE } else { 0 };
    let w = put_header(slot, req.wr_id, &req.op, flags, req.ssn)?;
    if let Some(ud) = &ud {
        w.wr.wr.set(ud);
    }
    w.dma = dma_info(length, num_sge);
    Ok(())
}

/// The common `ibv_post_send` case, encoded straight into the slot: a send
/// or RDMA operation (`opcode` one of SEND, SEND_WITH_IMM, RDMA_WRITE,
/// RDMA_WRITE_WITH_IMM, RDMA_READ) on a connected QP with a gather list
/// (`inline_data` None) or inline data. The WQE is byte for byte the one
/// [`write_send_wqe`] writes for the same request (tested), with the same
/// checks, without building a [`SendReq`] first.
///
/// The post path uses its parts ([`write_send_parts`] on a slot split by
/// `Batch::next_parts`, or [`copy_inline`] and [`put_fast_header`]); this
/// whole is what the tests hold against [`write_send_wqe`].
#[cfg(test)]
pub(crate) fn write_send_fast(
    slot: &mut [u8],
    wr: FastWr,
    sges: &[Sge],
    inline_data: Option<&[&[u8]]>,
    lim: &SendLimits,
) -> Result<()> {
    debug_assert!(matches!(
        wr.opcode,
        opcode::SEND
            | opcode::SEND_WITH_IMM
            | opcode::RDMA_WRITE
            | opcode::RDMA_WRITE_WITH_IMM
            | opcode::RDMA_READ
    ));
    let (num_sge, length, flags) = match inline_data {
        None => {
            if sges.len() > lim.max_sge as usize {
                return Err(Errno::EINVAL);
            }
            let (w, tail) = split_slot(slot, sges.len()).ok_or(Errno::EINVAL)?;
            return write_send_parts(w, tail, &wr, sges);
        }
        Some(bufs) => {
            let length = copy_inline(slot, bufs.iter().map(|b| Ok(*b)), lim.max_inline)?;
            (bufs.len(), length, wr.flags | SEND_INLINE)
        }
    };
    if num_sge > lim.max_sge as usize {
        return Err(Errno::EINVAL);
    }
    put_fast_header(slot, &FastWr { flags, ..wr }, length, num_sge)
}

/// Copies inline data after a send WQE header and returns its length:
/// `EINVAL` past `max_inline` bytes or the slot's room, or for a buffer
/// `bufs` refuses.
#[inline(always)]
pub(crate) fn copy_inline<'a>(
    slot: &mut [u8],
    bufs: impl Iterator<Item = Result<&'a [u8]>>,
    max_inline: u32,
) -> Result<u32> {
    let room = slot.len().checked_sub(SEND_WQE_SIZE).ok_or(Errno::EINVAL)?;
    let room = room.min(max_inline as usize);
    let mut at = 0usize;
    for b in bufs {
        let b = b?;
        let end = at.checked_add(b.len()).ok_or(Errno::EINVAL)?;
        if end > room {
            return Err(Errno::EINVAL);
        }
        copy_bytes(&mut slot[SEND_WQE_SIZE + at..SEND_WQE_SIZE + end], b);
        at = end;
    }
    // at <= max_inline, a u32.
    Ok(at as u32)
}

/// `dst.copy_from_slice(src)` (same lengths), without a memcpy call for
/// 1 to 64 bytes (the usual inline sizes): see [`copy_short`].
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    if !copy_short(dst, src) {
        dst.copy_from_slice(src);
    }
}

/// `dst.copy_from_slice(src)` for 0 to 64 bytes, with no call (which would
/// cost the caller's frame registers): two overlapping fixed-size copies,
/// one from each end. False, nothing copied, for other lengths (or
/// lengths that differ).
#[inline(always)]
pub(crate) fn copy_short(dst: &mut [u8], src: &[u8]) -> bool {
    #[inline(always)]
    fn ends<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
        if dst.len() != src.len() || src.len() > 2 * N {
            return false;
        }
        // `dst` and `src` do not overlap (a shared and an exclusive
        // borrow): each chunk goes straight across, no temporary.
        match (dst.first_chunk_mut::<N>(), src.first_chunk::<N>()) {
            (Some(d), Some(a)) => *d = *a,
            _ => return false,
        }
        if let (Some(d), Some(b)) = (dst.last_chunk_mut::<N>(), src.last_chunk::<N>()) {
            *d = *b;
        }
        true
    }
    match src.len() {
        32..=64 => ends::<32>(dst, src),
        16..=31 => ends::<16>(dst, src),
        8..=15 => ends::<8>(dst, src),
        4..=7 => ends::<4>(dst, src),
        2..=3 => ends::<2>(dst, src),
        1 => ends::<1>(dst, src),
        0 => dst.is_empty(),
        _ => false,
    }
}

/// What the common-case header takes from an `ibv_send_wr` (`flags` as
/// they go to the kernel; `remote_addr`/`rkey` are read by the RDMA
/// opcodes only), and the send sequence number it gets (the tests' source;
/// the post path reads the C struct).
#[cfg(test)]
#[derive(Clone, Copy)]
pub(crate) struct FastWr {
    pub wr_id: u64,
    pub opcode: u32,
    pub flags: u32,
    pub imm_data: u32,
    pub remote_addr: u64,
    pub rkey: u32,
    pub ssn: u32,
}

/// Where the common-case header's fields come from: a [`FastWr`], or the
/// caller's `ibv_send_wr` itself (the post path), each field read where it
/// is stored (so the fields are not all held in registers at once).
pub(crate) trait FastSrc {
    fn wr_id(&self) -> u64;
    fn opcode(&self) -> u32;
    /// The flags as they go to the kernel.
    fn flags(&self) -> u32;
    fn imm_data(&self) -> u32;
    fn remote_addr(&self) -> u64;
    fn rkey(&self) -> u32;
    fn ssn(&self) -> u32;
}

#[cfg(test)]
impl FastSrc for FastWr {
    #[inline(always)]
    fn wr_id(&self) -> u64 {
        self.wr_id
    }
    #[inline(always)]
    fn opcode(&self) -> u32 {
        self.opcode
    }
    #[inline(always)]
    fn flags(&self) -> u32 {
        self.flags
    }
    #[inline(always)]
    fn imm_data(&self) -> u32 {
        self.imm_data
    }
    #[inline(always)]
    fn remote_addr(&self) -> u64 {
        self.remote_addr
    }
    #[inline(always)]
    fn rkey(&self) -> u32 {
        self.rkey
    }
    #[inline(always)]
    fn ssn(&self) -> u32 {
        self.ssn
    }
}

/// The header [`write_send_fast`] writes once the payload is in place
/// (`length` bytes in `num_sge` entries). `EINVAL` if the slot cannot hold
/// a header.
#[inline(always)]
pub(crate) fn put_fast_header(
    slot: &mut [u8],
    wr: &impl FastSrc,
    length: u32,
    num_sge: usize,
) -> Result<()> {
    let w = SendWqe::from_bytes_mut(slot).ok_or(Errno::EINVAL)?;
    fill_fast_header(w, wr, length, num_sge);
    Ok(())
}

/// A slot as a header `H` and `n` 16-byte entries after it (what
/// `Batch::next_parts` gives the post path); `None` if they do not fit or
/// the slot is misaligned.
fn split_slot<H: Pod>(slot: &mut [u8], n: usize) -> Option<(&mut H, &mut [[u8; 16]])> {
    let (h, tail) = slot.split_at_mut_checked(size_of::<H>())?;
    let tail = tail.get_mut(..n * 16)?.as_chunks_mut::<16>().0;
    Some((H::from_bytes_mut(h)?, tail))
}

/// [`write_send_fast`] with a gather list, on a slot already split into
/// its header and `sges.len()` entries (`Batch::next_parts`); the caller
/// has checked `max_sge`. The header is zeroed before `wr` is read (the
/// request's fields then go straight from the caller's WR to the slot,
/// not held in registers, or on the stack, across the zeroing).
#[inline(always)]
pub(crate) fn write_send_parts(
    w: &mut SendWqe,
    tail: &mut [[u8; 16]],
    wr: &impl FastSrc,
    sges: &[Sge],
) -> Result<()> {
    clear_fast_header(w);
    let length = copy_sges(tail, sges)?;
    if wr.flags() & SEND_INLINE != 0 {
        return Err(Errno::EINVAL);
    }
    set_fast_header(w, wr, length, sges.len());
    Ok(())
}

#[inline(always)]
pub(crate) fn fill_fast_header(w: &mut SendWqe, wr: &impl FastSrc, length: u32, num_sge: usize) {
    clear_fast_header(w);
    set_fast_header(w, wr, length, num_sge);
}

/// Zeroes the header between `wr_id` and `dma`, which [`set_fast_header`]
/// writes whole (no store twice: two 16-byte stores fewer than zeroing it
/// all).
#[inline(always)]
fn clear_fast_header(w: &mut SendWqe) {
    const {
        assert!(offset_of!(SendWqe, wr) == 0 && offset_of!(SendWr, wr_id) == 0);
        assert!(DMA_OFF + size_of::<DmaInfo>() == SEND_WQE_SIZE);
    };
    w.as_bytes_mut()[size_of::<u64>()..DMA_OFF].fill(0);
}

/// [`fill_fast_header`] on a header cleared by [`clear_fast_header`].
#[inline(always)]
fn set_fast_header(w: &mut SendWqe, wr: &impl FastSrc, length: u32, num_sge: usize) {
    w.wr.wr_id = wr.wr_id();
    let op = wr.opcode();
    w.wr.opcode = op;
    w.wr.send_flags = wr.flags();
    // The fast path's opcodes (RDMA write 0, with imm 1, send 2, with imm
    // 3, RDMA read 4) told apart by their bits: the odd ones carry
    // immediate data, all but the sends a remote address.
    debug_assert!(op <= opcode::RDMA_READ);
    const {
        use opcode::*;
        assert!(SEND_WITH_IMM & 1 == 1 && RDMA_WRITE_WITH_IMM & 1 == 1);
        assert!(SEND & 1 == 0 && RDMA_WRITE & 1 == 0 && RDMA_READ & 1 == 0);
        assert!(SEND | 1 == SEND_WITH_IMM);
        assert!(RDMA_WRITE | 1 != SEND_WITH_IMM && RDMA_READ | 1 != SEND_WITH_IMM);
    };
    if op & 1 != 0 {
        w.wr.ex = wr.imm_data();
    }
    if op | 1 != opcode::SEND_WITH_IMM {
        let remote_addr = wr.remote_addr();
        w.wr.wr.set(&Rdma {
            remote_addr,
            rkey: wr.rkey(),
            reserved: 0,
        });
        w.iova = remote_addr;
    }
    w.ssn = wr.ssn();
    w.dma = dma_info(length, num_sge);
}

// ---- the `ibv_wr_*` API: a builder writes a WQE, setters amend it ----------

/// Writes the header of a WQE for `op` with no payload (`ibv_wr_send` and
/// the other builders); the setters below then fill in the rest.
/// `EINVAL` if the slot cannot hold a WQE.
pub(crate) fn write_send_header(
    slot: &mut [u8],
    wr_id: u64,
    op: &SendOp,
    send_flags: u32,
    ssn: u32,
) -> Result<()> {
    put_header(slot, wr_id, op, send_flags, ssn).map(|_| ())
}

const DMA_OFF: usize = offset_of!(SendWqe, dma);
const FLAGS_OFF: usize = offset_of!(SendWqe, wr) + offset_of!(SendWr, send_flags);
const WR_OFF: usize = offset_of!(SendWqe, wr) + offset_of!(SendWr, wr);

fn set_dma(slot: &mut [u8], length: u32, num_sge: u32) {
    put(&dma_info(length, num_sge as usize), &mut slot[DMA_OFF..]);
}

/// `ibv_wr_set_sge_list` on a WQE written by [`write_send_header`]:
/// `ENOSPC` (as rdma-core) for more than `max_sge` entries, `EINVAL` if
/// they do not fit the slot or their length overflows.
pub(crate) fn set_send_sges(slot: &mut [u8], sges: &[Sge], max_sge: u32) -> Result<()> {
    if sges.len() > max_sge as usize {
        return Err(Errno(libc::ENOSPC));
    }
    if SEND_WQE_SIZE + size_of_val(sges) > slot.len() {
        return Err(Errno::EINVAL);
    }
    let length = write_sges(&mut slot[SEND_WQE_SIZE..], sges)?;
    set_dma(slot, length, sges.len() as u32);
    Ok(())
}

/// `ibv_wr_set_inline_data(_list)`: copies the buffers into the WQE and
/// marks it inline. `ENOSPC` (as rdma-core) past `max_inline` bytes.
pub(crate) fn set_send_inline<'a>(
    slot: &mut [u8],
    bufs: impl Iterator<Item = &'a [u8]>,
    max_inline: u32,
) -> Result<()> {
    let room = (max_inline as usize).min(slot.len().saturating_sub(SEND_WQE_SIZE));
    let mut at = 0usize;
    for b in bufs {
        let end = at.checked_add(b.len()).ok_or(Errno(libc::ENOSPC))?;
        if end > room {
            return Err(Errno(libc::ENOSPC));
        }
        slot[SEND_WQE_SIZE + at..SEND_WQE_SIZE + end].copy_from_slice(b);
        at = end;
    }
    set_dma(slot, at as u32, 0);
    let f = &mut slot[FLAGS_OFF..FLAGS_OFF + 4];
    let flags = u32::from_ne_bytes((&*f).try_into().expect("4 bytes")) | SEND_INLINE;
    f.copy_from_slice(&flags.to_ne_bytes());
    Ok(())
}

/// `ibv_wr_atomic_write`'s 8 bytes, carried in the WQE.
pub(crate) fn set_atomic_write(slot: &mut [u8], data: &[u8]) -> Result<()> {
    let end = SEND_WQE_SIZE + data.len();
    if data.len() != 8 || slot.len() < end {
        return Err(Errno::EINVAL);
    }
    slot[SEND_WQE_SIZE..end].copy_from_slice(data);
    set_dma(slot, 8, 0);
    Ok(())
}

kstruct! {
    /// `wr.flush` of `struct rxe_send_wr` (kernels from 6.2 on); `pad` is C's
    /// implicit tail padding.
    pub struct Flush = 24 {
        pub remote_addr: u64,
        pub length: u32,
        pub rkey: u32,
        pub type_: u8,
        pub level: u8,
        pub pad: [u8; 6],
    }
}

/// `ibv_wr_flush` (rdma-core 64) on a WQE written by [`write_send_header`]:
/// the flush fields replace the RDMA ones and the range's length is the
/// WQE's DMA length, as rdma-core's rxe encodes it.
pub(crate) fn set_flush(slot: &mut [u8], f: &Flush) -> Result<()> {
    put(f, slot.get_mut(WR_OFF..).ok_or(Errno::EINVAL)?);
    set_dma(slot, f.length, 0);
    Ok(())
}

/// `ibv_wr_set_ud_addr`: the UD destination of the WQE.
pub(crate) fn set_send_ud(slot: &mut [u8], ud: &UdDest<'_>) -> Result<()> {
    let av = match (ud.ah_num, ud.av) {
        (0, None) => return Err(Errno::EINVAL),
        (0, Some(av)) => *av,
        _ => Av::default(),
    };
    let u = Ud {
        remote_qpn: ud.remote_qpn,
        remote_qkey: ud.remote_qkey,
        ah_num: ud.ah_num,
        av,
        ..Ud::default()
    };
    put(&u, slot.get_mut(WR_OFF..).ok_or(Errno::EINVAL)?);
    Ok(())
}

#[inline(always)]
fn dma_info(length: u32, num_sge: usize) -> DmaInfo {
    DmaInfo {
        length,
        resid: length,
        // Bounded by max_sge (a u32) before we get here.
        num_sge: num_sge as u32,
        ..DmaInfo::default()
    }
}

/// Copies the gather list after a WQE header (one fixed-size copy per SGE,
/// no memcpy call) and returns its total length; `EINVAL` if that overflows.
/// `dst` has room (checked by callers).
#[inline(always)]
fn write_sges(dst: &mut [u8], sges: &[Sge]) -> Result<u32> {
    let mut length = 0u32;
    for (d, s) in dst
        .as_chunks_mut::<{ size_of::<Sge>() }>()
        .0
        .iter_mut()
        .zip(sges)
    {
        d.copy_from_slice(s.as_bytes());
        length = length.checked_add(s.length).ok_or(Errno::EINVAL)?;
    }
    Ok(length)
}

/// Copies the gather list into `dst`'s entries (as many as `sges` has, which
/// the caller sized them to) and returns its total length; `EINVAL` if that
/// overflows.
#[inline(always)]
fn copy_sges(dst: &mut [[u8; 16]], sges: &[Sge]) -> Result<u32> {
    let mut length = 0u32;
    for (d, s) in dst.iter_mut().zip(sges) {
        d.copy_from_slice(s.as_bytes());
        length = length.checked_add(s.length).ok_or(Errno::EINVAL)?;
    }
    Ok(length)
}

/// [`write_recv_wqe`] on a slot already split into its header and
/// `sges.len()` entries (`Batch::next_parts`); the caller has checked
/// `max_sge`.
#[inline(always)]
pub(crate) fn write_recv_parts(
    w: &mut RecvWqe,
    tail: &mut [[u8; 16]],
    wr_id: u64,
    sges: &[Sge],
) -> Result<()> {
    let length = copy_sges(tail, sges)?;
    *w = RecvWqe {
        wr_id,
        dma: dma_info(length, sges.len()),
        ..RecvWqe::default()
    };
    Ok(())
}

/// Encodes a receive work request into a receive queue or SRQ slot.
/// `EINVAL` for more SGEs than `max_sge` (as rdma-core) or than the slot holds.
#[inline(always)]
pub(crate) fn write_recv_wqe(
    slot: &mut [u8],
    wr_id: u64,
    sges: &[Sge],
    max_sge: u32,
) -> Result<()> {
    if sges.len() > max_sge as usize {
        return Err(Errno::EINVAL);
    }
    let (w, tail) = split_slot(slot, sges.len()).ok_or(Errno::EINVAL)?;
    write_recv_parts(w, tail, wr_id, sges)
}

/// Decodes the completion in a CQ slot (`ConsumerQueue::drain`);
/// `EINVAL` if the slot is too small to hold one.
pub(crate) fn read_cqe(slot: &[u8]) -> Result<Cqe> {
    let b = slot.get(..CQE_SIZE).ok_or(Errno::EINVAL)?;
    Ok(Cqe::from_prefix(b))
}

#[cfg(test)]
mod tests;
