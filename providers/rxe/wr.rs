//! The `ibv_qp_ex` work-request API on rxe: `ibv_wr_start` takes the send
//! queue's lock, each builder (`ibv_wr_send`, `ibv_wr_rdma_write`, ...)
//! writes one WQE at the batch cursor, the setters (`ibv_wr_set_sge`, ...)
//! amend the WQE just built, and `ibv_wr_complete` publishes the batch and
//! rings the doorbell (or reports the batch's first error), releasing the
//! lock; `ibv_wr_abort` drops the batch.
//!
//! The batch belongs to the thread that called `ibv_wr_start`: the send
//! queue's lock records its owner, and a builder, setter, complete or abort
//! from any other thread (or without `ibv_wr_start`) finds no batch and does
//! nothing (complete: EINVAL), instead of writing into another thread's
//! batch. A QP destroyed under an open batch is found dead by the next call
//! (its slot's live bit is cleared), which then does nothing either.
//!
//! As in rdma-core, the first error (`ENOSPC` for a full ring or too much
//! data) makes the rest of the batch a no-op and is `ibv_wr_complete`'s
//! result. Unlike rdma-core 44 (whose list setters miscount), the list
//! setters sum every buffer's length, and the inline setters mark the WQE
//! inline themselves.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};

use super::obj::qp::{self, QpState, RxeQp, SqInner};
use super::wqe::{self, SendOp, Sge, UdDest};
use crate::abi::*;
use crate::entry::{Errno, Result};
use crate::object::slab::Pinned;

/// The ops rxe offers for `flags` (what `ibv_create_qp_ex` allowed).
pub(super) fn set_send_ops(c: &mut ibv_qp_ex, flags: u64) {
    let has = |f: u32| flags & f as u64 != 0;
    if has(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP) {
        c.wr_atomic_cmp_swp = Some(wr_atomic_cmp_swp);
    }
    if has(IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD) {
        c.wr_atomic_fetch_add = Some(wr_atomic_fetch_add);
    }
    if has(IBV_QP_EX_WITH_BIND_MW) {
        c.wr_bind_mw = Some(wr_bind_mw);
    }
    if has(IBV_QP_EX_WITH_LOCAL_INV) {
        c.wr_local_inv = Some(wr_local_inv);
    }
    if has(IBV_QP_EX_WITH_ATOMIC_WRITE) {
        c.wr_atomic_write = Some(wr_atomic_write);
    }
    if has(IBV_QP_EX_WITH_FLUSH) {
        c.wr_flush = Some(wr_flush);
    }
    if has(IBV_QP_EX_WITH_RDMA_READ) {
        c.wr_rdma_read = Some(wr_rdma_read);
    }
    if has(IBV_QP_EX_WITH_RDMA_WRITE) {
        c.wr_rdma_write = Some(wr_rdma_write);
    }
    if has(IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM) {
        c.wr_rdma_write_imm = Some(wr_rdma_write_imm);
    }
    if has(IBV_QP_EX_WITH_SEND) {
        c.wr_send = Some(wr_send);
    }
    if has(IBV_QP_EX_WITH_SEND_WITH_IMM) {
        c.wr_send_imm = Some(wr_send_imm);
    }
    if has(IBV_QP_EX_WITH_SEND_WITH_INV) {
        c.wr_send_inv = Some(wr_send_inv);
    }
    c.wr_set_ud_addr = Some(wr_set_ud_addr);
    c.wr_set_inline_data = Some(wr_set_inline_data);
    c.wr_set_inline_data_list = Some(wr_set_inline_data_list);
    c.wr_set_sge = Some(wr_set_sge);
    c.wr_set_sge_list = Some(wr_set_sge_list);
    c.wr_start = Some(wr_start);
    c.wr_complete = Some(wr_complete);
    c.wr_abort = Some(wr_abort);
}

/// The live QP behind an `ibv_qp_ex` pointer (`ibv_qp` is its head).
#[inline]
fn qp_of(p: *mut ibv_qp_ex) -> Option<Pinned<RxeQp>> {
    qp::pin(p.cast::<ibv_qp>())
}

