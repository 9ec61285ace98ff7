//! The rxe post path: `ibv_post_send`, `ibv_post_recv`, `ibv_post_srq_recv`
//! and `ibv_bind_mw`, the `ibv_context_ops` slots verbs.h inline code calls
//! directly. Work requests are encoded into the shared rings under the
//! queue's spin lock; sends are followed by the doorbell (an empty POST_SEND).
//!
//! Hot-path rules: no allocation, no registry lookup, no formatting; objects
//! are reached from their C pointers with one slab check (`qp::pin`: an
//! address check, then the slot's live bit, see `crate::object::slab`), held for
//! the call; contexts opened with tracing off install the `_untraced`
//! twins (`#[entry(untraced = ..)]`), which load no global per call.
#![allow(unsafe_code)]

use std::ffi::c_int;

use super::obj::qp::{self, QpState, RxeQp, SqInner};
use super::queue::Batch;
use super::wqe::{self, Payload, SendOp, SendReq, Sge, UdDest};
use crate::abi::*;
use crate::context::generic::{mr, mw};
use crate::entry::{Errno, Result};
use crate::object::slab::Pinned;

/// rxe's largest SGE count (`RXE_MAX_SGE`); inline gather lists longer than
/// this are refused (they exceed any QP's `max_send_sge` anyway).
const MAX_INLINE_SGE: usize = 32;

/// The caller's gather list as our `Sge`s (same layout as `ibv_sge`).
///
/// # Safety
/// A non-NULL `p` points to `n` readable `ibv_sge`s (the verbs contract).
#[inline(always)]
unsafe fn sges<'a>(p: *const ibv_sge, n: usize) -> Result<&'a [Sge]> {
    const { assert!(size_of::<Sge>() == size_of::<ibv_sge>()) };
    const { assert!(align_of::<Sge>() <= align_of::<ibv_sge>()) };
    // The pointer first: a list's usual case is one test.
    match (p.is_null(), n) {
        (true, 0) => Ok(&[]),
        (true, _) => Err(Errno::EINVAL),
        // SAFETY: per this function's contract; Sge is repr(C) with the
        // fields of ibv_sge (checked above and by both layout tests).
        (false, _) => Ok(unsafe { std::slice::from_raw_parts(p.cast::<Sge>(), n) }),
    }
}

/// A send WR's gather list, refused (EINVAL) above `max_sge` entries: a
/// negative count compares as huge in rdma-core, as it does sign-extended
/// here.
///
/// # Safety
/// As `sges`, for `wr.sg_list`.
#[inline(always)]
unsafe fn send_list(wr: &ibv_send_wr, max_sge: u32) -> Result<&[Sge]> {
    let n = wr.num_sge as i64 as u64;
    if n > u64::from(max_sge) {
        return Err(Errno::EINVAL);
    }
    // SAFETY: per this function's contract.
    unsafe { sges(wr.sg_list, n as usize) }
}

/// What the common-case encoder takes from `wr`: its fields, read as they
/// are stored (`or_flags` added to its flags), and the WQE's `ssn`.
struct CWr<'a> {
    wr: &'a ibv_send_wr,
    or_flags: u32,
    ssn: u32,
}

impl wqe::FastSrc for CWr<'_> {
    #[inline(always)]
    fn wr_id(&self) -> u64 {
        self.wr.wr_id
    }
    #[inline(always)]
    fn opcode(&self) -> u32 {
        self.wr.opcode.0
    }
    #[inline(always)]
    fn flags(&self) -> u32 {
        self.wr.send_flags | self.or_flags
    }
    #[inline(always)]
    fn imm_data(&self) -> u32 {
        self.wr.imm_data
    }
    #[inline(always)]
    fn remote_addr(&self) -> u64 {
        // SAFETY: plain integers; any bit pattern is a valid value.
        unsafe { self.wr.wr.rdma.remote_addr }
    }
    #[inline(always)]
    fn rkey(&self) -> u32 {
        // SAFETY: as above.
        unsafe { self.wr.wr.rdma.rkey }
    }
    #[inline(always)]
    fn ssn(&self) -> u32 {
        self.ssn
    }
}

