//! Ring tests against a heap block with two views (`shared_pair`): one for
//! the queue under test, one for a stand-in kernel that follows the driver's protocol.

use super::*;
use crate::providers::rxe::mmap::shared_pair;

/// The kernel's side: its own view of the ring.
struct Kernel {
    m: Mmap,
    log2: u32,
    mask: u32,
}

impl Kernel {
    fn prod(&self) -> &AtomicU32 {
        self.m.atomic_u32(queue_buf::PRODUCER_INDEX).unwrap()
    }

    fn cons(&self) -> &AtomicU32 {
        self.m.atomic_u32(queue_buf::CONSUMER_INDEX).unwrap()
    }

    fn slot(&self, i: u32) -> &[u8] {
        let off = queue_buf::DATA + ((i & self.mask) << self.log2) as usize;
        self.m.bytes(off, 1 << self.log2).unwrap()
    }

    fn slot_mut(&mut self, i: u32) -> &mut [u8] {
        let off = queue_buf::DATA + ((i & self.mask) << self.log2) as usize;
        self.m.bytes_mut(off, 1 << self.log2).unwrap()
    }

    /// Consumes one element of a ring user space produces; its first 8 bytes.
    fn consume(&self) -> Option<u64> {
        let c = self.cons().load(Ordering::Relaxed);
        if self.prod().load(Ordering::Acquire) == c {
            return None;
        }
        let v = u64::from_ne_bytes(self.slot(c)[..8].try_into().unwrap());
        self.cons().store((c + 1) & self.mask, Ordering::Release);
        Some(v)
    }

    /// Produces one element (first and last 8 bytes `v`) of a ring user
    /// space consumes; false when full.
    fn produce(&mut self, v: u64) -> bool {
        let p = self.prod().load(Ordering::Relaxed);
        if self.cons().load(Ordering::Acquire) == (p + 1) & self.mask {
            return false;
        }
        let s = self.slot_mut(p);
        let n = s.len();
        s[..8].copy_from_slice(&v.to_ne_bytes());
        s[n - 8..].copy_from_slice(&v.to_ne_bytes());
        self.prod().store((p + 1) & self.mask, Ordering::Release);
        true
    }

    fn header(&self) -> Vec<u8> {
        self.m.bytes(0, queue_buf::DATA).unwrap().to_vec()
    }
}

/// A ring of `slots` elements of `1 << log2` bytes, initialised as the
/// kernel does; returns the user mapping and the kernel's view.
fn ring(slots: u32, log2: u32) -> (Mmap, Kernel) {
    let len = queue_buf::DATA + ((slots as usize) << log2);
    let (user, mut m) = shared_pair(len).unwrap();
    m.bytes_mut(0, 4)
        .unwrap()
        .copy_from_slice(&log2.to_ne_bytes());
    m.bytes_mut(4, 4)
        .unwrap()
        .copy_from_slice(&(slots - 1).to_ne_bytes());
    let mask = slots - 1;
    (user, Kernel { m, log2, mask })
}

fn put(slot: &mut [u8], v: u64) {
    slot[..8].copy_from_slice(&v.to_ne_bytes());
}

/// A `push_with` filler writing `v`.
fn val(v: u64) -> impl FnOnce(&mut [u8]) -> Result<()> {
    move |s| {
        put(s, v);
        Ok(())
    }
}

fn first(slot: &[u8]) -> u64 {
    u64::from_ne_bytes(slot[..8].try_into().unwrap())
}

#[test]
fn header_is_validated() {
    let hdr = |log2: u32, mask: u32, len: usize| {
        let mut m = Mmap::heap(len).unwrap();
        m.bytes_mut(0, 4)
            .unwrap()
            .copy_from_slice(&log2.to_ne_bytes());
        m.bytes_mut(4, 4)
            .unwrap()
            .copy_from_slice(&mask.to_ne_bytes());
        ProducerQueue::new(m, 64).map(|q| q.num_slots())
    };
    let fits = queue_buf::DATA + 8 * 64;
    assert_eq!(hdr(6, 7, fits), Ok(8));
    assert_eq!(hdr(6, 7, fits - 1), Err(Errno::EINVAL), "data past the end");
    assert_eq!(hdr(6, 6, fits), Err(Errno::EINVAL), "not a power of two");
    assert_eq!(hdr(5, 7, fits), Err(Errno::EINVAL), "elements too small");
    assert_eq!(hdr(32, 0, fits), Err(Errno::EINVAL), "shift overflow");
    assert_eq!(hdr(6, u32::MAX, fits), Err(Errno::EINVAL));
    assert_eq!(hdr(6, 0, 100), Err(Errno::EINVAL), "no room for the header");
}

