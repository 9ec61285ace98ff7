//! fork() safety: registered memory is marked MADV_DONTFORK so a child does not
//! share (and copy-on-write break) pages the HCA is using. Ranges are refcounted
//! per page because several MRs may cover the same page. As in rdma-core 52
//! and later, none of this happens on a kernel that copies pinned pages at
//! fork itself: the parent keeps its pages there, the child gets copies.
#![allow(unsafe_code)]

use crate::entry::{Errno, Result};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, Ordering::SeqCst};

/// The states ibv_is_fork_initialized reports (enum ibv_fork_status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForkStatus {
    Disabled = 0,
    Enabled = 1,
    Unneeded = 2,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Advice {
    DontFork,
    DoFork,
}

/// Disjoint ranges [start, end) with a non-zero count, keyed by start.
#[derive(Default, Debug)]
pub(crate) struct Ranges {
    map: BTreeMap<usize, (usize, u32)>,
}

impl Ranges {
    /// Splits the stored range that straddles `at`, if any.
    fn split_at(&mut self, at: usize) {
        let Some((&s, &(e, n))) = self.map.range(..at).next_back() else {
            return;
        };
        if e > at {
            self.map.insert(s, (at, n));
            self.map.insert(at, (e, n));
        }
    }

    /// The pieces of [start, end) with their current counts, gaps included.
    fn pieces(&self, start: usize, end: usize) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        let mut at = start;
        for (&s, &(e, n)) in self.map.range(start..end) {
            if s > at {
                out.push((at, s, 0));
            }
            out.push((s, e, n));
            at = e;
        }
        if at < end {
            out.push((at, end, 0));
        }
        out
    }

    /// Adds `advice` to [start, end): calls `madvise` on each piece whose count
    /// crosses zero, undoing those calls if one fails.
    pub(crate) fn apply(
        &mut self,
        start: usize,
        end: usize,
        advice: Advice,
        mut madvise: impl FnMut(usize, usize, Advice) -> Result<()>,
    ) -> Result<()> {
        if start >= end {
            return Ok(());
        }
        self.split_at(start);
        self.split_at(end);
        let pieces = self.pieces(start, end);
        let crossing = |n: u32| match advice {
            Advice::DontFork => n == 0,
            Advice::DoFork => n == 1,
        };
        let undo = match advice {
            Advice::DontFork => Advice::DoFork,
            Advice::DoFork => Advice::DontFork,
        };
        let mut done = Vec::new();
        for &(s, e, n) in &pieces {
            if crossing(n) {
                if let Err(err) = madvise(s, e, advice) {
                    for &(s, e) in &done {
                        let _ = madvise(s, e, undo);
                    }
                    self.merge();
                    return Err(err);
                }
                done.push((s, e));
            }
        }
        for (s, e, n) in pieces {
            let n = match advice {
                Advice::DontFork => n + 1,
                Advice::DoFork => n.saturating_sub(1),
            };
            if n == 0 {
                self.map.remove(&s);
            } else {
                self.map.insert(s, (e, n));
            }
        }
        self.merge();
        Ok(())
    }

    /// Joins touching ranges with equal counts, keeping the map small.
    fn merge(&mut self) {
        let mut merged: BTreeMap<usize, (usize, u32)> = BTreeMap::new();
        for (&s, &(e, n)) in &self.map {
            if let Some((_, last)) = merged.iter_mut().next_back()
                && last.0 == s
                && last.1 == n
            {
                last.0 = e;
                continue;
            }
            merged.insert(s, (e, n));
        }
        self.map = merged;
    }

    #[cfg(test)]
    fn dump(&self) -> Vec<(usize, usize, u32)> {
        self.map.iter().map(|(&s, &(e, n))| (s, e, n)).collect()
    }
}

struct ForkState {
    /// Some once ibv_fork_init started tracking.
    ranges: Option<Ranges>,
    huge_pages: bool,
}

type Madvise = fn(usize, usize, Advice) -> Result<()>;

/// The process's fork protection; one static, and fresh ones in the tests.
struct Fork {
    /// Set (under the lock) once `ranges` is: lets every MR registration
    /// without ibv_fork_init skip the lock, as rdma-core's does.
    enabled: AtomicBool,
    /// A range was (un)registered before ibv_fork_init: too late to start now.
    too_late: AtomicBool,
    state: Mutex<ForkState>,
    madvise: Madvise,
}

static FORK: Fork = Fork::new(sys_madvise);

/// The system's page size (a power of two), asked once: fork tracking
/// rounds to it, and the rxe rings check their mappings against it.
pub(crate) fn page_size() -> usize {
    static PAGE: AtomicUsize = AtomicUsize::new(0);
    match PAGE.load(Ordering::Relaxed) {
        0 => {
            let p = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
                .ok()
                .flatten()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|p| p.is_power_of_two())
                .unwrap_or(4096);
            PAGE.store(p, Ordering::Relaxed);
            p
        }
        p => p,
    }
}