/// The operation of a send WR, as rdma-core's rxe converts it.
#[inline(always)]
fn send_op(wr: &ibv_send_wr) -> Result<SendOp> {
    // SAFETY: every member of these C unions is plain integers or pointers;
    // any bit pattern is a valid value.
    let (rdma, atomic) = unsafe { (wr.wr.rdma, wr.wr.atomic) };
    let op = match wr.opcode {
        ibv_wr_opcode::IBV_WR_SEND => SendOp::Send,
        ibv_wr_opcode::IBV_WR_SEND_WITH_IMM => SendOp::SendWithImm {
            imm_data: wr.imm_data,
        },
        ibv_wr_opcode::IBV_WR_SEND_WITH_INV => SendOp::SendWithInv {
            invalidate_rkey: wr.imm_data,
        },
        ibv_wr_opcode::IBV_WR_RDMA_WRITE => SendOp::RdmaWrite {
            remote_addr: rdma.remote_addr,
            rkey: rdma.rkey,
        },
        ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM => SendOp::RdmaWriteWithImm {
            remote_addr: rdma.remote_addr,
            rkey: rdma.rkey,
            imm_data: wr.imm_data,
        },
        ibv_wr_opcode::IBV_WR_RDMA_READ => SendOp::RdmaRead {
            remote_addr: rdma.remote_addr,
            rkey: rdma.rkey,
        },
        ibv_wr_opcode::IBV_WR_ATOMIC_CMP_AND_SWP => SendOp::AtomicCmpSwp {
            remote_addr: atomic.remote_addr,
            rkey: atomic.rkey,
            compare: atomic.compare_add,
            swap: atomic.swap,
        },
        ibv_wr_opcode::IBV_WR_ATOMIC_FETCH_AND_ADD => SendOp::AtomicFetchAdd {
            remote_addr: atomic.remote_addr,
            rkey: atomic.rkey,
            add: atomic.compare_add,
        },
        ibv_wr_opcode::IBV_WR_LOCAL_INV => SendOp::LocalInv {
            invalidate_rkey: wr.imm_data,
        },
        ibv_wr_opcode::IBV_WR_BIND_MW => {
            // SAFETY: as above.
            let b = unsafe { wr.anon.bind_mw };
            SendOp::BindMw(bind_wqe(b.mw, b.rkey, &b.bind_info)?)
        }
        other => SendOp::Other {
            opcode: other.0,
            ex: wr.imm_data,
            remote_addr: rdma.remote_addr,
            rkey: rdma.rkey,
        },
    };
    Ok(op)
}

/// The `wr.mw` of a bind: the MW's current rkey, the MR's lkey (0 for an
/// unbind without MR, where rdma-core would crash).
pub(super) fn bind_wqe(mw: *mut ibv_mw, rkey: u32, info: &ibv_mw_bind_info) -> Result<wqe::Mw> {
    // C's MW and MR pointers of a bind request: `pin` rejects NULL,
    // foreign and destroyed ones.
    let mw = mw::pin(mw).ok_or(Errno::EINVAL)?;
    let mr_lkey = match info.mr.is_null() {
        true => 0,
        false => mr::pin(info.mr).ok_or(Errno::EINVAL)?.lkey(),
    };
    Ok(wqe::Mw {
        addr: info.addr,
        length: info.length,
        mr_lkey,
        mw_rkey: mw.rkey(),
        rkey,
        access: info.mw_access_flags,
    })
}

