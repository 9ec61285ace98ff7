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

use super::obj::cq::{self, CqInner, RxeCq};
use super::queue::Run;
use super::wqe::{CQE_SIZE, Cqe};
use crate::abi::*;
use crate::object::slab::Pinned;

const _: () = {
    assert!(size_of::<ibv_wc>() == CQE_SIZE);
    assert!(offset_of!(ibv_wc, status) == offset_of!(Cqe, status));
    assert!(offset_of!(ibv_wc, imm_data) == offset_of!(Cqe, ex));
    assert!(offset_of!(ibv_wc, wc_flags) == offset_of!(Cqe, wc_flags));
    assert!(offset_of!(ibv_wc, pkey_index) == offset_of!(Cqe, pkey_index));
    assert!(offset_of!(ibv_wc, dlid_path_bits) == offset_of!(Cqe, dlid_path_bits));
};

/// `ibv_poll_cq`: up to `ne` completions copied into `wc`; a negative value
/// (-1, errno EINVAL) for a pointer that is not one of our live CQs.
pub(super) unsafe extern "C" fn poll_cq(ibcq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    if crate::entry::trace_level() == 0 {
        // SAFETY: the op's arguments, forwarded.
        return unsafe { poll_cq_untraced(ibcq, ne, wc) };
    }
    // SAFETY: the op's arguments, forwarded.
    unsafe { poll_cq_traced(ibcq, ne, wc) }
}

/// `poll_cq` without the trace check, the slot of contexts opened with
/// tracing off.
pub(super) unsafe extern "C" fn poll_cq_untraced(
    ibcq: *mut ibv_cq,
    ne: c_int,
    wc: *mut ibv_wc,
) -> c_int {
    // SAFETY: the op's arguments, forwarded.
    unsafe { poll_cq_body(ibcq, ne, wc) }
}

#[inline(never)]
#[entry(value(-1), name = poll_cq)]
unsafe fn poll_cq_traced(ibcq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: the op's arguments, forwarded.
    unsafe { poll_cq_body(ibcq, ne, wc) }
}

/// The checks of `ibv_poll_cq` and the lock-free empty test. They panic
/// nowhere (address arithmetic, atomics and compares), so they need no
/// panic boundary: busy pollers that find the CQ empty return from a
/// frame that saves no register; the rest is a tail call.
///
/// # Safety
/// `wc` has room for `ne` entries (verbs contract).
#[inline(always)]
unsafe fn poll_cq_body(ibcq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> c_int {
    let Some(cq) = cq::pin(ibcq) else {
        return einval();
    };
    if ne <= 0 {
        return 0;
    }
    if wc.is_null() {
        drop(cq);
        return einval();
    }
    if cq.st.seen_empty() {
        return 0;
    }
    // SAFETY: per this function's contract; ne > 0.
    unsafe { poll_cq_locked(cq, ne as u32, wc) }
}

/// -1 with errno EINVAL, out of line. `extern "C"` here and below only
/// to declare that no panic unwinds out (the C ABI aborts instead), so
/// that `poll_cq_body`'s calls are tail calls and its frame saves nothing.
#[cold]
#[inline(never)]
extern "C" fn einval() -> c_int {
    crate::entry::set_errno(crate::entry::Errno::EINVAL);
    // Opaque: a result the caller knows would make the call not its last.
    std::hint::black_box(-1)
}

/// `poll_cq` past the empty test, behind the panic boundary (`extern
/// "C"`: see `einval`; Rust only calls it, so the pin may pass by value).
///
/// # Safety
/// As `drain_into`.
#[inline(never)]
#[allow(improper_ctypes_definitions)]
unsafe extern "C" fn poll_cq_locked(cq: Pinned<RxeCq>, ne: u32, wc: *mut ibv_wc) -> c_int {
    let body = move || {
        let st = &cq.st;
        // Uncontended: one compare-exchange; the reasons it may fail are
        // looked at out of line.
        let Some(mut g) = st.lock.try_lock() else {
            // SAFETY: per this function's contract.
            return unsafe { poll_cq_contended(cq, ne, wc) };
        };
        // SAFETY: as above.
        unsafe { drain_into(&mut g, ne, wc) }
    };
    crate::entry::run("poll_cq", body, || {
        crate::entry::set_errno(crate::entry::Errno::EIO);
        -1
    })
}

/// Copies up to `ne` completions into `wc`: one in the caller's frame
/// (no set-up of its own), more out of line (`ConsumerQueue::drain`).
///
/// # Safety
/// `wc` has room for `ne` entries (verbs contract).
#[inline(always)]
unsafe fn drain_into(inner: &mut CqInner, ne: u32, wc: *mut ibv_wc) -> c_int {
    let out = wc.cast::<u8>();
    inner.queue.drain(
        ne,
        #[inline(always)]
        move |run| {
            // SAFETY: `wc` has room for `ne` entries (verbs contract) and the
            // run's completions are among the first `ne`; its slots hold at
            // least CQE_SIZE bytes each (checked when mapped); ibv_wc is plain
            // data for which any bytes are valid.
            unsafe { copy_cqes(run, out.add(run.first as usize * CQE_SIZE)) }
        },
    ) as c_int
}

/// Copies the CQEs of `run` to as many `ibv_wc` from `dst` on, one (or
/// two) per step: under qemu's TCG (the Soft-RoCE VM of the benchmarks)
/// the loop the compiler made of a plain copy, four CQEs per step, ran a
/// 16-completion poll at 1.11-1.46x rdma-core's time, this one at 0.90-1.03x,
/// for 10 more instructions (bench/report.py's poll_cq_16 notes).
///
/// # Safety
/// `dst` is writable for `run.len` entries of CQE_SIZE bytes (any
/// alignment). The run's slots are 64-byte aligned (see `Ring::new`).
#[inline(always)]
unsafe fn copy_cqes(run: Run<'_>, dst: *mut u8) {
    let (mut src, mut dst) = (run.bytes.as_ptr(), dst);
    for _ in 0..run.len {
        // SAFETY: the run holds `len` slots of `stride` >= CQE_SIZE bytes
        // from `src` on, `dst` room for `len` entries (this function's
        // contract); the loop stops after `len` of both.
        unsafe {
            copy_cqe(src, dst);
            (src, dst) = (src.add(run.stride), dst.add(CQE_SIZE));
        }
    }
}

/// One CQE as three 16-byte moves, the loads volatile: the compiler
/// does not unroll the loop four times, as it does a plain copy.
///
/// # Safety
/// `src` is 16-byte aligned and readable, `dst` writable (any alignment),
/// for CQE_SIZE bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_cqe(src: *const u8, dst: *mut u8) {
    use std::arch::x86_64::{__m128i, _mm_storeu_si128};
    const _: () = assert!(CQE_SIZE.is_multiple_of(16));
    let (s, d) = (src.cast::<__m128i>(), dst.cast::<__m128i>());
    for k in 0..CQE_SIZE / 16 {
        // SAFETY: per this function's contract, block k of both; SSE2 is
        // part of x86-64.
        unsafe { _mm_storeu_si128(d.add(k), s.add(k).read_volatile()) }
    }
}