#[test]
fn producer_full_empty_and_wrap() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    assert_eq!((q.elem_size(), q.num_slots()), (64, 4));
    assert!(q.is_empty() && !q.full());
    let mut next = 0u64;
    let mut expect = 0u64;
    for round in 0..10 {
        // Fill to capacity (slots - 1), then one more fails and changes nothing.
        while !q.full() {
            q.push_with(val(next)).unwrap();
            next += 1;
        }
        assert_eq!(q.len(), 3);
        let before = q.producer_index();
        assert_eq!(q.push_with(val(999)), Err(Errno::ENOMEM));
        assert_eq!(q.advance_producer(), Err(Errno::ENOMEM));
        assert_eq!(q.producer_index(), before);
        // The kernel drains part (or all) of it.
        for _ in 0..(1 + round % 3) {
            assert_eq!(k.consume(), Some(expect));
            expect += 1;
        }
        assert!(!q.full());
    }
    while let Some(v) = k.consume() {
        assert_eq!(v, expect);
        expect += 1;
    }
    assert_eq!(expect, next);
    assert!(q.is_empty());
    assert!(q.producer_index() <= 3, "indices stay masked");
}

#[test]
fn fill_error_publishes_nothing() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    assert_eq!(q.push_with(|_| Err(Errno::EINVAL)), Err(Errno::EINVAL));
    assert_eq!(k.prod().load(Ordering::Relaxed), 0);
}

#[test]
fn advance_writes_only_our_index() {
    let (m, k) = ring(8, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    let before = k.header();
    let others: Vec<Vec<u8>> = (1..8).map(|i| k.slot(i).to_vec()).collect();
    q.push_with(|s| {
        s.fill(0x5a);
        Ok(())
    })
    .unwrap();
    let after = k.header();
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    assert_eq!(changed, vec![queue_buf::PRODUCER_INDEX]);
    assert_eq!(k.prod().load(Ordering::Relaxed), 1);
    assert!(k.slot(0).iter().all(|&b| b == 0x5a));
    for (i, s) in (1..8).zip(&others) {
        assert_eq!(k.slot(i), &s[..], "slot {i} untouched");
    }

    // Same for the consumer side: only the consumer index moves.
    let (cm, mut ck) = ring(8, 6);
    let mut cq = ConsumerQueue::new(cm, 48).unwrap();
    assert!(ck.produce(42));
    let before = ck.header();
    assert_eq!(cq.pop_with(first), Some(42));
    let after = ck.header();
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    assert_eq!(changed, vec![queue_buf::CONSUMER_INDEX]);
}

#[test]
fn consumer_empty_and_wrap() {
    let (m, mut k) = ring(4, 6);
    let mut q = ConsumerQueue::new(m, 48).unwrap();
    assert!(q.empty() && q.consumer_slot().is_none());
    assert_eq!(q.advance_consumer(), Err(Errno::ENOENT));
    assert_eq!(q.pop_with(first), None);
    let (mut made, mut seen) = (0u64, 0u64);
    for round in 0..10 {
        while k.produce(made) {
            made += 1;
        }
        assert_eq!(q.len(), 3, "round {round}");
        for _ in 0..(1 + round % 3) {
            let s = q.consumer_slot().unwrap();
            assert_eq!((first(s), first(&s[s.len() - 8..])), (seen, seen));
            q.advance_consumer().unwrap();
            seen += 1;
        }
    }
    while let Some(v) = q.pop_with(first) {
        assert_eq!(v, seen);
        seen += 1;
    }
    assert_eq!(seen, made);
    assert!(q.empty());
}

#[test]
fn consumer_batch_poll() {
    let (m, mut k) = ring(8, 6);
    let mut q = ConsumerQueue::new(m, 48).unwrap();
    for v in 0..5 {
        assert!(k.produce(v));
    }
    q.pop_with(first).unwrap();
    q.pop_with(first).unwrap();
    let mut i = q.consumer_index();
    let mut got = vec![];
    while let Some(s) = q.slot(i) {
        got.push(first(s));
        i = q.next_index(i);
    }
    assert_eq!(got, vec![2, 3, 4]);
    assert_eq!(q.len(), 3, "reading does not consume");
    assert_eq!(q.publish_consumer(q.next_index(i)), Err(Errno::EINVAL));
    assert_eq!(q.publish_consumer(99), Err(Errno::EINVAL));
    q.publish_consumer(i).unwrap();
    assert!(q.empty());
    assert_eq!(k.cons().load(Ordering::Relaxed), 5);
}

#[test]
fn producer_batch_post() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    q.push_with(val(100)).unwrap();
    assert_eq!(k.consume(), Some(100));
    q.push_with(val(200)).unwrap();
    // One pending: two free slots plus the gap; write two, the gap is refused.
    let mut i = q.producer_index();
    for v in 0..2 {
        put(q.slot_mut(i).unwrap(), v);
        i = q.next_index(i);
    }
    assert_eq!(q.slot_mut(i).unwrap_err(), Errno(libc::ENOSPC));
    assert_eq!(q.slot_mut(6).unwrap_err(), Errno(libc::ENOSPC), "unmasked");
    assert_eq!(k.consume(), Some(200));
    assert_eq!(k.consume(), None, "batch not published yet");
    assert_eq!(q.publish_producer(4), Err(Errno::EINVAL), "unmasked");
    q.publish_producer(i).unwrap();
    let got: Vec<_> = std::iter::from_fn(|| k.consume()).collect();
    assert_eq!(got, vec![0, 1]);
}

