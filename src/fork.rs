//! fork() safety: registered memory is marked MADV_DONTFORK so a child does not
//! share (and copy-on-write break) pages the HCA is using. Ranges are refcounted
//! per page because several MRs may cover the same page.
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
    /// Some once ibv_fork_init succeeded.
    ranges: Option<Ranges>,
    huge_pages: bool,
}

/// Set (under the lock) once `ranges` is: lets every MR registration without
/// ibv_fork_init skip the lock, as rdma-core's does.
static ENABLED: AtomicBool = AtomicBool::new(false);
/// A range was (un)registered before ibv_fork_init: too late to start now.
static TOO_LATE: AtomicBool = AtomicBool::new(false);

static STATE: Mutex<ForkState> = Mutex::new(ForkState {
    ranges: None,
    huge_pages: false,
});

fn state() -> std::sync::MutexGuard<'static, ForkState> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

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

/// ibv_fork_init: start tracking ranges. 0 or an errno.
pub(crate) fn init() -> Result<()> {
    let mut st = state();
    if std::env::var_os("RDMAV_HUGEPAGES_SAFE").is_some() {
        st.huge_pages = true;
    }
    if st.ranges.is_some() {
        return Ok(());
    }
    if TOO_LATE.load(SeqCst) {
        return Err(Errno::EINVAL);
    }
    // Probe that the kernel knows the advice on a page of our own.
    let page = page_size();
    let probe = vec![0u8; page * 2];
    let start = (probe.as_ptr() as usize).next_multiple_of(page);
    sys_madvise(start, start + page, Advice::DontFork)
        .and_then(|()| sys_madvise(start, start + page, Advice::DoFork))
        .map_err(|_| Errno::ENOSYS)?;
    st.ranges = Some(Ranges::default());
    ENABLED.store(true, SeqCst);
    Ok(())
}

/// ibv_is_fork_initialized.
pub(crate) fn status(kernel_copies_on_fork: bool) -> ForkStatus {
    if kernel_copies_on_fork {
        ForkStatus::Unneeded
    } else if state().ranges.is_some() {
        ForkStatus::Enabled
    } else {
        ForkStatus::Disabled
    }
}

/// ibv_dontfork_range / ibv_dofork_range. Without ibv_fork_init they only note
/// that it is now too late to call it, as rdma-core does.
#[inline]
pub(crate) fn range(base: usize, size: usize, advice: Advice) -> Result<()> {
    // Marked before ENABLED is read again, and init reads TOO_LATE before
    // setting ENABLED: a racing init either fails or this range is tracked.
    if !ENABLED.load(SeqCst) {
        TOO_LATE.store(true, SeqCst);
        if !ENABLED.load(SeqCst) {
            return Ok(());
        }
    }
    tracked(base, size, advice)
}

/// [`range`] after ibv_fork_init: out of line, so that the common case
/// (every reg_mr and dereg_mr) is a few instructions in its caller.
#[cold]
#[inline(never)]
fn tracked(base: usize, size: usize, advice: Advice) -> Result<()> {
    let mut st = state();
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
    ranges.apply(start, end, advice, sys_madvise)
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

    #[test]
    fn real_madvise_on_own_page() {
        init().unwrap();
        let buf = vec![0u8; 3 * page_size()];
        let base = buf.as_ptr() as usize;
        range(base, 100, Advice::DontFork).unwrap();
        range(base, 100, Advice::DoFork).unwrap();
        assert_eq!(status(false), ForkStatus::Enabled);
    }
}
