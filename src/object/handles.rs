//! Plain handles C holds for values of ours that are not verbs objects (an
//! `ibv_buf`): each value sits in a slot of a type-stable slab, its address
//! is the handle, and the slot's state word counts it as it counts a
//! record, so a stale, foreign or garbage handle is refused by reading our
//! own memory only, and a value read while another thread removes it is
//! still whole.
#![allow(unsafe_code)]

use super::slab::Unpinned;
use super::slot::{Home, REC_TO_VAL, Token};
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

/// The live handles of one value type (a static per type).
pub(crate) struct Handles<T: 'static>(Unpinned<T>);

impl<T: Copy + Send + Sync + 'static> Handles<T> {
    pub(crate) const fn new() -> Self {
        Handles(Unpinned::new())
    }

    /// A new handle for `v`.
    pub(crate) fn insert(&'static self, v: T) -> NonNull<c_void> {
        // The slot's state owns the value from here (released by `put`).
        let new = ManuallyDrop::new(self.0.vacant().fill(v));
        let (home, _) = new.home().expect("a slab's slot");
        home.state.register();
        new.c()
    }

    /// The value of the live handle `p`.
    pub(crate) fn get(&'static self, p: *const c_void) -> Option<T> {
        let (home, v) = self.hold(p)?;
        self.put(home);
        Some(v)
    }

    /// Ends the live handle `p` and returns its value; None if it is not
    /// one (or another thread removed it first).
    pub(crate) fn remove(&'static self, p: *const c_void) -> Option<T> {
        let (home, v) = self.hold(p)?;
        let won = home.state.unregister();
        self.put(home);
        won.then_some(v)
    }

    /// A reference to the slot of the live handle `p`, and its value.
    fn hold(&'static self, p: *const c_void) -> Option<(Home, T)> {
        let home = self.0.finder().home(p)?;
        if !home.state.acquire() {
            return None;
        }
        // SAFETY: registered when the reference was taken (Acquire of the
        // Release in `register`): the slot holds a T, written before, and
        // not dropped while the reference is held.
        let v = unsafe { *value(home).as_ptr() };
        Some((home, v))
    }

    /// Gives a reference back; the last one (the handle removed) frees the
    /// slot.
    fn put(&'static self, home: Home) {
        if home.state.release() {
            // SAFETY: the last reference of an unregistered slot of ours:
            // nobody else reaches its value, and it is released once.
            unsafe { self.0.release(value::<T>(home).cast()) };
        }
    }
}

/// The value after a slot's record room (reached from the slot's own
/// pointer, see `slot::Finder`).
fn value<T>(home: Home) -> NonNull<T> {
    // SAFETY: inside the same committed slot, not NULL.
    unsafe { NonNull::new_unchecked(home.rec.as_ptr().cast::<u8>().add(REC_TO_VAL).cast()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct V(u64, u64);
    static VS: Handles<V> = Handles::new();

    #[test]
    fn insert_get_remove() {
        let a = VS.insert(V(1, 2)).as_ptr();
        let b = VS.insert(V(3, 4)).as_ptr();
        assert_ne!(a, b);
        assert_eq!(VS.get(a), Some(V(1, 2)));
        assert_eq!(VS.get(b), Some(V(3, 4)));
        // Foreign, NULL, misaligned.
        let x = 0u64;
        assert_eq!(VS.get((&raw const x).cast()), None);
        assert_eq!(VS.get(std::ptr::null()), None);
        assert_eq!(VS.get(a.cast::<u8>().wrapping_add(8).cast()), None);
        assert_eq!(VS.remove(a), Some(V(1, 2)));
        assert_eq!(VS.remove(a), None, "removed once");
        assert_eq!(VS.get(a), None, "stale");
        assert_eq!(VS.get(b), Some(V(3, 4)));
        // The slot is reused for the next value; the old handle then names it.
        let c = VS.insert(V(5, 6)).as_ptr();
        assert_eq!(VS.get(c), Some(V(5, 6)));
        assert_eq!(VS.remove(b), Some(V(3, 4)));
        assert_eq!(VS.remove(c), Some(V(5, 6)));
    }

    #[test]
    fn concurrent_removes_one_wins() {
        static RACE: Handles<V> = Handles::new();
        let rounds = if cfg!(miri) { 10 } else { 200 };
        for i in 0..rounds {
            let h = RACE.insert(V(i, i)).as_ptr() as usize;
            let ts: Vec<_> = (0..2)
                .map(|_| std::thread::spawn(move || RACE.remove(h as *const c_void).is_some()))
                .collect();
            let wins = ts.into_iter().map(|t| t.join().unwrap());
            assert_eq!(wins.filter(|w| *w).count(), 1);
        }
    }
}