/// One CQE (elsewhere than x86-64).
///
/// # Safety
/// As the x86-64 `copy_cqe`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn copy_cqe(src: *const u8, dst: *mut u8) {
    // SAFETY: per this function's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, CQE_SIZE) }
}

/// `poll_cq` when the CQ's lock was not free at first try (see
/// `lock_contended`): -1 (EINVAL) where it is not to be had.
///
/// # Safety
/// As `drain_into`.
#[cold]
#[inline(never)]
unsafe fn poll_cq_contended(cq: Pinned<RxeCq>, ne: u32, wc: *mut ibv_wc) -> c_int {
    let Some(mut g) = lock_contended(&cq) else {
        crate::entry::set_errno(crate::entry::Errno::EINVAL);
        return -1;
    };
    // SAFETY: per this function's contract.
    unsafe { drain_into(&mut g, ne, wc) }
}

/// The CQ's lock when it was not free at first try: `None` inside this
/// thread's own start_poll batch (the lock is ours already: rdma-core would
/// deadlock) or once the CQ is being destroyed (rather than wait for a
/// holder that may be a batch that never ends).
#[cold]
#[inline(never)]
fn lock_contended(cq: &Pinned<RxeCq>) -> Option<super::lock::Guard<'_, CqInner>> {
    if cq.st.lock.held_by_me() {
        return None;
    }
    cq.st.lock.lock_while(|| cq.alive())
}

/// Publishes `cur`'s completion fields (`status`, `wr_id`) in the C struct;
/// records whether there was one.
fn show(cq: &RxeCq, inner: &mut CqInner) -> bool {
    let cur = inner.cur();
    inner.set(cur, false);
    let Some(slot) = inner.queue.slot(cur) else {
        return false;
    };
    let wr_id = u64::from_ne_bytes(slot[..8].try_into().expect("8 bytes"));
    let status = u32_at(slot, offset_of!(Cqe, status));
    let c = cq.c.get();
    // SAFETY: fields of our C struct which C reads between polls; the
    // writer holds the CQ lock as its batch.
    unsafe {
        (*c).wr_id = wr_id;
        (*c).status = ibv_wc_status(status);
    }
    inner.set(cur, true);
    true
}

fn u32_at(slot: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(slot[off..off + 4].try_into().expect("4 bytes"))
}