#[test]
fn publish_past_free_space_is_refused() {
    let (m, _k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    q.push_with(val(1)).unwrap();
    q.push_with(val(2)).unwrap();
    // prod 2, cons 0: one free slot (index 2); index 0 would overrun the kernel.
    assert_eq!(q.publish_producer(0), Err(Errno::EINVAL));
    assert_eq!(q.publish_producer(1), Err(Errno::EINVAL));
    q.publish_producer(3).unwrap();
    assert!(q.full());
}

#[test]
fn scribbled_own_index_is_masked() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    // Our index word in shared memory gets garbage: we still stay in bounds.
    k.prod().store(0xffff_fff2, Ordering::Relaxed);
    k.cons().store(0xffff_fff0, Ordering::Relaxed);
    assert_eq!(q.producer_index(), 2);
    assert_eq!(q.consumer_index(), 0);
    assert_eq!(q.producer_slot().len(), 64);
    q.push_with(val(1)).unwrap();
    assert_eq!(k.prod().load(Ordering::Relaxed), 3);
}

#[test]
fn remap_after_resize() {
    let (m, mut k) = ring(4, 6);
    let mut q = ConsumerQueue::new(m, 48).unwrap();
    assert!(k.produce(1) && k.produce(2));
    assert_eq!(q.pop_with(first), Some(1));
    // The kernel copies the pending completions into a larger ring starting
    // at index 0 and returns its MmapInfo.
    let (m2, mut k2) = ring(16, 7);
    assert!(k2.produce(2) && k2.produce(3));
    let old = q.remap(m2, 48).unwrap();
    // The first ring stays mapped for lock-free readers of its index words
    // (the CQ's), then goes as kept: its span in 64 B units, heap flag set.
    let words = old.index_words();
    let kept = old.keep_mapped();
    assert_eq!(kept, (1 << 30) | ((queue_buf::DATA as u32 + 4 * 64) >> 6));
    // SAFETY: the kernel view still maps it; nothing reads `words` after.
    unsafe {
        assert!(!words.is_empty());
        unmap_kept(words, kept);
    }
    assert_eq!((q.num_slots(), q.elem_size(), q.len()), (16, 128, 2));
    assert_eq!(q.pop_with(first), Some(2));
    assert_eq!(q.pop_with(first), Some(3));
    assert_eq!(q.pop_with(first), None);
    // A bad new mapping is refused and the old one kept.
    let bad = Mmap::heap(64).unwrap();
    assert_eq!(q.remap(bad, 48).map(|_| ()), Err(Errno::EINVAL));
    assert_eq!(q.num_slots(), 16);

    let (m, _) = ring(4, 6);
    let mut p = ProducerQueue::new(m, 64).unwrap();
    let (m2, k2) = ring(8, 7);
    p.remap(m2, 64).unwrap();
    p.push_with(val(5)).unwrap();
    assert_eq!(k2.consume(), Some(5));
}

// Fewer under Miri, which interprets every step (and still explores interleavings).
const ROUNDS: u64 = if cfg!(miri) { 300 } else { 100_000 };