/// The caller's inline buffers as slices, handed to `f` (no 32-entry
/// array initialisation per WR: only `list.len()` entries are written).
///
/// # Safety
/// Each entry's `addr` points to `length` readable bytes (verbs contract).
#[inline(always)]
unsafe fn with_inline<R>(list: &[Sge], f: impl FnOnce(&[&[u8]]) -> Result<R>) -> Result<R> {
    if list.len() > MAX_INLINE_SGE {
        return Err(Errno::EINVAL);
    }
    let mut bufs = [std::mem::MaybeUninit::<&[u8]>::uninit(); MAX_INLINE_SGE];
    for (b, s) in bufs.iter_mut().zip(list) {
        b.write(match (s.length, s.addr) {
            (0, _) => &[],
            (_, 0) => return Err(Errno::EINVAL),
            // SAFETY: the caller's inline data: `length` readable bytes
            // at `addr` (verbs contract), read before we return.
            (len, addr) => unsafe {
                std::slice::from_raw_parts(addr as usize as *const u8, len as usize)
            },
        });
    }
    // SAFETY: the first `list.len()` entries were written just above (the
    // loop returns early otherwise); MaybeUninit<T> has T's layout.
    f(unsafe { &*(&raw const bufs[..list.len()] as *const [&[u8]]) })
}

/// Encodes one send WR into the producer slot and publishes it.
///
/// # Safety
/// `wr`'s pointers (gather list, inline data, AH) are as the verbs contract
/// says.
#[inline(always)]
unsafe fn post_one(st: &QpState, sq: &mut Batch, ssn: &mut u32, wr: &ibv_send_wr) -> Result<()> {
    // The common case (sends and RDMA with a gather list on a connected QP)
    // is encoded straight from the C struct, inline; the rest out of line.
    let fast = matches!(
        wr.opcode,
        ibv_wr_opcode::IBV_WR_SEND
            | ibv_wr_opcode::IBV_WR_SEND_WITH_IMM
            | ibv_wr_opcode::IBV_WR_RDMA_WRITE
            | ibv_wr_opcode::IBV_WR_RDMA_WRITE_WITH_IMM
            | ibv_wr_opcode::IBV_WR_RDMA_READ
    ) && st.qp_type() != ibv_qp_type::IBV_QPT_UD;
    if !fast {
        // The slot written out of line, published here: the batch stays
        // out of memory (a callee taking it would keep it on the stack).
        // SAFETY: per this function's contract.
        unsafe { write_other(st, sq.next_slot(), *ssn, wr)? };
        sq.commit()?;
        *ssn = ssn.wrapping_add(1);
        return Ok(());
    }
    if wr.send_flags & wqe::SEND_INLINE != 0 {
        // SAFETY: per this function's contract.
        return unsafe { post_one_inline(st, sq, ssn, wr) };
    }
    // SAFETY: per this function's contract.
    let list = unsafe { send_list(wr, st.sq.max_sge)? };
    post_gather(sq, ssn, wr, list)
}

/// A send or RDMA WR with its gather list `list` (checked against
/// `max_sge`): as `push_with`, without a closure (which costs this path
/// registers), on the slot split into the WQE and its gather list.
#[inline(always)]
fn post_gather(sq: &mut Batch, ssn: &mut u32, wr: &ibv_send_wr, list: &[Sge]) -> Result<()> {
    let (w, tail) = sq.next_parts(list.len()).ok_or(Errno::EINVAL)?;
    let src = CWr {
        wr,
        or_flags: 0,
        ssn: *ssn,
    };
    wqe::write_send_parts(w, tail, &src, list)?;
    sq.commit()?;
    *ssn = ssn.wrapping_add(1);
    Ok(())
}

/// `post_one` for an inline send or RDMA write on a connected QP.
///
/// # Safety
/// As `post_one`.
#[inline(always)]
unsafe fn post_one_inline(
    st: &QpState,
    sq: &mut Batch,
    ssn: &mut u32,
    wr: &ibv_send_wr,
) -> Result<()> {
    // SAFETY: per this function's contract.
    let list = unsafe { send_list(wr, st.sq.max_sge)? };
    // The caller's buffers, copied straight into the slot (no table of
    // them first).
    // SAFETY: per this function's contract.
    let bufs = list.iter().map(|s| unsafe { inline_buf(s) });
    // SAFETY: per this function's contract.
    unsafe { post_inline(st, sq, ssn, wr, bufs, list.len()) }
}

