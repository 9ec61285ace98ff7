//! The rxe poll path: `ibv_poll_cq` and the `ibv_cq_ex` polling ops
//! (`ibv_start_poll`, `ibv_next_poll`, `ibv_end_poll` and the readers).
//!
//! A CQE in the ring is a `struct ib_uverbs_wc`, whose first 46 bytes have
//! the layout of `struct ibv_wc` (checked below); rdma-core's rxe copies it
//! as is (imm_data stays big-endian, wc_flags and the rest as the kernel
//! wrote them), and so do we.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_uint};
use std::mem::offset_of;

use super::cq::{self, CqInner};
use super::wqe::{CQE_SIZE, Cqe};
use crate::abi::*;
use crate::context::Cq;

const _: () = {
    assert!(size_of::<ibv_wc>() == CQE_SIZE);
    assert!(offset_of!(ibv_wc, status) == offset_of!(Cqe, status));
    assert!(offset_of!(ibv_wc, imm_data) == offset_of!(Cqe, ex));
    assert!(offset_of!(ibv_wc, wc_flags) == offset_of!(Cqe, wc_flags));
    assert!(offset_of!(ibv_wc, pkey_index) == offset_of!(Cqe, pkey_index));
    assert!(offset_of!(ibv_wc, dlid_path_bits) == offset_of!(Cqe, dlid_path_bits));
};

/// The CQ behind a C pointer and its rxe state.
///
/// # Safety
/// `p` is NULL or what C holds as a CQ (see `Cq::from_c`).
unsafe fn cq_of<'a>(p: *const ibv_cq) -> Option<&'a cq::CqState> {
    // SAFETY: per this function's contract.
    let c = unsafe { Cq::from_c(p) }?;
    cq::state(c).ok()
}

/// `ibv_poll_cq`: up to `ne` completions copied into `wc`; a negative value
/// (-1, errno EINVAL) for a pointer that is not one of our CQs.
pub unsafe extern "C" fn poll_cq(ibcq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    // Busy pollers mostly find the CQ empty: say so without the lock and
    // before the traced path sets up its frame (tracing takes that path).
    let empty = || {
        // SAFETY: C's CQ pointer, already dereferenced by the inline caller.
        let st = unsafe { cq_of(ibcq) };
        ne > 0 && !wc.is_null() && st.is_some_and(|st| st.seen_empty())
    };
    if crate::entry::trace_level() == 0 && crate::entry::run("poll_cq", empty, || false) {
        return 0;
    }
    // SAFETY: the op's arguments, forwarded.
    unsafe { poll_cq_traced(ibcq, ne, wc) }
}

#[inline(never)]
unsafe fn poll_cq_traced(ibcq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    entry!(value(-1), poll_cq(ibcq, ne, wc) {
        // SAFETY: C's CQ pointer, already dereferenced by the inline caller.
        let Some(st) = (unsafe { cq_of(ibcq) }) else {
            crate::entry::set_errno(crate::entry::Errno::EINVAL);
            return -1;
        };
        if ne <= 0 {
            return 0;
        }
        if wc.is_null() {
            crate::entry::set_errno(crate::entry::Errno::EINVAL);
            return -1;
        }
        let mut g = st.lock.lock();
        let out = wc.cast::<u8>();
        g.queue.drain(ne as u32, |i, slot| {
            // SAFETY: `wc` has room for `ne` entries (verbs contract) and
            // i < ne; the slot holds at least CQE_SIZE bytes (checked when
            // mapped); ibv_wc is plain data for which any bytes are valid.
            unsafe {
                std::ptr::copy_nonoverlapping(slot.as_ptr(), out.add(i as usize * CQE_SIZE), CQE_SIZE)
            }
        }) as c_int
    })
}

/// Publishes `cur`'s completion fields (`status`, `wr_id`) in the C struct.
///
/// # Safety
/// `cq` is the CQ's C struct; the caller holds the CQ lock.
unsafe fn show(cq: *mut ibv_cq_ex, inner: &CqInner) -> bool {
    let Some(slot) = inner.queue.slot(inner.cur) else {
        return false;
    };
    let wr_id = u64::from_ne_bytes(slot[..8].try_into().expect("8 bytes"));
    let status = u32_at(slot, offset_of!(Cqe, status));
    // SAFETY: fields of our C struct which C reads between polls; the
    // writer holds the CQ lock.
    unsafe {
        (*cq).wr_id = wr_id;
        (*cq).status = ibv_wc_status(status);
    }
    true
}

fn u32_at(slot: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(slot[off..off + 4].try_into().expect("4 bytes"))
}

/// The CQ's state if this is one of ours; for the ops C calls with the lock
/// held from `start_poll` on.
///
/// # Safety
/// `cq` is NULL or C's pointer to one of our CQs.
unsafe fn held<'a>(cq: *mut ibv_cq_ex) -> Option<&'a cq::CqState> {
    // SAFETY: per the contract; ibv_cq is the head of ibv_cq_ex.
    let st = unsafe { cq_of(cq.cast::<ibv_cq>()) }?;
    // Between start_poll and end_poll the lock is held; otherwise nothing
    // to read (rdma-core would unlock an unlocked spin lock here).
    st.lock.is_locked().then_some(st)
}

