//! The C addresses of a hosted context's objects that close must treat
//! apart: parent domains (freed before the PDs under them) and imported
//! PDs, MRs and DMs (unimported, never destroyed: the kernel object is
//! shared with the process that exported it).

use std::sync::Mutex;

/// A list of object addresses, each at most once.
#[derive(Default)]
pub(crate) struct Addrs(Mutex<Vec<usize>>);

impl Addrs {
    /// `f` of the list, under its lock.
    fn with<R>(&self, f: impl FnOnce(&mut Vec<usize>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
    pub(crate) fn add(&self, a: usize) {
        self.with(|l| {
            if !l.contains(&a) {
                l.push(a);
            }
        })
    }
    /// Whether `a` is listed.
    pub(crate) fn has(&self, a: usize) -> bool {
        self.with(|l| l.contains(&a))
    }
    /// Takes `a` out of the list (an object gone).
    pub(crate) fn forget(&self, a: usize) {
        self.with(|l| l.retain(|&x| x != a))
    }
    /// Every address left, out of the list.
    pub(crate) fn take(&self) -> Vec<usize> {
        self.with(std::mem::take)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_forget_take() {
        let l = Addrs::default();
        l.add(0x1000);
        l.add(0x2000);
        l.add(0x1000);
        assert!(l.has(0x1000) && l.has(0x2000) && !l.has(0x3000));
        l.forget(0x1000);
        assert!(!l.has(0x1000));
        // Forgetting what is not there changes nothing.
        l.forget(0x3000);
        assert_eq!(l.take(), vec![0x2000]);
        assert!(l.take().is_empty() && !l.has(0x2000));
    }
}