/// An inline buffer of the caller's: EINVAL for NULL with a length.
///
/// # Safety
/// `s.addr` points to `s.length` readable bytes (verbs contract), read
/// before the caller returns.
#[inline(always)]
unsafe fn inline_buf<'a>(s: &Sge) -> Result<&'a [u8]> {
    match (s.length, s.addr) {
        (0, _) => Ok(&[]),
        (_, 0) => Err(Errno::EINVAL),
        (len, addr) => {
            // SAFETY: per this function's contract.
            Ok(unsafe { std::slice::from_raw_parts(addr as usize as *const u8, len as usize) })
        }
    }
}

/// `post_one_inline` on `wr`'s `n` buffers `bufs`.
///
/// # Safety
/// As `post_one`.
#[inline(always)]
unsafe fn post_inline<'a>(
    st: &QpState,
    sq: &mut Batch,
    ssn: &mut u32,
    wr: &ibv_send_wr,
    bufs: impl Iterator<Item = Result<&'a [u8]>>,
    n: usize,
) -> Result<()> {
    let slot = sq.next_slot();
    let length = wqe::copy_inline(slot, bufs, st.sq.max_inline)?;
    let src = CWr {
        wr,
        or_flags: wqe::SEND_INLINE,
        ssn: *ssn,
    };
    wqe::put_fast_header(slot, &src, length, n)?;
    sq.commit()?;
    *ssn = ssn.wrapping_add(1);
    Ok(())
}

/// `post_one`'s WQE for the other requests (UD, atomics, binds,
/// invalidations and opcodes rxe does not know), written into `slot`.
///
/// # Safety
/// As `post_one`.
#[inline(never)]
unsafe fn write_other(st: &QpState, slot: &mut [u8], ssn: u32, wr: &ibv_send_wr) -> Result<()> {
    let lim = wqe::SendLimits {
        max_sge: st.sq.max_sge,
        max_inline: st.sq.max_inline,
    };
    // SAFETY: per this function's contract.
    let list = unsafe { send_list(wr, lim.max_sge)? };
    let op = send_op(wr)?;
    if let SendOp::BindMw(_) = op {
        let rc_uc = matches!(
            st.qp_type(),
            ibv_qp_type::IBV_QPT_RC | ibv_qp_type::IBV_QPT_UC
        );
        if wr.imm_data != 0 || !rc_uc {
            return Err(Errno::EINVAL);
        }
    }
    let ud_ah = match (st.qp_type(), op) {
        (ibv_qp_type::IBV_QPT_UD, SendOp::Send | SendOp::SendWithImm { .. }) => {
            // SAFETY: the UD member is the one a UD send uses.
            let ud = unsafe { wr.wr.ud };
            // C's AH pointer: NULL, foreign or destroyed → EINVAL.
            let ah = super::ah::pin(ud.ah).ok_or(Errno::EINVAL)?;
            Some((ud, ah))
        }
        _ => None,
    };
    let ud = ud_ah.as_ref().map(|(ud, r)| UdDest {
        remote_qpn: ud.remote_qpn,
        remote_qkey: ud.remote_qkey,
        ah_num: r.ah_num,
        av: r.av.as_ref(),
    });
    let mut write = |payload: Payload<'_>| {
        let req = SendReq {
            wr_id: wr.wr_id,
            op,
            send_flags: wr.send_flags,
            payload,
            ud,
            ssn,
        };
        wqe::write_send_wqe(slot, &req, &lim)
    };
    if wr.send_flags & wqe::SEND_INLINE != 0 {
        // SAFETY: per this function's contract.
        unsafe { with_inline(list, |bufs| write(Payload::Inline(bufs))) }
    } else {
        write(Payload::Sge(list))
    }
}