/// Runs `f` on the calling thread's open batch on the QP at `p`; `None`
/// (nothing done) for a pointer that is not a live QP of ours, or when this
/// thread has no batch on it (no `wr_start`, or another thread's batch).
#[inline]
fn with_batch<R>(p: *mut ibv_qp_ex, f: impl FnOnce(&RxeQp, &mut SqInner) -> R) -> Option<R> {
    let q = qp_of(p)?;
    // SAFETY: the only reference to the batch's data in this C call; it
    // ends with `f`.
    let sq = unsafe { q.st.sq.lock.batch() }?;
    Some(f(&q, sq))
}

#[entry(value(()))]
unsafe extern "C" fn wr_start(p: *mut ibv_qp_ex) {
    let Some(q) = qp_of(p) else {
        return;
    };
    // A second wr_start of the same thread keeps its open batch (where
    // rdma-core would deadlock).
    if !q.st.sq.lock.begin_while(|| q.alive()) {
        return;
    }
    // SAFETY: just taken by this thread; the reference ends here.
    if let Some(sq) = unsafe { q.st.sq.lock.batch() } {
        sq.err = 0;
        sq.cur = sq.queue.producer_index();
    }
}

#[entry(value(libc::EIO))]
unsafe extern "C" fn wr_complete(p: *mut ibv_qp_ex) -> c_int {
    let Some(q) = qp_of(p) else {
        return libc::EINVAL;
    };
    let st = &q.st;
    let r = {
        // SAFETY: this thread's batch; the reference ends in this block.
        let Some(sq) = (unsafe { st.sq.lock.batch() }) else {
            return libc::EINVAL;
        };
        match sq.err {
            0 => sq.queue.publish_producer(sq.cur).map_err(|e| e.0),
            e => Err(e),
        }
    };
    // SAFETY: no reference to the batch's data is left.
    unsafe { st.sq.lock.end() };
    match r {
        Ok(()) => match st.ctx.uverbs.post_send_doorbell(st.handle) {
            Ok(()) => 0,
            Err(e) => e.0,
        },
        Err(e) => e,
    }
}

#[entry(value(()))]
unsafe extern "C" fn wr_abort(p: *mut ibv_qp_ex) {
    if let Some(q) = qp_of(p) {
        // SAFETY: nothing of the batch is referenced; another thread's
        // batch is left alone (`end` checks the owner).
        unsafe { q.st.sq.lock.end() };
    }
}

/// A builder: one WQE for `op` at the cursor, with the QP's `wr_id` and
/// `wr_flags`.
///
fn build(p: *mut ibv_qp_ex, op: SendOp) {
    with_batch(p, |q, sq| build_in(q, sq, op));
}

fn build_in(q: &RxeQp, sq: &mut SqInner, op: SendOp) {
    if sq.err != 0 {
        return;
    }
    // SAFETY: plain fields of our C struct that the caller set before this
    // call, read by value.
    let (wr_id, flags) = unsafe { ((*q.c.get()).wr_id, (*q.c.get()).wr_flags) };
    let cur = sq.cur;
    let r = match sq.queue.slot_mut(cur) {
        Ok(slot) => wqe::write_send_header(slot, wr_id, &op, flags, sq.ssn),
        Err(_) => Err(Errno(libc::ENOSPC)),
    };
    match r {
        Ok(()) => {
            sq.ssn = sq.ssn.wrapping_add(1);
            sq.cur = sq.queue.next_index(cur);
        }
        Err(e) => sq.err = e.0,
    }
}

/// A setter: amends the WQE the last builder wrote.
fn amend(p: *mut ibv_qp_ex, f: impl FnOnce(&QpState, &mut [u8]) -> Result<()>) {
    with_batch(p, |q, sq| amend_in(&q.st, sq, f));
}

fn amend_in(st: &QpState, sq: &mut SqInner, f: impl FnOnce(&QpState, &mut [u8]) -> Result<()>) {
    if sq.err != 0 {
        return;
    }
    let prev = sq.cur.wrapping_sub(1) & (sq.queue.num_slots() - 1);
    // No builder yet: the slot before the cursor is not ours.
    if sq.cur == sq.queue.producer_index() {
        sq.err = libc::EINVAL;
        return;
    }
    let r = sq.queue.slot_mut(prev).and_then(|slot| f(st, slot));
    if let Err(e) = r {
        sq.err = e.0;
    }
}