#[test]
fn concurrent_send_ring() {
    let (m, k) = ring(8, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    let kernel = std::thread::spawn(move || {
        for want in 0..ROUNDS {
            let got = loop {
                if let Some(v) = k.consume() {
                    break v;
                }
                std::thread::yield_now();
            };
            assert_eq!(got, want);
        }
    });
    for v in 0..ROUNDS {
        // The whole slot carries `v`: a torn or early read would show.
        while q.push_with(|s| {
            for c in s.chunks_exact_mut(8) {
                c.copy_from_slice(&v.to_ne_bytes());
            }
            Ok(())
        }) == Err(Errno::ENOMEM)
        {
            std::thread::yield_now();
        }
    }
    kernel.join().unwrap();
    assert!(q.is_empty());
}

#[test]
fn concurrent_completion_ring() {
    let (m, mut k) = ring(8, 6);
    let mut q = ConsumerQueue::new(m, 48).unwrap();
    let kernel = std::thread::spawn(move || {
        for v in 0..ROUNDS {
            while !k.produce(v) {
                std::thread::yield_now();
            }
        }
    });
    for want in 0..ROUNDS {
        let (a, b) = loop {
            if let Some(v) = q.pop_with(|s| (first(s), first(&s[s.len() - 8..]))) {
                break v;
            }
            std::thread::yield_now();
        };
        assert_eq!((a, b), (want, want));
    }
    kernel.join().unwrap();
}

#[test]
fn batch_publishes_once_when_dropped() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    {
        let mut b = q.batch();
        b.push_with(val(1)).unwrap();
        b.push_with(val(2)).unwrap();
        assert_eq!(k.prod().load(Ordering::Relaxed), 0, "nothing published yet");
        b.push_with(val(3)).unwrap();
        assert!(b.full());
        assert_eq!(b.push_with(val(4)), Err(Errno::ENOMEM));
        // The kernel frees a slot: the batch sees it on its next look.
        assert_eq!(k.consume(), None, "unpublished slots are not the kernel's");
    }
    assert_eq!(k.prod().load(Ordering::Relaxed), 3);
    assert_eq!(k.consume(), Some(1));
    {
        let mut b = q.batch();
        assert!(!b.full(), "the consumed slot is free again");
        b.push_with(val(4)).unwrap();
        assert_eq!(b.push_with(val(5)), Err(Errno::ENOMEM));
        // A failed fill takes no slot.
        let bad = |_: &mut [u8]| Err(Errno::EINVAL);
        assert_eq!(b.push_with(bad), Err(Errno::EINVAL));
    }
    let got: Vec<_> = std::iter::from_fn(|| k.consume()).collect();
    assert_eq!(got, vec![2, 3, 4]);
    // An empty batch stores nothing.
    k.m.atomic_u32(queue_buf::PRODUCER_INDEX)
        .unwrap()
        .store(3, Ordering::Relaxed);
    drop(q.batch());
    assert_eq!(k.prod().load(Ordering::Relaxed), 3);
}

#[test]
fn drain_reads_in_order_and_releases_once() {
    let (m, mut k) = ring(8, 6);
    let mut q = ConsumerQueue::new(m, 48).unwrap();
    let words = q.index_words();
    let empty = || {
        // SAFETY: `q` keeps the mapping alive (here and below).
        unsafe { words.is_empty() }
    };
    assert!(empty());
    assert_eq!(q.drain(4, |_| panic!("empty")), 0);
    for v in 10..16 {
        assert!(k.produce(v));
    }
    assert!(!empty());
    let mut got = vec![];
    assert_eq!(
        q.drain(4, |run| got.extend(run.slots().map(|(i, s)| (i, first(s))))),
        4
    );
    assert_eq!(got, vec![(0, 10), (1, 11), (2, 12), (3, 13)]);
    assert_eq!(k.cons().load(Ordering::Relaxed), 4);
    got.clear();
    assert_eq!(
        q.drain(16, |run| got
            .extend(run.slots().map(|(i, s)| (i, first(s))))),
        2
    );
    assert_eq!(got, vec![(0, 14), (1, 15)]);
    assert!(empty() && q.empty());
}

