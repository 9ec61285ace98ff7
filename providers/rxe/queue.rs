//! The rxe ring buffer shared with the kernel (`struct rxe_queue_buf`).
//!
//! Layout (see `uverbs::rxe::queue_buf`): `log2_elem_size` and `index_mask` at
//! the start, the producer and consumer indices on cache lines of their own,
//! then `index_mask + 1` slots of `1 << log2_elem_size` bytes. A ring is empty
//! when the indices are equal and full when `producer + 1 == consumer`, so it
//! holds one element less than it has slots.
//!
//! Each side owns one index: user space produces on the SQ, RQ and SRQ and
//! consumes on the CQ. We load the kernel's index with acquire (its slot writes
//! or reads happen-before) and store ours with release after touching the
//! slot. Kernels 6.1 through 6.12 share this header layout and protocol: they
//! keep a private copy of their own index, mirror it into the header with a
//! store-release, and read (and mask) ours with a load-acquire.
//!
//! There is no lock here: mutating calls take `&mut self`, so the owner of a
//! queue (one per SQ, RQ, SRQ or CQ) serialises its producers or consumers
//! with its own lock, as rdma-core does with a spinlock per queue.

#![allow(unsafe_code)]

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use super::mmap::Mmap;
use crate::entry::{Errno, Result};
use crate::uverbs::Pod;
use crate::uverbs::rxe::queue_buf;

/// The alignment of every slot (the data start is page offset 384 and the
/// kernel's slots are powers of two of at least 64 bytes).
const SLOT_ALIGN: usize = 64;

/// The mapping plus the geometry read once from its header and checked
/// against the mapping size, so later header writes cannot move us out of
/// bounds. The index words and the slot array sit at fixed offsets of the
/// mapping's start, which is all a ring keeps (with its mask and element
/// size: 16 bytes, heap per queue): it owns the mapping and unmaps it.
/// Aligned to 4 only, so that a lock word and the 4-byte fields of the
/// queue's state pack beside it with no padding (the pointer is read by
/// value, one unaligned-capable load as any other).
#[derive(Debug)]
#[repr(Rust, packed(4))]
struct Ring {
    /// Start of the mapping (header, index words, then the slots at
    /// `queue_buf::DATA`); owned.
    base: NonNull<u8>,
    mask: u32,
    log2_elem_size: u8,
    /// A heap-backed stand-in (`Mmap::heap`), released as one.
    heap: bool,
    /// The slot size in 16-byte units, saturated (`Batch::next_parts`'s
    /// room check: one load and compare, in the struct's padding).
    elem16: u16,
}

// SAFETY: the pointer leads into the mapping, which the Ring owns and which
// is plain memory; every access through it is atomic or follows the ring
// protocol (see the module doc).
unsafe impl Send for Ring {}
// SAFETY: as above.
unsafe impl Sync for Ring {}

// The index words lie in the header, before the slots, 4-aligned.
const _: () = assert!(
    queue_buf::PRODUCER_INDEX.is_multiple_of(4)
        && queue_buf::CONSUMER_INDEX.is_multiple_of(4)
        && queue_buf::PRODUCER_INDEX + 4 <= queue_buf::DATA
        && queue_buf::CONSUMER_INDEX + 4 <= queue_buf::DATA
);

/// Where the producer and consumer index words of a mapped ring are (the
/// ring's start). It does not keep the mapping alive: a CQ keeps its first
/// ring mapped while it checks these without its lock (see
/// `ConsumerQueue::remap`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexWords {
    base: NonNull<u8>,
}

// SAFETY: a pointer to atomics; reading them is `unsafe` (see `is_empty`).
unsafe impl Send for IndexWords {}
// SAFETY: as above.
unsafe impl Sync for IndexWords {}

