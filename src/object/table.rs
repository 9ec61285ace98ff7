//! The address table: C addresses to records, for what no slab's address
//! check finds (the roots, and a hosted C provider's objects).

/// One slot of the [`Table`]: the address C holds, the kind of the record
/// (checked before the record is touched), the record.
pub(super) struct Slot<V> {
    pub(super) key: usize,
    pub(super) kind: u8,
    pub(super) e: Option<V>,
}

/// The hosted objects and roots by address: open addressing with linear
/// probing and a multiplicative (Fibonacci) hash of the address, the
/// records inline, removal by backward shift (no tombstones). Our own
/// objects' addresses are the only keys, so no untrusted input picks the
/// buckets; half full at most, a lookup mostly reads one slot. Cheaper than
/// a general hash map on the control path's every create, find and destroy.
pub(super) struct Table<V> {
    pub(super) slots: Vec<Slot<V>>,
    pub(super) len: usize,
    /// 64 - log2(slots.len()): the hash's top bits pick the bucket.
    shift: u32,
}

impl<V> Table<V> {
    pub(super) const fn new() -> Table<V> {
        Table {
            slots: Vec::new(),
            len: 0,
            shift: 64,
        }
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The bucket `key` hashes to (the table is not empty).
    fn home(&self, key: usize) -> usize {
        // Addresses are 8-aligned: the low bits carry nothing.
        ((key as u64 >> 3).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The index of `key`'s slot.
    pub(super) fn find(&self, key: usize) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let mut i = self.home(key);
        loop {
            let s = &self.slots[i];
            s.e.as_ref()?;
            if s.key == key {
                return Some(i);
            }
            i = (i + 1) & self.mask();
        }
    }

    pub(super) fn get(&self, key: usize) -> Option<&Slot<V>> {
        self.find(key).map(|i| &self.slots[i])
    }

    /// Puts `e` at `key` (replacing what was there).
    pub(super) fn insert(&mut self, key: usize, kind: u8, e: V) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mut i = self.home(key);
        loop {
            let s = &mut self.slots[i];
            if s.e.is_none() || s.key == key {
                if s.e.is_none() {
                    self.len += 1;
                }
                *s = Slot {
                    key,
                    kind,
                    e: Some(e),
                };
                return;
            }
            i = (i + 1) & self.mask();
        }
    }

    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(
            &mut self.slots,
            (0..n)
                .map(|_| Slot {
                    key: 0,
                    kind: 0,
                    e: None,
                })
                .collect(),
        );
        self.shift = 64 - n.trailing_zeros();
        self.len = 0;
        for s in old {
            if let Some(e) = s.e {
                self.insert(s.key, s.kind, e);
            }
        }
    }

    /// Takes the record out of slot `i`, shifting the slots after it back
    /// so that every key stays reachable from its bucket.
    pub(super) fn take(&mut self, mut i: usize) -> Option<V> {
        let e = self.slots[i].e.take()?;
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & self.mask();
            if self.slots[j].e.is_none() {
                return Some(e);
            }
            let h = self.home(self.slots[j].key);
            // Slot j stays when its bucket lies cyclically in (i, j].
            let stays = if i <= j {
                i < h && h <= j
            } else {
                i < h || h <= j
            };
            if !stays {
                self.slots.swap(i, j);
                i = j;
            }
        }
    }

    pub(super) fn remove(&mut self, key: usize) -> Option<V> {
        self.find(key).and_then(|i| self.take(i))
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Slot<V>> {
        self.slots.iter().filter(|s| s.e.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table against a std map: inserts, replaces and removes of keys
    /// that collide (clustered addresses), every key findable throughout.
    #[test]
    fn table_matches_a_map() {
        let mut t = Table::<u32>::new();
        let mut m = std::collections::HashMap::new();
        let mut x = 0x1234_5678u64;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Few distinct keys, 8-aligned and close together: long runs.
            let key = 0x7f00_0000_0000 + (x % 700) as usize * 8;
            if x.is_multiple_of(3) {
                assert_eq!(t.remove(key).is_some(), m.remove(&key).is_some());
            } else {
                t.insert(key, (step % 7) as u8, step);
                m.insert(key, step);
            }
            assert_eq!(t.len, m.len());
            if step.is_multiple_of(1000) {
                for (k, v) in &m {
                    assert_eq!(t.get(*k).and_then(|s| s.e), Some(*v));
                }
                assert_eq!(t.iter().count(), m.len());
            }
        }
        for k in m.keys() {
            assert!(t.remove(*k).is_some());
        }
        assert_eq!((t.len, t.iter().count()), (0, 0));
        assert!(t.get(0x7f00_0000_0000).is_none());
    }
}