macro_rules! builder {
    ($name:ident($($a:ident: $t:ty),*) => $op:expr) => {
        #[entry(value(()))]
        unsafe extern "C" fn $name(p: *mut ibv_qp_ex $(, $a: $t)*) {
            build(p, $op)
        }
    };
}

builder!(wr_send() => SendOp::Send);
builder!(wr_send_imm(imm_data: __be32) => SendOp::SendWithImm { imm_data });
builder!(wr_send_inv(invalidate_rkey: u32) => SendOp::SendWithInv { invalidate_rkey });
builder!(wr_rdma_write(rkey: u32, remote_addr: u64) => SendOp::RdmaWrite { remote_addr, rkey });
builder!(wr_rdma_write_imm(rkey: u32, remote_addr: u64, imm_data: __be32) =>
    SendOp::RdmaWriteWithImm { remote_addr, rkey, imm_data });
builder!(wr_rdma_read(rkey: u32, remote_addr: u64) => SendOp::RdmaRead { remote_addr, rkey });
builder!(wr_atomic_cmp_swp(rkey: u32, remote_addr: u64, compare: u64, swap: u64) =>
    SendOp::AtomicCmpSwp { remote_addr, rkey, compare, swap });
builder!(wr_atomic_fetch_add(rkey: u32, remote_addr: u64, add: u64) =>
    SendOp::AtomicFetchAdd { remote_addr, rkey, add });
builder!(wr_local_inv(invalidate_rkey: u32) => SendOp::LocalInv { invalidate_rkey });

#[entry(value(()))]
unsafe extern "C" fn wr_bind_mw(
    p: *mut ibv_qp_ex,
    mw: *mut ibv_mw,
    rkey: u32,
    info: *const ibv_mw_bind_info,
) {
    // SAFETY: the caller's bind info.
    let op = unsafe { info.as_ref() }
        .ok_or(Errno::EINVAL)
        .and_then(|i| super::post::bind_wqe(mw, rkey, i));
    match op {
        Ok(m) => build(p, SendOp::BindMw(m)),
        Err(e) => fail(p, e),
    }
}

/// `ibv_wr_atomic_write` (8 bytes written atomically at the target): rxe's
/// library offers it; the payload travels in the WQE like inline data.
#[entry(value(()))]
unsafe extern "C" fn wr_atomic_write(
    p: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    atomic_wr: *const c_void,
) {
    if atomic_wr.is_null() {
        return fail(p, Errno::EINVAL);
    }
    // SAFETY: the caller's 8 bytes (verbs contract).
    let data = unsafe { std::slice::from_raw_parts(atomic_wr.cast::<u8>(), 8) };
    let op = SendOp::Other {
        opcode: ibv_wr_opcode::IBV_WR_ATOMIC_WRITE.0,
        ex: 0,
        remote_addr,
        rkey,
    };
    // One pin and one batch check for both steps.
    with_batch(p, |q, sq| {
        build_in(q, sq, op);
        amend_in(&q.st, sq, |_, slot| wqe::set_atomic_write(slot, data));
    });
}

/// `ibv_wr_flush` (rdma-core 64): makes `len` bytes at the target placed
/// (`type`: global or persistent; `level`: the range or the whole MR). The
/// kernel checks the MR's FLUSH access; kernels before 6.2 complete it in error.
#[entry(value(()))]
unsafe extern "C" fn wr_flush(
    p: *mut ibv_qp_ex,
    rkey: u32,
    remote_addr: u64,
    len: usize,
    type_: u8,
    level: u8,
) {
    let f = wqe::Flush {
        remote_addr,
        // rdma-core stores the length in 32 bits.
        length: len as u32,
        rkey,
        type_,
        level,
        pad: [0; 6],
    };
    let op = SendOp::Other {
        opcode: ibv_wr_opcode::IBV_WR_FLUSH.0,
        ex: 0,
        remote_addr,
        rkey,
    };
    // SAFETY: C's QP pointer inside its batch (verbs contract).
    unsafe {
        build(p, op);
        amend(p, |_, slot| wqe::set_flush(slot, &f));
    }
}

/// Records `e` as the batch's error.
fn fail(p: *mut ibv_qp_ex, e: Errno) {
    with_batch(p, |_, sq| {
        if sq.err == 0 {
            sq.err = e.0;
        }
    });
}