impl IndexWords {
    /// The words as a pointer (to keep them in an `AtomicPtr`).
    pub(crate) fn as_ptr(self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// The words `as_ptr` gave.
    pub(crate) fn from_ptr(base: NonNull<u8>) -> IndexWords {
        IndexWords { base }
    }

    /// The word at `off` (a header index word, see the assertion above).
    ///
    /// # Safety
    /// The ring's mapping is still mapped, for `'a`.
    #[inline(always)]
    unsafe fn word<'a>(self, off: usize) -> &'a AtomicU32 {
        // SAFETY: inside the header of a mapping `Ring::new` checked is at
        // least `DATA` bytes, 4-aligned (page-aligned start), mapped per the
        // contract; accessed atomically only.
        unsafe { &*self.base.as_ptr().add(off).cast::<AtomicU32>() }
    }

    /// Whether the ring held nothing at one instant between the call and
    /// its return: both sides store their indices masked, and the consumer
    /// index only moves towards the producer's. Needs no lock.
    ///
    /// # Safety
    /// The mapping these words were taken from is still mapped.
    pub(crate) unsafe fn is_empty(&self) -> bool {
        // SAFETY: per the contract.
        let (prod, cons) = unsafe {
            (
                self.word(queue_buf::PRODUCER_INDEX),
                self.word(queue_buf::CONSUMER_INDEX),
            )
        };
        let c = cons.load(Ordering::Relaxed);
        prod.load(Ordering::Acquire) == c
    }
}

impl Ring {
    fn new(map: Mmap, min_elem_size: usize) -> Result<Ring> {
        let word = |off| {
            map.atomic_u32(off)
                .map(|a| a.load(Ordering::Acquire))
                .ok_or(Errno::EINVAL)
        };
        let log2_elem_size = word(queue_buf::LOG2_ELEM_SIZE)?;
        let mask = word(queue_buf::INDEX_MASK)?;
        let slots = u64::from(mask) + 1;
        let bytes = (log2_elem_size < 32)
            .then(|| slots << log2_elem_size)
            .ok_or(Errno::EINVAL)?;
        let end = (queue_buf::DATA as u64).checked_add(bytes);
        let fits = end.is_some_and(|end| end <= map.len() as u64);
        if !slots.is_power_of_two() || !fits || (1usize << log2_elem_size) < min_elem_size {
            return Err(Errno::EINVAL);
        }
        let data = map
            .raw(queue_buf::DATA, bytes as usize)
            .ok_or(Errno::EINVAL)?;
        // Slots are aligned for any element header (`Batch::next_parts`).
        if !(data.as_ptr() as usize).is_multiple_of(SLOT_ALIGN)
            || (1usize << log2_elem_size) < SLOT_ALIGN
        {
            return Err(Errno::EINVAL);
        }
        // The ring unmaps what its geometry spans: a mapping with whole
        // pages beyond that (the kernel's has none; a heap stand-in is freed
        // whole) would stay mapped. And a
        // CQ keeps that span in 30 bits of 64 B units
        // (`ConsumerQueue::keep_mapped`).
        let used = queue_buf::DATA + bytes as usize;
        let last_page = !(crate::fork::page_size() - 1);
        let spare_pages = !map.is_heap() && map.len() > (used + !last_page) & last_page;
        if used >> KEPT_UNIT >= KEPT_HEAP as usize || spare_pages {
            return Err(Errno::EINVAL);
        }
        let (base, _, heap) = map.into_raw();
        Ok(Ring {
            base,
            mask,
            log2_elem_size: log2_elem_size as u8,
            heap,
            elem16: u16::try_from((1u64 << log2_elem_size) >> 4).unwrap_or(u16::MAX),
        })
    }

    /// The bytes the ring spans from its start (checked in `new` to reach
    /// into the mapping's last page).
    fn map_len(&self) -> usize {
        queue_buf::DATA + ((self.mask as usize + 1) << self.log2_elem_size)
    }

    #[inline(always)]
    fn words(&self) -> IndexWords {
        IndexWords { base: self.base }
    }

    #[inline(always)]
    fn producer(&self) -> &AtomicU32 {
        self.geo().producer()
    }

    #[inline(always)]
    fn consumer(&self) -> &AtomicU32 {
        self.geo().consumer()
    }

    #[inline(always)]
    fn elem_size(&self) -> usize {
        1 << self.log2_elem_size
    }

    #[inline(always)]
    fn next(&self, index: u32) -> u32 {
        index.wrapping_add(1) & self.mask
    }

    /// Elements from `from` up to (excluding) `to`, modulo the ring.
    #[inline(always)]
    fn distance(&self, from: u32, to: u32) -> u32 {
        self.geo().distance(from, to)
    }

    #[inline(always)]
    fn slot_ptr(&self, index: u32) -> *mut u8 {
        self.geo().slot_ptr(index)
    }

    fn slot(&self, index: u32) -> &[u8] {
        // SAFETY: a whole slot inside the live mapping (see `slot_ptr`); the
        // ring protocol keeps the kernel off the slots we are given.
        unsafe { std::slice::from_raw_parts(self.slot_ptr(index), self.elem_size()) }
    }