/// `ibv_post_send` (the `post_send` op).
#[inline(always)]
unsafe fn post_send_list(
    ibqp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    if bad.is_null() {
        return libc::EINVAL;
    }
    // SAFETY: the caller's out pointer, checked non-NULL.
    unsafe { *bad = std::ptr::null_mut() };
    let Some(q) = qp::pin(ibqp) else {
        return libc::EINVAL;
    };
    if wr.is_null() {
        return libc::EINVAL;
    }
    // One common WR (see `post_one`) of at most one SGE on a free lock:
    // in this frame, with no loop (so it needs few registers).
    // SAFETY: a WR of the caller's list (verbs contract).
    let w = unsafe { &*wr };
    let st = &q.st;
    if w.next.is_null()
        && w.opcode.0 <= ibv_wr_opcode::IBV_WR_RDMA_READ.0
        && (w.num_sge as u32) <= 1
        && st.qp_type() != ibv_qp_type::IBV_QPT_UD
    {
        // Both short cases out of line, as tail calls: this frame then
        // saves no registers.
        return match w.send_flags & wqe::SEND_INLINE != 0 {
            // SAFETY: per this function's contract.
            true => unsafe { post_send_short::<true>(q, wr, bad) },
            // SAFETY: per this function's contract.
            false => unsafe { post_send_short::<false>(q, wr, bad) },
        };
    }
    // SAFETY: per this function's contract.
    unsafe { post_send_slow(q, wr, bad) }
}