fn sys_madvise(start: usize, end: usize, advice: Advice) -> Result<()> {
    use nix::sys::mman::{MmapAdvise, madvise};
    let flag = match advice {
        Advice::DontFork => MmapAdvise::MADV_DONTFORK,
        Advice::DoFork => MmapAdvise::MADV_DOFORK,
    };
    // nix's madvise takes a NonNull; at address 0 nothing is mapped, and the
    // kernel's answer for an unmapped range is ENOMEM.
    let Some(addr) = std::ptr::NonNull::new(start as *mut std::ffi::c_void) else {
        return Err(Errno::ENOMEM);
    };
    // SAFETY: MADV_(DONT|DO)FORK only changes the VMA's inheritance flag; it does
    // not touch the pages' contents, so any address range is memory-safe to pass.
    unsafe { madvise(addr, end - start, flag) }?;
    Ok(())
}

impl Fork {
    const fn new(madvise: Madvise) -> Fork {
        Fork {
            enabled: AtomicBool::new(false),
            too_late: AtomicBool::new(false),
            state: Mutex::new(ForkState {
                ranges: None,
                huge_pages: false,
            }),
            madvise,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ForkState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// rdma-core 52 and later: when the kernel copies pinned pages at fork
    /// nothing is tracked, so a call after registrations is no error either.
    fn init(&self, kernel_copies_on_fork: impl FnOnce() -> bool) -> Result<()> {
        let mut st = self.state();
        if std::env::var_os("RDMAV_HUGEPAGES_SAFE").is_some() {
            st.huge_pages = true;
        }
        if st.ranges.is_some() || kernel_copies_on_fork() {
            return Ok(());
        }
        if self.too_late.load(SeqCst) {
            return Err(Errno::EINVAL);
        }
        // Probe that the kernel knows the advice on a page of our own.
        let page = page_size();
        let probe = vec![0u8; page * 2];
        let start = (probe.as_ptr() as usize).next_multiple_of(page);
        (self.madvise)(start, start + page, Advice::DontFork)
            .and_then(|()| (self.madvise)(start, start + page, Advice::DoFork))
            .map_err(|_| Errno::ENOSYS)?;
        st.ranges = Some(Ranges::default());
        self.enabled.store(true, SeqCst);
        Ok(())
    }

    fn status(&self, kernel_copies_on_fork: bool) -> ForkStatus {
        if kernel_copies_on_fork {
            ForkStatus::Unneeded
        } else if self.state().ranges.is_some() {
            ForkStatus::Enabled
        } else {
            ForkStatus::Disabled
        }
    }

    #[inline]
    fn range(&self, base: usize, size: usize, advice: Advice) -> Result<()> {
        // Marked before `enabled` is read again, and init reads `too_late`
        // before setting `enabled`: a racing init either fails or this range
        // is tracked.
        if !self.enabled.load(SeqCst) {
            self.too_late.store(true, SeqCst);
            if !self.enabled.load(SeqCst) {
                return Ok(());
            }
        }
        self.tracked(base, size, advice)
    }

    /// [`Fork::range`] after ibv_fork_init started tracking: out of line, so
    /// that the common case (every reg_mr and dereg_mr) is a few instructions
    /// in its caller.
    #[cold]
    #[inline(never)]
    fn tracked(&self, base: usize, size: usize, advice: Advice) -> Result<()> {
        let mut st = self.state();
        let page = if st.huge_pages { 2 << 20 } else { page_size() };
        let Some(ranges) = st.ranges.as_mut() else {
            return Ok(());
        };
        if size == 0 {
            return Ok(());
        }
        let end = base.checked_add(size).ok_or(Errno::EINVAL)?;
        let start = base & !(page - 1);
        let end = end.checked_next_multiple_of(page).ok_or(Errno::EINVAL)?;
        ranges.apply(start, end, advice, self.madvise)
    }
}

/// ibv_fork_init: 0 or an errno. `kernel_copies_on_fork` is asked only
/// while tracking has not started.
pub(crate) fn init(kernel_copies_on_fork: impl FnOnce() -> bool) -> Result<()> {
    FORK.init(kernel_copies_on_fork)
}

/// ibv_is_fork_initialized.
pub(crate) fn status(kernel_copies_on_fork: bool) -> ForkStatus {
    FORK.status(kernel_copies_on_fork)
}

/// ibv_dontfork_range / ibv_dofork_range. Without tracking they only note
/// that it is now too late to start it, as rdma-core does.
#[inline]
pub(crate) fn range(base: usize, size: usize, advice: Advice) -> Result<()> {
    FORK.range(base, size, advice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_crossings() {
        let mut r = Ranges::default();
        let mut calls = Vec::new();
        let mut rec = |s, e, a| {
            calls.push((s, e, a));
            Ok(())
        };
        r.apply(0, 100, Advice::DontFork, &mut rec).unwrap();
        r.apply(50, 150, Advice::DontFork, &mut rec).unwrap();
        assert_eq!(r.dump(), vec![(0, 50, 1), (50, 100, 2), (100, 150, 1)]);
        r.apply(0, 100, Advice::DoFork, &mut rec).unwrap();
        assert_eq!(r.dump(), vec![(50, 150, 1)]);
        assert_eq!(
            calls,
            vec![
                (0, 100, Advice::DontFork),
                (100, 150, Advice::DontFork),
                (0, 50, Advice::DoFork)
            ]
        );
    }

    #[test]
    fn failure_rolls_back() {
        let mut r = Ranges::default();
        r.apply(0, 10, Advice::DontFork, |_, _, _| Ok(())).unwrap();
        let mut undone = Vec::new();
        let res = r.apply(0, 30, Advice::DontFork, |s, e, a| {
            if s == 10 && a == Advice::DontFork {
                Err(Errno::ENOMEM)
            } else {
                undone.push((s, e, a));
                Ok(())
            }
        });
        assert_eq!(res, Err(Errno::ENOMEM));
        assert_eq!(r.dump(), vec![(0, 10, 1)]);
        assert!(undone.is_empty());
    }

    /// Counts the madvise calls of the tests' own Fork values (each test
    /// has its own counter: the tests run in parallel).
    macro_rules! counting {
        ($name:ident, $count:ident) => {
            static $count: AtomicUsize = AtomicUsize::new(0);
            fn $name(s: usize, e: usize, a: Advice) -> Result<()> {
                $count.fetch_add(1, SeqCst);
                sys_madvise(s, e, a)
            }
        };
    }

    #[test]
    fn kernel_copies_on_fork_init_does_nothing() {
        counting!(madv, CALLS);
        let f = Fork::new(madv);
        let buf = vec![0u8; 3 * page_size()];
        let base = buf.as_ptr() as usize;
        assert_eq!(f.status(true), ForkStatus::Unneeded);
        // A registration first: no EINVAL later, as rdma-core 52 and later.
        f.range(base, 100, Advice::DontFork).unwrap();
        assert_eq!(f.init(|| true), Ok(()));
        assert_eq!(f.init(|| true), Ok(()));
        f.range(base, 100, Advice::DontFork).unwrap();
        f.range(base, 100, Advice::DoFork).unwrap();
        f.range(base, 100, Advice::DoFork).unwrap();
        assert_eq!(f.status(true), ForkStatus::Unneeded);
        // Not even the probe: no page of this process was advised.
        assert_eq!(CALLS.load(SeqCst), 0);
        assert!(f.state().ranges.is_none());
        assert!(!f.enabled.load(SeqCst));
    }

    #[test]
    fn kernel_copies_on_fork_before_any_registration() {
        counting!(madv, CALLS);
        let f = Fork::new(madv);
        let buf = vec![0u8; 3 * page_size()];
        let base = buf.as_ptr() as usize;
        assert_eq!(f.init(|| true), Ok(()));
        f.range(base, 100, Advice::DontFork).unwrap();
        f.range(base, 100, Advice::DoFork).unwrap();
        assert_eq!(CALLS.load(SeqCst), 0);
        assert!(f.state().ranges.is_none());
    }

    #[test]
    fn no_kernel_copy_tracks_ranges() {
        counting!(madv, CALLS);
        let f = Fork::new(madv);
        let page = page_size();
        let buf = vec![0u8; 3 * page];
        let base = (buf.as_ptr() as usize).next_multiple_of(page);
        assert_eq!(f.status(false), ForkStatus::Disabled);
        assert_eq!(f.init(|| false), Ok(()));
        assert_eq!(CALLS.load(SeqCst), 2, "the probe: DONTFORK and DOFORK");
        assert_eq!(f.status(false), ForkStatus::Enabled);
        // The kernel is not asked again once tracking runs.
        assert_eq!(f.init(|| panic!("asked again")), Ok(()));
        f.range(base + 10, 100, Advice::DontFork).unwrap();
        assert_eq!(CALLS.load(SeqCst), 3);
        let ranges = |f: &Fork| f.state().ranges.as_ref().map(Ranges::dump);
        assert_eq!(ranges(&f), Some(vec![(base, base + page, 1)]));
        f.range(base + 10, 100, Advice::DoFork).unwrap();
        assert_eq!(CALLS.load(SeqCst), 4);
        assert_eq!(ranges(&f), Some(vec![]));
    }

    #[test]
    fn no_kernel_copy_too_late_after_a_registration() {
        counting!(madv, CALLS);
        let f = Fork::new(madv);
        let buf = vec![0u8; 3 * page_size()];
        f.range(buf.as_ptr() as usize, 100, Advice::DontFork)
            .unwrap();
        assert_eq!(f.init(|| false), Err(Errno::EINVAL));
        assert_eq!(f.status(false), ForkStatus::Disabled);
        assert_eq!(CALLS.load(SeqCst), 0);
    }

    #[test]
    fn real_madvise_on_own_page() {
        init(|| false).unwrap();
        let buf = vec![0u8; 3 * page_size()];
        let base = buf.as_ptr() as usize;
        range(base, 100, Advice::DontFork).unwrap();
        range(base, 100, Advice::DoFork).unwrap();
        assert_eq!(status(false), ForkStatus::Enabled);
    }
}