#[entry(value(()))]
unsafe extern "C" fn wr_set_ud_addr(
    p: *mut ibv_qp_ex,
    ah: *mut ibv_ah,
    remote_qpn: u32,
    remote_qkey: u32,
) {
    // C's AH pointer: NULL, foreign or destroyed → EINVAL for the batch.
    amend(p, |_, slot| {
        let r = super::ah::pin(ah).ok_or(Errno::EINVAL)?;
        let ud = UdDest {
            remote_qpn,
            remote_qkey,
            ah_num: r.ah_num,
            av: r.av.as_ref(),
        };
        wqe::set_send_ud(slot, &ud)
    })
}

#[entry(value(()))]
unsafe extern "C" fn wr_set_sge(p: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32) {
    // A zero-length SGE leaves the WQE without data (as rdma-core).
    if length == 0 {
        return;
    }
    let s = [Sge { addr, length, lkey }];
    amend(p, |st, slot| wqe::set_send_sges(slot, &s, st.sq.max_sge))
}

#[entry(value(()))]
unsafe extern "C" fn wr_set_sge_list(p: *mut ibv_qp_ex, num_sge: usize, sg_list: *const ibv_sge) {
    // SAFETY: C's QP pointer inside its batch; the caller's list of
    // `num_sge` entries (verbs contract), once its size is checked.
    unsafe {
        amend(p, |st, slot| {
            if num_sge > st.sq.max_sge as usize {
                return Err(Errno(libc::ENOSPC));
            }
            let list = if num_sge == 0 {
                &[][..]
            } else if sg_list.is_null() {
                return Err(Errno::EINVAL);
            } else {
                std::slice::from_raw_parts(sg_list.cast::<Sge>(), num_sge)
            };
            wqe::set_send_sges(slot, list, st.sq.max_sge)
        })
    }
}

/// The caller's buffer as bytes (NULL only with length 0).
///
/// # Safety
/// `addr` points to `len` readable bytes (verbs contract).
unsafe fn bytes<'a>(addr: *const c_void, len: usize) -> Result<&'a [u8]> {
    match (len, addr.is_null()) {
        (0, _) => Ok(&[]),
        (_, true) => Err(Errno::EINVAL),
        // SAFETY: per the contract.
        _ => Ok(unsafe { std::slice::from_raw_parts(addr.cast::<u8>(), len) }),
    }
}

#[entry(value(()))]
unsafe extern "C" fn wr_set_inline_data(p: *mut ibv_qp_ex, addr: *mut c_void, length: usize) {
    // SAFETY: C's QP pointer inside its batch; the caller's buffer.
    unsafe {
        amend(p, |st, slot| {
            if length > st.sq.max_inline as usize {
                return Err(Errno(libc::ENOSPC));
            }
            let b = bytes(addr, length)?;
            wqe::set_send_inline(slot, std::iter::once(b), st.sq.max_inline)
        })
    }
}

#[entry(value(()))]
unsafe extern "C" fn wr_set_inline_data_list(
    p: *mut ibv_qp_ex,
    num_buf: usize,
    buf_list: *const ibv_data_buf,
) {
    // SAFETY: C's QP pointer inside its batch; the caller's list of
    // `num_buf` buffers (verbs contract).
    unsafe {
        amend(p, |st, slot| {
            let list = match (num_buf, buf_list.is_null()) {
                (0, _) => &[][..],
                (_, true) => return Err(Errno::EINVAL),
                _ => std::slice::from_raw_parts(buf_list, num_buf),
            };
            // Length first (ENOSPC before reading any buffer).
            let total = list
                .iter()
                .try_fold(0usize, |n, b| n.checked_add(b.length))
                .ok_or(Errno(libc::ENOSPC))?;
            if total > st.sq.max_inline as usize {
                return Err(Errno(libc::ENOSPC));
            }
            let mut bad = false;
            let it = list.iter().map_while(|b| match bytes(b.addr, b.length) {
                Ok(s) => Some(s),
                Err(_) => {
                    bad = true;
                    None
                }
            });
            wqe::set_send_inline(slot, it, st.sq.max_inline)?;
            if bad {
                return Err(Errno::EINVAL);
            }
            Ok(())
        })
    }
}