/// The short case of `post_send_list` (its WR `wr` checked there, inline
/// or not as `INLINE` says) on a free lock, with the doorbell; `None` if
/// the lock was taken or the WR is not short after all (`NOT_SHORT`).
///
/// # Safety
/// As `post_send_list`, with `bad` non-NULL and `wr` not NULL.
#[inline(always)]
unsafe fn post_short<const INLINE: bool>(
    st: &QpState,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> Option<c_int> {
    let mut g = st.sq.lock.try_lock()?;
    let SqInner { queue, ssn, .. } = &mut *g;
    // SAFETY: the caller's WR and its gather list (verbs contract).
    let r = unsafe { send_short::<INLINE>(st, &mut queue.batch(), ssn, &*wr) };
    drop(g);
    let rc = match r {
        Ok(()) => 0,
        // Nothing written: the list path takes the WR.
        Err(NOT_SHORT) => return None,
        Err(e) => {
            // SAFETY: checked non-NULL by the caller.
            unsafe { *bad = wr };
            e.0
        }
    };
    Some(match st.ctx.uverbs.post_send_doorbell(st.handle) {
        Err(e) => e.0,
        Ok(()) => rc,
    })
}

/// `send_short`'s answer for a WR it leaves to the list path (inline data
/// past `copy_short`'s lengths), having written nothing.
const NOT_SHORT: Errno = Errno(-1);

/// `post_send_list`'s short case (inline or not as `INLINE` says), out of
/// line: its registers would otherwise set the frame of the entry, and the
/// inline copy's those of every send. Behind its own panic boundary and
/// `extern "C"` (no unwind leaves it; Rust only calls it, so the pin may
/// pass by value), so that the call is a tail call.
///
/// # Safety
/// As `post_short`.
#[inline(never)]
#[allow(improper_ctypes_definitions)]
unsafe extern "C" fn post_send_short<const INLINE: bool>(
    q: Pinned<RxeQp>,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    let body = move || {
        // SAFETY: per this function's contract.
        if let Some(rc) = unsafe { post_short::<INLINE>(&q.st, wr, bad) } {
            return rc;
        }
        // SAFETY: per this function's contract.
        unsafe { post_send_slow(q, wr, bad) }
    };
    crate::entry::run("post_send", body, || libc::EIO)
}

/// `post_one` for a WR `post_send_list` found short: a send or RDMA
/// operation on a connected QP with at most one SGE (or inline buffer).
/// Its list's length is known to be 0 or 1, so the copy has no loop.
///
/// # Safety
/// As `post_one`.
#[inline(always)]
unsafe fn send_short<const INLINE: bool>(
    st: &QpState,
    sq: &mut Batch,
    ssn: &mut u32,
    wr: &ibv_send_wr,
) -> Result<()> {
    // One branch on the count (as `recv_short`).
    let list: &[Sge] = if wr.num_sge != 0 {
        if st.sq.max_sge == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the WR's gather list of one entry (verbs contract).
        unsafe { sges(wr.sg_list, 1)? }
    } else {
        &[]
    };
    if INLINE {
        // As `post_one_inline`, for at most one buffer: no loop, and the
        // slot's room and `max_inline` checked once for the buffer.
        let (addr, len) = list.first().map_or((0, 0), |s| (s.addr, s.length));
        if len > st.sq.max_inline {
            return Err(Errno::EINVAL);
        }
        let (w, data) = sq
            .next_bytes::<wqe::SendWqe>(len as usize)
            .ok_or(Errno::EINVAL)?;
        // NULL is refused with data, and fine without (one test on the way
        // for the usual non-NULL buffer).
        if addr == 0 {
            if len != 0 {
                return Err(Errno::EINVAL);
            }
        } else {
            // SAFETY: the caller's inline data: `len` readable bytes at
            // `addr` (non-NULL, checked above; verbs contract).
            let src = unsafe { std::slice::from_raw_parts(addr as usize as *const u8, data.len()) };
            // Longer data takes the list path (a memcpy call here would
            // cost this frame three more registers).
            if !wqe::copy_short(data, src) {
                return Err(NOT_SHORT);
            }
        }
        let src = CWr {
            wr,
            or_flags: wqe::SEND_INLINE,
            ssn: *ssn,
        };
        wqe::fill_fast_header(w, &src, len, list.len());
        sq.commit()?;
        *ssn = ssn.wrapping_add(1);
        return Ok(());
    }
    post_gather(sq, ssn, wr, list)
}

/// `post_send_list` past its short case: the list under the lock, waited
/// for, then the doorbell. Out of line (`q` moved in), so that the short
/// case's frame saves only the registers it needs; behind its own panic
/// boundary and `extern "C"` (as `post_send_short`), so that no caller
/// needs a landing pad for it (the entry then has no frame).
///
/// # Safety
/// As `post_send_list`, with `bad` non-NULL and `wr` not NULL.
#[inline(never)]
#[allow(improper_ctypes_definitions)]
unsafe extern "C" fn post_send_slow(
    q: Pinned<RxeQp>,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: per this function's contract.
    let body = move || unsafe { post_send_list_locked(q, wr, bad) };
    crate::entry::run("post_send", body, || libc::EIO)
}

/// `post_send_slow`'s body.
///
/// # Safety
/// As `post_send_slow`.
#[inline(always)]
unsafe fn post_send_list_locked(
    q: Pinned<RxeQp>,
    mut wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    let st = &q.st;
    let mut rc = 0;
    {
        // A QP destroyed meanwhile: EINVAL rather than wait for its lock.
        let Some(mut g) = st.sq.lock.lock_while(|| q.alive()) else {
            return libc::EINVAL;
        };
        let SqInner { queue, ssn, .. } = &mut *g;
        let mut batch = queue.batch();
        while !wr.is_null() {
            // SAFETY: a WR of the caller's list (verbs contract).
            let w = unsafe { &*wr };
            // SAFETY: as above, for its pointers.
            if let Err(e) = unsafe { post_one(st, &mut batch, ssn, w) } {
                // SAFETY: checked non-NULL above.
                unsafe { *bad = wr };
                rc = e.0;
                break;
            }
            wr = w.next;
        }
    }
    match st.ctx.uverbs.post_send_doorbell(st.handle) {
        Err(e) => e.0,
        Ok(()) => rc,
    }
}

#[entry(value(libc::EIO), untraced = post_send_untraced)]
pub unsafe extern "C" fn post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: the op's C arguments, forwarded.
    unsafe { post_send_list(qp, wr, bad_wr) }
}