/// `drain` across the wrap: every start slot and count of an 8-slot ring
/// reads the completions in order (first one, then the runs before and
/// after the wrap) and releases exactly those.
#[test]
fn drain_wraps_at_every_position() {
    let (m, mut k) = ring(8, 6);
    let mut q = ConsumerQueue::new(m, 48).unwrap();
    let mut made = 0u64;
    for start in 0..8u32 {
        for n in 1..8u32 {
            // Move both indices to `start` first.
            while k.cons().load(Ordering::Relaxed) != start {
                assert!(k.produce(made));
                made += 1;
                assert_eq!(q.drain(1, |_| {}), 1);
            }
            let first_v = made;
            for _ in 0..n {
                assert!(k.produce(made));
                made += 1;
            }
            let mut got = vec![];
            assert_eq!(
                q.drain(16, |run| got
                    .extend(run.slots().map(|(i, s)| (i, first(s))))),
                n
            );
            let want: Vec<_> = (0..n).map(|i| (i, first_v + u64::from(i))).collect();
            assert_eq!(got, want, "start {start}, {n} completions");
            assert!(q.empty());
        }
    }
}

/// A batch remembers the kernel's index and reads it again only when the
/// ring looks full: a slot the kernel frees while the batch is open (one
/// published before it) is found then, and a ring still full stays ENOMEM.
#[test]
fn batch_rereads_the_kernel_index_when_full() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    for v in 1..=3 {
        q.push_with(val(v)).unwrap();
    }
    let mut b = q.batch();
    assert!(b.full());
    assert_eq!(b.push_with(val(9)), Err(Errno::ENOMEM));
    assert_eq!(k.consume(), Some(1));
    assert!(!b.full(), "the freed slot is seen on the next look");
    b.push_with(val(4)).unwrap();
    assert!(b.full());
    assert_eq!(k.consume(), Some(2));
    assert_eq!(k.consume(), Some(3));
    b.push_with(val(5)).unwrap();
    b.push_with(val(6)).unwrap();
    assert_eq!(b.push_with(val(7)), Err(Errno::ENOMEM));
    drop(b);
    let got: Vec<_> = std::iter::from_fn(|| k.consume()).collect();
    assert_eq!(got, vec![4, 5, 6]);
}

/// `Batch::next_parts`: a header and the entries that fit after it in one
/// slot, at the slot the next post writes; refused when they do not fit.
#[test]
fn next_parts_split_the_slot() {
    let (m, k) = ring(4, 6);
    let mut q = ProducerQueue::new(m, 40).unwrap();
    {
        let mut b = q.batch();
        // 40-byte header + 16 = 56 <= 64; + 32 = 72 does not fit.
        assert!(b.next_parts::<[u64; 5]>(2).is_none());
        let (h, tail) = b.next_parts::<[u64; 5]>(1).unwrap();
        *h = [1, 2, 3, 4, 5];
        tail[0] = [9; 16];
        b.commit().unwrap();
        // A header larger than the slot: not even zero entries.
        assert!(b.next_parts::<[u64; 9]>(0).is_none());
    }
    let s = k.slot(0);
    assert_eq!(&s[..8], &1u64.to_ne_bytes());
    assert_eq!(&s[40..56], &[9; 16]);
    assert_eq!(q.len(), 1);
}

/// `max_send_wr` 1: two slots, one usable. Each way of posting refuses the
/// second element until the kernel has released the first, and takes it
/// once the kernel's index has moved.
#[test]
fn one_slot_ring_waits_for_the_kernel() {
    let (m, k) = ring(2, 6);
    let mut q = ProducerQueue::new(m, 64).unwrap();
    for round in 0..4u64 {
        // The ibv_wr_* way: slot_mut at the cursor, then publish.
        let i = q.producer_index();
        put(q.slot_mut(i).unwrap(), round);
        let next = q.next_index(i);
        assert_eq!(
            q.slot_mut(next).unwrap_err(),
            Errno(libc::ENOSPC),
            "the gap slot"
        );
        q.publish_producer(next).unwrap();
        assert!(q.full());
        assert_eq!(
            q.slot_mut(next).unwrap_err(),
            Errno(libc::ENOSPC),
            "not released"
        );
        assert_eq!(q.publish_producer(q.next_index(next)), Err(Errno::EINVAL));
        // The ibv_post_send way.
        assert_eq!(q.push_with(val(999)), Err(Errno::ENOMEM));
        assert_eq!(k.consume(), Some(round));
        assert!(q.is_empty());
        q.push_with(val(100 + round)).unwrap();
        assert_eq!(q.push_with(val(999)), Err(Errno::ENOMEM));
        assert_eq!(k.consume(), Some(100 + round));
        assert_eq!(k.consume(), None);
    }
}