    #[inline(always)]
    fn slot_mut(&mut self, index: u32) -> &mut [u8] {
        // SAFETY: as in `slot`; `&mut self` excludes our other views.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(index), self.elem_size()) }
    }
}

impl Ring {
    /// The ring's geometry as values, for a run of accesses (see [`Geo`]).
    #[inline(always)]
    fn geo(&self) -> Geo<'_> {
        Geo {
            base: self.base,
            mask: self.mask,
            log2_elem_size: self.log2_elem_size,
            _ring: std::marker::PhantomData,
        }
    }
}

/// A copy of a ring's geometry, borrowed from it: values the compiler keeps
/// in registers across the acquire load of the kernel's index, after which
/// it would re-read the ring's fields (an acquire orders later loads).
#[derive(Clone, Copy)]
struct Geo<'a> {
    base: NonNull<u8>,
    mask: u32,
    log2_elem_size: u8,
    _ring: std::marker::PhantomData<&'a Ring>,
}

impl<'a> Geo<'a> {
    #[inline(always)]
    fn producer(self) -> &'a AtomicU32 {
        // SAFETY: the borrowed ring owns the mapping (see `IndexWords::word`).
        unsafe { IndexWords { base: self.base }.word(queue_buf::PRODUCER_INDEX) }
    }

    #[inline(always)]
    fn consumer(self) -> &'a AtomicU32 {
        // SAFETY: as in `producer`.
        unsafe { IndexWords { base: self.base }.word(queue_buf::CONSUMER_INDEX) }
    }

    /// Elements from `from` up to (excluding) `to`, modulo the ring.
    #[inline(always)]
    fn distance(self, from: u32, to: u32) -> u32 {
        to.wrapping_sub(from) & self.mask
    }

    #[inline(always)]
    fn slot_ptr(self, index: u32) -> *mut u8 {
        let off = ((index & self.mask) as usize) << self.log2_elem_size;
        // Inside the slot array: the index is masked and `Ring::new` checked
        // that `mask + 1` slots fit in the mapping after `DATA`.
        self.base.as_ptr().wrapping_add(queue_buf::DATA + off)
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` took over with `into_raw`, every page of
        // it spanned by `map_len` (checked there); no view outlives `self`.
        unsafe { super::mmap::release_raw(self.base, self.map_len(), self.heap) };
    }
}

const _: () =
    assert!(size_of::<Ring>() == 16 && size_of::<Option<Ring>>() == 16 && align_of::<Ring>() == 4);

/// A ring user space produces into: the send queue, receive queue or SRQ.
#[derive(Debug)]
pub(crate) struct ProducerQueue {
    ring: Ring,
}

impl ProducerQueue {
    /// Wraps a mapped queue; `EINVAL` if its header does not fit the mapping
    /// or its elements are smaller than `min_elem_size`.
    pub(crate) fn new(map: Mmap, min_elem_size: usize) -> Result<Self> {
        Ok(ProducerQueue {
            ring: Ring::new(map, min_elem_size)?,
        })
    }

    /// Switches to the mapping the kernel returned for a resized queue (SRQ
    /// resize). On error the old mapping stays, but the kernel no longer reads
    /// it, so the caller must stop using this queue.
    pub(crate) fn remap(&mut self, map: Mmap, min_elem_size: usize) -> Result<()> {
        self.ring = Ring::new(map, min_elem_size)?;
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn elem_size(&self) -> usize {
        self.ring.elem_size()
    }

    pub(crate) fn num_slots(&self) -> u32 {
        self.ring.mask + 1
    }

    /// Our index (only we write it, hence relaxed), masked in case the header
    /// was scribbled on.
    #[inline(always)]
    pub(crate) fn producer_index(&self) -> u32 {
        self.ring.producer().load(Ordering::Relaxed) & self.ring.mask
    }

    /// The kernel's index; acquire so that its reads of the slots it has
    /// released are over before we reuse them.
    #[inline(always)]
    pub(crate) fn consumer_index(&self) -> u32 {
        self.ring.consumer().load(Ordering::Acquire) & self.ring.mask
    }

    /// Posted elements the kernel has not consumed yet.
    pub(crate) fn len(&self) -> u32 {
        self.ring
            .distance(self.consumer_index(), self.producer_index())
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[cfg(test)]
    pub(crate) fn full(&self) -> bool {
        let prod = self.producer_index();
        self.consumer_index() == self.ring.next(prod)
    }

    /// The slot at the producer index. It is never one the kernel reads, even
    /// when the ring is full (then it is the gap before the consumer).
    #[cfg(test)]
    pub(crate) fn producer_slot(&mut self) -> &mut [u8] {
        let prod = self.producer_index();
        self.ring.slot_mut(prod)
    }

    /// Publishes the producer slot: `ENOMEM` (what rdma-core's rxe returns)
    /// if the ring is full.
    #[cfg(test)]
    pub(crate) fn advance_producer(&mut self) -> Result<()> {
        let mut b = self.batch();
        b.take()?;
        Ok(())
    }

    /// Writes the producer slot with `fill` and publishes it if `fill`
    /// succeeds. As in rdma-core's post_send, a bad request is reported
    /// before a full ring (the slot written is never the kernel's).
    pub(crate) fn push_with(&mut self, fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<()> {
        self.batch().push_with(fill)
    }

    /// Starts a run of posts that are published together, with one store
    /// of the producer index when the batch is dropped.
    #[inline(always)]
    pub(crate) fn batch(&mut self) -> Batch<'_> {
        Batch::new(self)
    }

    /// The free slot at `index`, for batching several elements before one
    /// `publish_producer` (the `ibv_wr_*` API). `ENOSPC` if the slot is not
    /// free (it would be the gap slot or one the kernel owns). Until
    /// published, `push_with` would reuse the batch's first slot: hold the
    /// queue's lock from the first write to `publish_producer`.
    pub(crate) fn slot_mut(&mut self, index: u32) -> Result<&mut [u8]> {
        let prod = self.producer_index();
        let free = self.ring.mask - self.len();
        if self.ring.distance(prod, index) >= free || index > self.ring.mask {
            return Err(Errno(libc::ENOSPC));
        }
        Ok(self.ring.slot_mut(index))
    }

    /// The index after `index`, wrapped.
    pub(crate) fn next_index(&self, index: u32) -> u32 {
        self.ring.next(index)
    }

    /// Publishes every slot up to (excluding) `index`, written through
    /// `slot_mut`. `EINVAL` if that would pass the free space.
    pub(crate) fn publish_producer(&mut self, index: u32) -> Result<()> {
        let prod = self.producer_index();
        let free = self.ring.mask - self.len();
        if self.ring.distance(prod, index) > free || index > self.ring.mask {
            return Err(Errno::EINVAL);
        }
        self.ring.producer().store(index, Ordering::Release);
        Ok(())
    }
}

/// Posts into a [`ProducerQueue`] published together when dropped (the
/// kernel sees them at once, as after a doorbell); see `ProducerQueue::batch`.
pub(crate) struct Batch<'a> {
    q: &'a mut ProducerQueue,
    prod: u32,
    /// The kernel's index as last read: the ring is full while the slot
    /// after `prod` is this one (read again only then: one compare per
    /// post, no free count kept).
    cons: u32,
    /// The ring's mask, read once (slot writes through raw pointers would
    /// make the compiler read it again after each).
    mask: u32,
}

impl<'a> Batch<'a> {
    #[inline(always)]
    fn new(q: &'a mut ProducerQueue) -> Batch<'a> {
        let prod = q.producer_index();
        let cons = q.consumer_index();
        let mask = q.ring.mask;
        Batch {
            q,
            prod,
            cons,
            mask,
        }
    }
}

impl Batch<'_> {
    /// Whether no slot is free (the kernel's index is read again first if
    /// it looked so).
    #[inline(always)]
    pub(crate) fn full(&mut self) -> bool {
        let next = self.prod.wrapping_add(1) & self.mask;
        // Not full by the index as last read: one compare, no second one
        // on the way.
        if next != self.cons {
            return false;
        }
        self.cons = self.q.consumer_index();
        next == self.cons
    }

    /// Claims the current slot for the batch; `ENOMEM` if the ring is full.
    #[inline(always)]
    fn take(&mut self) -> Result<()> {
        let next = self.prod.wrapping_add(1) & self.mask;
        if next == self.cons {
            self.cons = self.q.consumer_index();
            if next == self.cons {
                return Err(Errno::ENOMEM);
            }
        }
        self.prod = next;
        Ok(())
    }

    /// Adds the slot from `next_slot` or `next_parts` to the batch after
    /// `full` said false (no post since): no second look at the ring.
    #[inline(always)]
    pub(crate) fn commit_checked(&mut self) {
        debug_assert!(!self.full());
        self.prod = self.prod.wrapping_add(1) & self.mask;
    }

    /// The slot the next post writes (`push_with` without a closure: write
    /// it, then `commit`).
    #[inline(always)]
    pub(crate) fn next_slot(&mut self) -> &mut [u8] {
        self.q.ring.slot_mut(self.prod)
    }

    /// The next slot as a header `H` followed by `n` 16-byte entries (SGEs),
    /// or `None` if they do not fit in a slot. Write it, then `commit`.
    #[inline(always)]
    pub(crate) fn next_parts<H: Pod>(&mut self, n: usize) -> Option<(&mut H, &mut [[u8; 16]])> {
        const { assert!(align_of::<H>() <= SLOT_ALIGN) };
        // The header's size in 16-byte units, rounded up: header and `n`
        // entries fit if that plus `n` does not pass the slot's units
        // (`elem16`, exact: slots are at least 64 B, powers of two; a
        // saturated one under-reports, refusing only lists far beyond any
        // QP's `max_sge`).
        let hdr16 = size_of::<H>().div_ceil(16);
        if n.checked_add(hdr16)
            .is_none_or(|units| units > usize::from(self.q.ring.elem16))
        {
            return None;
        }
        let p = self.next_slot().as_mut_ptr();
        // SAFETY: a slot inside the mapping, never address 0 (the hint
        // spares callers' `Option` a null test).
        unsafe { std::hint::assert_unchecked(!p.is_null()) };
        // SAFETY: `p` is a slot of ours (see `next_slot`), aligned to
        // SLOT_ALIGN (checked in `Ring::new`: the data start is, and slots
        // are powers of two of at least that size), with room for the header
        // and `n` entries (checked above: `16 * elem16` is at most the slot
        // size); the two parts do not overlap, and any bytes are valid for a
        // `Pod` and for byte arrays.
        unsafe {
            let tail = p.add(size_of::<H>()).cast::<[u8; 16]>();
            Some((&mut *p.cast::<H>(), std::slice::from_raw_parts_mut(tail, n)))
        }
    }

    /// The next slot as a header `H` followed by `len` bytes (inline data),
    /// or `None` if they do not fit in a slot. Write it, then `commit`.
    #[inline(always)]
    pub(crate) fn next_bytes<H: Pod>(&mut self, len: usize) -> Option<(&mut H, &mut [u8])> {
        const { assert!(align_of::<H>() <= SLOT_ALIGN) };
        // `16 * elem16` is at most the slot size (see `next_parts`); `len`
        // is at most `u32::MAX` on the post path, so the sum cannot wrap.
        if len.saturating_add(size_of::<H>()) > usize::from(self.q.ring.elem16) * 16 {
            return None;
        }
        let p = self.next_slot().as_mut_ptr();
        // SAFETY: as in `next_parts`.
        unsafe { std::hint::assert_unchecked(!p.is_null()) };
        // SAFETY: as in `next_parts`, for a header and `len` bytes (checked
        // above).
        unsafe {
            let tail = p.add(size_of::<H>());
            Some((
                &mut *p.cast::<H>(),
                std::slice::from_raw_parts_mut(tail, len),
            ))
        }
    }

    /// Adds the slot from `next_slot` to the batch; `ENOMEM` if the ring
    /// is full (then the slot stays unpublished).
    #[inline(always)]
    pub(crate) fn commit(&mut self) -> Result<()> {
        self.take()
    }

    /// Writes the next slot with `fill` and adds it to the batch if `fill`
    /// succeeds and the ring has room (`ENOMEM` otherwise): a bad request is
    /// reported before a full ring, as in rdma-core's post_send.
    #[inline(always)]
    pub(crate) fn push_with(&mut self, fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<()> {
        fill(self.next_slot())?;
        self.take()
    }
}

impl Drop for Batch<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // Release: the slot contents are visible to the kernel before the
        // index. Stored even when nothing was posted (the same value again,
        // which the kernel cannot tell apart): no compare on the way.
        self.q.ring.producer().store(self.prod, Ordering::Release);
    }
}

/// In what `ConsumerQueue::keep_mapped` returns: the ring is a heap-backed
/// stand-in (the rest is its span, in units of `1 << KEPT_UNIT` bytes).
const KEPT_HEAP: u32 = 1 << 30;
const KEPT_UNIT: u32 = 6;
const _: () =
    assert!(queue_buf::DATA.is_multiple_of(1 << KEPT_UNIT) && SLOT_ALIGN >= 1 << KEPT_UNIT);

/// Unmaps a ring given up with `ConsumerQueue::keep_mapped`.
///
/// # Safety
/// `words` and `kept` are one ring's (`index_words`, `keep_mapped`), not
/// unmapped before; nothing reads through `words` afterwards.
pub(crate) unsafe fn unmap_kept(words: IndexWords, kept: u32) {
    let len = ((kept & (KEPT_HEAP - 1)) as usize) << KEPT_UNIT;
    // SAFETY: per the contract, the mapping `Ring::new` took over.
    unsafe { super::mmap::release_raw(words.base, len, kept & KEPT_HEAP != 0) };
}

/// Completions in adjacent slots of a [`ConsumerQueue`], handed out by
/// `drain`: the copy loop walks them by pointer, with no index arithmetic.
#[derive(Clone, Copy)]
pub(crate) struct Run<'a> {
    /// Position of the first among those the `drain` call reads.
    pub(crate) first: u32,
    /// Number of completions, at least 1.
    pub(crate) len: u32,
    /// Bytes from one slot to the next (the element size).
    pub(crate) stride: usize,
    /// The slots, `len * stride` bytes.
    pub(crate) bytes: &'a [u8],
}

impl<'a> Run<'a> {
    /// Each completion's position among the call's and its slot.
    pub(crate) fn slots(self) -> impl Iterator<Item = (u32, &'a [u8])> {
        (self.first..).zip(self.bytes.chunks_exact(self.stride))
    }
}

/// A ring user space consumes from: the completion queue.
#[derive(Debug)]
pub(crate) struct ConsumerQueue {
    ring: Ring,
}

impl ConsumerQueue {
    /// As [`ProducerQueue::new`].
    pub(crate) fn new(map: Mmap, min_elem_size: usize) -> Result<Self> {
        Ok(ConsumerQueue {
            ring: Ring::new(map, min_elem_size)?,
        })
    }

    /// Switches to the mapping returned by a CQ resize. The kernel has copied
    /// the pending completions into it and set its indices. Returns the old
    /// ring (the caller unmaps it by dropping it, or keeps it mapped for
    /// readers of its `index_words`). On error the caller must stop using
    /// this queue.
    pub(crate) fn remap(&mut self, map: Mmap, min_elem_size: usize) -> Result<ConsumerQueue> {
        let ring = std::mem::replace(&mut self.ring, Ring::new(map, min_elem_size)?);
        Ok(ConsumerQueue { ring })
    }

    pub(crate) fn elem_size(&self) -> usize {
        self.ring.elem_size()
    }

    pub(crate) fn num_slots(&self) -> u32 {
        self.ring.mask + 1
    }

    /// The kernel's index; acquire so the completions before it are visible.
    #[inline(always)]
    pub(crate) fn producer_index(&self) -> u32 {
        self.ring.producer().load(Ordering::Acquire) & self.ring.mask
    }

    /// Our index (only we write it).
    #[inline(always)]
    pub(crate) fn consumer_index(&self) -> u32 {
        self.ring.consumer().load(Ordering::Relaxed) & self.ring.mask
    }

    /// Completions waiting.
    pub(crate) fn len(&self) -> u32 {
        let cons = self.consumer_index();
        self.ring.distance(cons, self.producer_index())
    }

    pub(crate) fn empty(&self) -> bool {
        self.producer_index() == self.consumer_index()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.empty()
    }

    /// The oldest completion, `None` if there is none.
    #[cfg(test)]
    pub(crate) fn consumer_slot(&self) -> Option<&[u8]> {
        self.slot(self.consumer_index())
    }

    /// The completion at `index` if the kernel has produced it and we have not
    /// consumed it (for `ibv_start_poll`/`ibv_next_poll`).
    pub(crate) fn slot(&self, index: u32) -> Option<&[u8]> {
        let cons = self.consumer_index();
        let ready = self.ring.distance(cons, self.producer_index());
        (self.ring.distance(cons, index) < ready).then(|| self.ring.slot(index))
    }

    /// Reads up to `max` of the oldest completions in order, in at most two
    /// [`Run`]s of adjacent slots (before and after the wrap), `each(run)`
    /// for each, then releases them to the kernel with one store. Returns
    /// how many were read. None or one (a latency-bound poller's usual case)
    /// inline, in the caller's frame; more out of line.
    #[inline(always)]
    pub(crate) fn drain(&mut self, max: u32, mut each: impl FnMut(Run<'_>)) -> u32 {
        let g = self.ring.geo();
        let cons = g.consumer().load(Ordering::Relaxed) & g.mask;
        // Acquire: the kernel's completions before its index are visible.
        let prod = g.producer().load(Ordering::Acquire) & g.mask;
        let n = g.distance(cons, prod);
        match n.min(max) {
            0 => 0,
            1 => {
                let stride = 1 << g.log2_elem_size;
                // SAFETY: slot `cons`: inside the live mapping (see
                // `Ring::slot_ptr`); the kernel does not write the slots
                // between our index and its own.
                let bytes = unsafe { std::slice::from_raw_parts(g.slot_ptr(cons), stride) };
                each(Run {
                    first: 0,
                    len: 1,
                    stride,
                    bytes,
                });
                // Release: our reads of the slot are done before the kernel
                // reuses it.
                g.consumer()
                    .store(cons.wrapping_add(1) & g.mask, Ordering::Release);
                1
            }
            n => self.drain_runs(cons, n, each),
        }
    }

    /// `drain` of `n` > 1 completions from `cons`.
    #[inline(never)]
    fn drain_runs(&mut self, cons: u32, n: u32, mut each: impl FnMut(Run<'_>)) -> u32 {
        let stride = self.ring.elem_size();
        // The run before the wrap (never empty: `cons` is a slot), then the
        // rest from slot 0; one call site, so `each` is inlined once.
        let (mut first, mut at, mut len) = (0, cons, (self.ring.mask - cons + 1).min(n));
        loop {
            // SAFETY: slots `at..at + len`, all before the wrap: inside the
            // live mapping (see `Ring::slot_ptr`); the kernel does not write
            // the slots between our index and its own.
            let bytes = unsafe {
                std::slice::from_raw_parts(self.ring.slot_ptr(at), len as usize * stride)
            };
            each(Run {
                first,
                len,
                stride,
                bytes,
            });
            first += len;
            if first == n {
                break;
            }
            (at, len) = (0, n - first);
        }
        let next = cons.wrapping_add(n) & self.ring.mask;
        // Release: our reads of the slots are done before the kernel reuses them.
        self.ring.consumer().store(next, Ordering::Release);
        n
    }

    /// Gives the ring up, still mapped: what [`unmap_kept`] needs to unmap
    /// it later with its `index_words` (non-zero, below bit 31).
    pub(crate) fn keep_mapped(self) -> u32 {
        let r = std::mem::ManuallyDrop::new(self.ring);
        // A multiple of 64 B (DATA and the slots are) below KEPT_HEAP units
        // (checked in `Ring::new`).
        (r.map_len() >> KEPT_UNIT) as u32 | if r.heap { KEPT_HEAP } else { 0 }
    }

    /// The ring's index words, for a lock-free emptiness check; valid while
    /// this mapping is (see `remap`).
    pub(crate) fn index_words(&self) -> IndexWords {
        self.ring.words()
    }

    /// Releases the oldest completion to the kernel; `ENOENT` if empty.
    #[cfg(test)]
    pub(crate) fn advance_consumer(&mut self) -> Result<()> {
        if self.empty() {
            return Err(Errno::ENOENT);
        }
        let next = self.ring.next(self.consumer_index());
        // Release: our reads of the slot are done before the kernel reuses it.
        self.ring.consumer().store(next, Ordering::Release);
        Ok(())
    }

    /// Reads the oldest completion with `read` and releases its slot.
    #[cfg(test)]
    pub(crate) fn pop_with<T>(&mut self, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let v = read(self.consumer_slot()?);
        self.advance_consumer().ok()?;
        Some(v)
    }

    /// The index after `index`, wrapped.
    pub(crate) fn next_index(&self, index: u32) -> u32 {
        self.ring.next(index)
    }

    /// Releases every completion before `index` (read through `slot`).
    /// `EINVAL` if that would pass the producer.
    pub(crate) fn publish_consumer(&mut self, index: u32) -> Result<()> {
        let cons = self.consumer_index();
        if self.ring.distance(cons, index) > self.len() || index > self.ring.mask {
            return Err(Errno::EINVAL);
        }
        self.ring.consumer().store(index, Ordering::Release);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