/// Posts a receive list into `queue` (RQ or SRQ) as rdma-core's rxe: a full
/// ring is ENOMEM before a bad WR is EINVAL.
///
/// # Safety
/// `wr` and `bad` come from the verbs caller; `bad` is non-NULL.
#[inline(always)]
unsafe fn post_recv_list(
    queue: &super::lock::SpinLock<super::queue::ProducerQueue>,
    max_sge: u32,
    alive: impl Fn() -> bool,
    mut wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // An object destroyed meanwhile: EINVAL rather than wait for its lock.
    let Some(mut q) = queue.lock_while(alive) else {
        return libc::EINVAL;
    };
    let mut q = q.batch();
    while !wr.is_null() {
        // SAFETY: a WR of the caller's list (verbs contract).
        let w = unsafe { &*wr };
        // SAFETY: as above, for its gather list.
        if let Err(e) = unsafe { recv_one(&mut q, max_sge, w) } {
            // SAFETY: non-NULL per this function's contract.
            unsafe { *bad = wr };
            return e.0;
        }
        wr = w.next;
    }
    0
}

/// One receive WR into the batch: a full ring is ENOMEM before a bad WR
/// is EINVAL (as rdma-core's rxe).
///
/// # Safety
/// `w`'s gather list is as the verbs contract says.
#[inline(always)]
unsafe fn recv_one(q: &mut Batch, max_sge: u32, w: &ibv_recv_wr) -> Result<()> {
    if q.full() {
        return Err(Errno::ENOMEM);
    }
    // A negative count, sign-extended, is huge as u64: EINVAL as in
    // rdma-core.
    let n = w.num_sge as i64 as u64;
    if n > u64::from(max_sge) {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the WR's gather list (verbs contract).
    let list = unsafe { sges(w.sg_list, n as usize)? };
    let (h, tail) = q.next_parts(list.len()).ok_or(Errno::EINVAL)?;
    wqe::write_recv_parts(h, tail, w.wr_id, list)?;
    // Not full: checked above.
    q.commit_checked();
    Ok(())
}

/// `recv_one` for a WR of at most one SGE (the caller checked): its list's
/// length is known to be 0 or 1, so the copy has no loop.
///
/// # Safety
/// As `recv_one`.
#[inline(always)]
unsafe fn recv_short(q: &mut Batch, max_sge: u32, w: &ibv_recv_wr) -> Result<()> {
    debug_assert!((w.num_sge as u32) <= 1);
    if q.full() {
        return Err(Errno::ENOMEM);
    }
    // Each length on its own branch: its checks are then a compare each.
    if w.num_sge != 0 {
        if max_sge == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the WR's gather list of one entry (verbs contract).
        let list = unsafe { sges(w.sg_list, 1)? };
        let (h, tail) = q.next_parts(1).ok_or(Errno::EINVAL)?;
        wqe::write_recv_parts(h, tail, w.wr_id, list)?;
    } else {
        let (h, tail) = q.next_parts(0).ok_or(Errno::EINVAL)?;
        wqe::write_recv_parts(h, tail, w.wr_id, &[])?;
    }
    // Not full: checked above.
    q.commit_checked();
    Ok(())
}

/// `post_recv` past its short uncontended case (one WR of at most one
/// SGE): the list under the lock, waited for (out of line, so that the
/// common case's frame holds no list loop; `q` is moved in, so the call is
/// the caller's last).
///
/// # Safety
/// As `post_recv_list`.
#[inline(never)]
unsafe fn post_recv_slow(
    q: Pinned<RxeQp>,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    let Some(rq) = &q.st.rq else {
        return libc::EINVAL;
    };
    // SAFETY: per this function's contract.
    unsafe { post_recv_list(&rq.queue, u32::from(rq.max_sge), || q.alive(), wr, bad) }
}

#[entry(value(libc::EIO), untraced = post_recv_untraced)]
pub unsafe extern "C" fn post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if bad_wr.is_null() {
        return libc::EINVAL;
    }
    // SAFETY: the caller's out pointer, checked non-NULL.
    unsafe { *bad_wr = std::ptr::null_mut() };
    let Some(q) = qp::pin(qp) else {
        return libc::EINVAL;
    };
    let Some(rq) = &q.st.rq else {
        return libc::EINVAL;
    };
    if wr.is_null() {
        return libc::EINVAL;
    }
    // The state the core keeps in the C struct (C10-97.2.1: no receives
    // in RESET).
    if q.c_state() == ibv_qp_state::IBV_QPS_RESET {
        return libc::EINVAL;
    }
    // One WR of at most one SGE and a free lock (the common case): in this
    // frame, with no loop and no call (so few registers that it saves
    // only three).
    // SAFETY: a WR of the caller's list (verbs contract).
    let w = unsafe { &*wr };
    if w.next.is_null()
        && (w.num_sge as u32) <= 1
        && let Some(mut g) = rq.queue.try_lock()
    {
        // SAFETY: the WR's gather list (verbs contract).
        return match unsafe { recv_short(&mut g.batch(), u32::from(rq.max_sge), w) } {
            Ok(()) => 0,
            Err(e) => {
                // SAFETY: the caller's out pointer, checked non-NULL.
                unsafe { *bad_wr = wr };
                e.0
            }
        };
    }
    // SAFETY: the caller's list; bad_wr checked.
    unsafe { post_recv_slow(q, wr, bad_wr) }
}