/// `ibv_start_poll`: opens the calling thread's batch on the CQ, which owns
/// the CQ's ring state until `ibv_end_poll` (ENOENT, batch closed, when there
/// is nothing to poll). EINVAL for a CQ that is not ours or a second
/// `start_poll` of the same thread.
#[entry(value(libc::EIO))]
pub unsafe extern "C" fn start_poll(cq: *mut ibv_cq_ex, _attr: *mut ibv_poll_cq_attr) -> c_int {
    let Some(c) = cq::pin(cq.cast::<ibv_cq>()) else {
        return libc::EINVAL;
    };
    let lock = &c.st.lock;
    if !lock.begin_while(|| c.alive()) {
        return libc::EINVAL;
    }
    // SAFETY: our batch, just opened; the reference ends in this call.
    let inner = unsafe { lock.batch() }.expect("batch just opened");
    inner.set(inner.queue.consumer_index(), false);
    if !show(&c, inner) {
        // SAFETY: `inner` is not used again.
        unsafe { lock.end() };
        crate::entry::set_errno(crate::entry::Errno::ENOENT);
        return libc::ENOENT;
    }
    0
}

/// `ibv_next_poll`: the next completion of the batch; ENOENT keeps the batch
/// (and the CQ lock) until `ibv_end_poll`. EINVAL outside the calling
/// thread's batch.
#[entry(value(libc::EIO))]
pub unsafe extern "C" fn next_poll(cq: *mut ibv_cq_ex) -> c_int {
    let Some(c) = cq::pin(cq.cast::<ibv_cq>()) else {
        return libc::EINVAL;
    };
    // SAFETY: one reference for this call.
    let Some(inner) = (unsafe { c.st.lock.batch() }) else {
        return libc::EINVAL;
    };
    if inner.shown() {
        let next = inner.queue.next_index(inner.cur());
        // The completion just read goes back to the kernel now, not at
        // `end_poll`: a batch can stay open while completions keep coming
        // (a ping-pong posting inside it), and the kernel counts the CQ full,
        // and drops what overflows, by the index we publish.
        let _ = inner.queue.publish_consumer(next);
        inner.set(next, false);
    }
    if !show(&c, inner) {
        crate::entry::set_errno(crate::entry::Errno::ENOENT);
        return libc::ENOENT;
    }
    0
}

/// `ibv_end_poll`: consumes what the batch showed and closes it. Nothing
/// outside the calling thread's batch.
#[entry(value(()))]
pub unsafe extern "C" fn end_poll(cq: *mut ibv_cq_ex) {
    let Some(c) = cq::pin(cq.cast::<ibv_cq>()) else {
        return;
    };
    let lock = &c.st.lock;
    // SAFETY: one reference for this call.
    let Some(inner) = (unsafe { lock.batch() }) else {
        return;
    };
    let next = match inner.shown() {
        true => inner.queue.next_index(inner.cur()),
        false => inner.cur(),
    };
    let _ = inner.queue.publish_consumer(next);
    inner.set(inner.cur(), false);
    // SAFETY: `inner` is not used again.
    unsafe { lock.end() };
}

/// Reads a field of the batch's current completion (0 outside the calling
/// thread's batch).
fn read<T>(cq: *mut ibv_cq_ex, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
    let c = cq::pin(cq.cast::<ibv_cq>())?;
    // SAFETY: one reference for this call.
    let inner = unsafe { c.st.lock.batch() }?;
    if !inner.shown() {
        return None;
    }
    inner.queue.slot(inner.cur()).map(f)
}

macro_rules! reader {
    ($name:ident -> $t:ty = $field:ident as $conv:expr) => {
        pub(crate) unsafe extern "C" fn $name(cq: *mut ibv_cq_ex) -> $t {
            read(cq, |s| $conv(s, offset_of!(Cqe, $field))).unwrap_or_default()
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

pub(super) unsafe extern "C" fn read_opcode(cq: *mut ibv_cq_ex) -> ibv_wc_opcode {
    let r = read(cq, |s| u32_at(s, offset_of!(Cqe, opcode)));
    ibv_wc_opcode(r.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copy_cqes` copies each slot's first CQE_SIZE bytes, slot after slot
    /// `stride` apart, to adjacent entries, and nothing past them.
    #[test]
    fn copy_cqes_walks_slots_by_stride() {
        const N: usize = 6;
        for stride in [CQE_SIZE, 64, 128] {
            // u128s: slots are 16-byte aligned.
            let words: Vec<u128> = (0..(N * stride / 16) as u128)
                .map(|w| (w * 0x0101_0101_0101_0101_0101_0101_0101_0101) ^ 0x5a)
                .collect();
            // SAFETY: the vector's bytes, for as long as it lives.
            let slots =
                unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), N * stride) };
            let mut out = vec![0xeeu8; (N + 1) * CQE_SIZE + 1];
            let run = Run {
                first: 0,
                len: N as u32,
                stride,
                bytes: slots,
            };
            // SAFETY: `out` has room for N entries, from its second byte
            // (unaligned on purpose).
            unsafe { copy_cqes(run, out.as_mut_ptr().add(1)) };
            assert_eq!(out[0], 0xee);
            for k in 0..N {
                let at = 1 + k * CQE_SIZE;
                assert_eq!(
                    out[at..at + CQE_SIZE],
                    slots[k * stride..k * stride + CQE_SIZE],
                    "stride {stride}, entry {k}"
                );
            }
            assert!(out[1 + N * CQE_SIZE..].iter().all(|&b| b == 0xee));
        }
    }
}