pub unsafe extern "C" fn start_poll(cq: *mut ibv_cq_ex, _attr: *mut ibv_poll_cq_attr) -> c_int {
    entry!(value(libc::EIO), start_poll(cq, _attr) {
        // SAFETY: C's CQ pointer; ibv_cq is the head of ibv_cq_ex.
        let Some(st) = (unsafe { cq_of(cq.cast::<ibv_cq>()) }) else {
            return libc::EINVAL;
        };
        st.lock.lock_raw();
        // SAFETY: we hold the lock (raw) until end_poll.
        let inner = unsafe { st.lock.raw_data() };
        inner.cur = inner.queue.consumer_index();
        // SAFETY: our C struct; lock held.
        if !unsafe { show(cq, inner) } {
            // SAFETY: taken above; `inner` is not used again.
            unsafe { st.lock.unlock_raw() };
            crate::entry::set_errno(crate::entry::Errno::ENOENT);
            return libc::ENOENT;
        }
        0
    })
}

pub unsafe extern "C" fn next_poll(cq: *mut ibv_cq_ex) -> c_int {
    entry!(value(libc::EIO), next_poll(cq) {
        // SAFETY: C's CQ pointer, inside a start_poll..end_poll span.
        let Some(st) = (unsafe { held(cq) }) else {
            return libc::EINVAL;
        };
        // SAFETY: the poller holds the lock since start_poll.
        let inner = unsafe { st.lock.raw_data() };
        let prev = inner.cur;
        inner.cur = inner.queue.next_index(prev);
        // SAFETY: our C struct; lock held.
        if !unsafe { show(cq, inner) } {
            // Empty: the span stays open (lock held, the last completion
            // still current) until end_poll, which the man page requires
            // after ENOENT too; rdma-core 64 (5e7aa4102, b78b414e0). Releasing
            // here let a late end_poll close another thread's span.
            inner.cur = prev;
            crate::entry::set_errno(crate::entry::Errno::ENOENT);
            return libc::ENOENT;
        }
        0
    })
}

pub unsafe extern "C" fn end_poll(cq: *mut ibv_cq_ex) {
    entry!(value(()), end_poll(cq) {
        // SAFETY: C's CQ pointer, inside a start_poll..end_poll span.
        let Some(st) = (unsafe { held(cq) }) else {
            return;
        };
        // SAFETY: the poller holds the lock since start_poll.
        let inner = unsafe { st.lock.raw_data() };
        let next = inner.queue.next_index(inner.cur);
        let _ = inner.queue.publish_consumer(next);
        // SAFETY: held since start_poll; `inner` is not used again.
        unsafe { st.lock.unlock_raw() };
    })
}

/// Reads a field of the current completion (0 outside a poll span).
///
/// # Safety
/// `cq` is NULL or C's pointer to one of our CQs.
unsafe fn read<T>(cq: *mut ibv_cq_ex, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
    // SAFETY: per the contract.
    let st = unsafe { held(cq) }?;
    // SAFETY: the poller holds the lock since start_poll; shared use only.
    let inner = unsafe { st.lock.raw_data() };
    inner.queue.slot(inner.cur).map(f)
}

macro_rules! reader {
    ($name:ident -> $t:ty = $field:ident as $conv:expr) => {
        pub unsafe extern "C" fn $name(cq: *mut ibv_cq_ex) -> $t {
            // SAFETY: C's CQ pointer (see `read`).
            let r = unsafe { read(cq, |s| $conv(s, offset_of!(Cqe, $field))) };
            r.unwrap_or_default()
        }
    };
}

fn r32(s: &[u8], off: usize) -> u32 {
    u32_at(s, off)
}
fn r16(s: &[u8], off: usize) -> u32 {
    u16::from_ne_bytes(s[off..off + 2].try_into().expect("2 bytes")).into()
}
fn r8(s: &[u8], off: usize) -> u8 {
    s[off]
}

reader!(read_vendor_err -> u32 = vendor_err as r32);
reader!(read_byte_len -> u32 = byte_len as r32);
reader!(read_imm_data -> u32 = ex as r32);
reader!(read_qp_num -> u32 = qp_num as r32);
reader!(read_src_qp -> u32 = src_qp as r32);
reader!(read_wc_flags -> c_uint = wc_flags as r32);
reader!(read_slid -> u32 = slid as r16);
reader!(read_sl -> u8 = sl as r8);
reader!(read_dlid_path_bits -> u8 = dlid_path_bits as r8);

pub unsafe extern "C" fn read_opcode(cq: *mut ibv_cq_ex) -> ibv_wc_opcode {
    // SAFETY: C's CQ pointer (see `read`).
    let r = unsafe { read(cq, |s| u32_at(s, offset_of!(Cqe, opcode))) };
    ibv_wc_opcode(r.unwrap_or(0))
}