#[entry(value(libc::EIO), untraced = post_srq_recv_untraced)]
pub unsafe extern "C" fn post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    if bad_wr.is_null() {
        return libc::EINVAL;
    }
    let Some(s) = super::srq::pin(srq) else {
        return libc::EINVAL;
    };
    // SAFETY: the caller's list; bad_wr checked.
    unsafe { post_recv_list(&s.st.queue, s.st.max_sge, || s.alive(), wr, bad_wr) }
}

/// The next rkey of a type 1 MW bind: same index, key byte + 1.
fn next_rkey(rkey: u32) -> u32 {
    (rkey & 0xffff_ff00) | (rkey.wrapping_add(1) & 0xff)
}

/// `ibv_bind_mw` (type 1 windows): a BIND_MW send WR; on success the MW
/// takes its new rkey (the caller undoes it on an error completion).
#[entry(errno)]
pub unsafe extern "C" fn bind_mw(
    qp: *mut ibv_qp,
    mw: *mut ibv_mw,
    mw_bind: *mut ibv_mw_bind,
) -> c_int {
    // SAFETY: the caller's bind request.
    let b = unsafe { crate::entry::arg_ref(mw_bind)? };
    if b.bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED != 0 {
        return Err(Errno::EINVAL);
    }
    // C's MW pointer; NULL, foreign or destroyed → EINVAL.
    let m = mw::pin(mw).ok_or(Errno::EINVAL)?;
    let rkey = next_rkey(m.rkey());
    // SAFETY: plain C data; all-zero is valid.
    let mut wr: ibv_send_wr = unsafe { std::mem::zeroed() };
    wr.opcode = ibv_wr_opcode::IBV_WR_BIND_MW;
    wr.wr_id = b.wr_id;
    wr.send_flags = b.send_flags;
    wr.anon.bind_mw = ibv_send_wr_bind_mw {
        mw,
        rkey,
        bind_info: b.bind_info,
    };
    let mut bad = std::ptr::null_mut();
    // SAFETY: our own single WR; C's QP pointer.
    match unsafe { post_send_list(qp, &mut wr, &mut bad) } {
        0 => {
            m.set_rkey(rkey);
            Ok(())
        }
        e => Err(Errno(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::next_rkey;

    #[test]
    fn rkey_steps_the_key_byte() {
        assert_eq!(next_rkey(0x1234_56ff), 0x1234_5600);
        assert_eq!(next_rkey(0x1234_5601), 0x1234_5602);
    }
}
