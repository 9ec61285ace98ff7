//! The C entry layer: every exported verb carries `#[entry(CONV)]` (the
//! proc-macro in macros/), whose shim keeps panics from crossing into C,
//! reports errors the libibverbs way (the `ret_*` conventions below) and
//! traces calls with the arguments of the fn's own signature.
#![allow(unsafe_code)]

use std::any::Any;
use std::ffi::c_int;
use std::fmt::{self, Debug};
use std::io::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU8, Ordering};

/// An errno value, the error currency of libibverbs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Errno(pub c_int);

impl Errno {
    #[cfg(test)]
    pub(crate) const EPERM: Errno = Errno(libc::EPERM);
    pub(crate) const ENOENT: Errno = Errno(libc::ENOENT);
    pub(crate) const EIO: Errno = Errno(libc::EIO);
    pub(crate) const ENOMEM: Errno = Errno(libc::ENOMEM);
    pub(crate) const EFAULT: Errno = Errno(libc::EFAULT);
    pub(crate) const EBUSY: Errno = Errno(libc::EBUSY);
    pub(crate) const ENODEV: Errno = Errno(libc::ENODEV);
    pub(crate) const EINVAL: Errno = Errno(libc::EINVAL);
    pub(crate) const ENOSYS: Errno = Errno(libc::ENOSYS);
    pub(crate) const EOPNOTSUPP: Errno = Errno(libc::EOPNOTSUPP);
    pub(crate) const EPROTONOSUPPORT: Errno = Errno(libc::EPROTONOSUPPORT);
    pub(crate) const ENOTTY: Errno = Errno(libc::ENOTTY);

    /// The calling thread's current errno.
    pub(crate) fn last() -> Errno {
        Errno(nix::errno::Errno::last_raw())
    }
}

/// nix's errors are errno values too (the raw number, no table lookup).
impl From<nix::errno::Errno> for Errno {
    fn from(e: nix::errno::Errno) -> Self {
        Errno(e as c_int)
    }
}

impl Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({})",
            self.0,
            std::io::Error::from_raw_os_error(self.0)
        )
    }
}

impl From<std::io::Error> for Errno {
    fn from(e: std::io::Error) -> Self {
        Errno(e.raw_os_error().unwrap_or(libc::EIO))
    }
}

pub(crate) type Result<T, E = Errno> = std::result::Result<T, E>;

/// The errno a verb reports when it hit a bug of ours (a caught panic).
pub(crate) const PANIC_ERRNO: Errno = Errno::EIO;

// errno is set through libc, not nix's `Errno::set_raw` (the same store): with
// nix's, every verb's entry point was inlined differently and the library's
// text grew by 30 KB (measured; docs/crates.md).
pub(crate) fn set_errno(e: Errno) {
    // SAFETY: __errno_location returns this thread's errno slot, always valid.
    unsafe { *libc::__errno_location() = e.0 };
}

fn errno_now() -> c_int {
    // SAFETY: as in set_errno.
    unsafe { *libc::__errno_location() }
}

// ---- return conventions -------------------------------------------------------

/// int verbs that return 0 or a positive errno (and leave it in errno too).
pub(crate) fn ret_errno(r: Result<()>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => {
            set_errno(e);
            e.0
        }
    }
}

/// int verbs that return a value >= 0, or -1 with errno set.
pub(crate) fn ret_minus_one(r: Result<c_int>) -> c_int {
    r.unwrap_or_else(|e| {
        set_errno(e);
        -1
    })
}

/// Verbs that return a count >= 0, or a negative errno (and leave it in errno).
pub(crate) fn ret_neg_errno(r: Result<isize>) -> isize {
    r.unwrap_or_else(|e| {
        set_errno(e);
        -(e.0 as isize)
    })
}

/// Pointer-returning verbs: the object, or NULL with errno set.
pub(crate) fn ret_ptr<P: Nullable>(r: Result<P>) -> P {
    r.unwrap_or_else(|e| {
        set_errno(e);
        P::NULL
    })
}

/// The pointers a `ptr` verb returns: `*mut T`, or `*const T` for the verbs
/// that hand out read-only strings.
pub(crate) trait Nullable {
    const NULL: Self;
}

impl<T> Nullable for *mut T {
    const NULL: Self = std::ptr::null_mut();
}

impl<T> Nullable for *const T {
    const NULL: Self = std::ptr::null();
}

/// Verbs that cannot fail (string helpers, void functions).
pub(crate) fn ret_value<T>(v: T) -> T {
    v
}

// ---- tracing --------------------------------------------------------------------

/// 0: off, 1: verb calls, 2: verb calls and kernel commands. Set once at load.
static TRACE: AtomicU8 = AtomicU8::new(0);

pub(crate) fn trace_level() -> u8 {
    TRACE.load(Ordering::Relaxed)
}

extern "C" fn init_trace() {
    let level = std::env::var("IBV_TRACE")
        .ok()
        .and_then(|v| v.trim().parse::<u8>().ok());
    TRACE.store(level.unwrap_or(0), Ordering::Relaxed);
}

// Runs when the library is loaded, so the hot path needs no once-check.
#[used]
#[unsafe(link_section = ".init_array")]
static INIT_TRACE: extern "C" fn() = init_trace;

/// Writes one trace line to IBV_TRACE_FILE (appending) or stderr.
pub(crate) fn trace_line(args: fmt::Arguments<'_>) {
    let line = format!("ibverbs[{}]: {}\n", std::process::id(), args);
    let file = std::env::var_os("IBV_TRACE_FILE").and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let _ = match file {
        Some(mut f) => f.write_all(line.as_bytes()),
        None => std::io::stderr().write_all(line.as_bytes()),
    };
}

/// Formats `name(a=.., b=..)` for a trace line.
pub(crate) struct Call<'a>(pub &'static str, pub &'a [(&'static str, &'a dyn Debug)]);

impl fmt::Display for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.0)?;
        for (i, (n, v)) in self.1.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n}={v:?}")?;
        }
        f.write_str(")")
    }
}

fn panic_text(p: &(dyn Any + Send)) -> &str {
    p.downcast_ref::<&str>()
        .copied()
        .or_else(|| p.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("?")
}

/// Runs a verb body behind the panic boundary.
#[inline(always)]
pub(crate) fn run<R>(
    name: &'static str,
    body: impl FnOnce() -> R,
    on_panic: impl FnOnce() -> R,
) -> R {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(p) => {
            panicked(name, p);
            on_panic()
        }
    }
}

/// The trace line of a caught panic; out of line, so that the verb's fast
/// path keeps `name` in no stack slot.
#[cold]
#[inline(never)]
fn panicked(name: &'static str, p: Box<dyn Any + Send>) {
    trace_line(format_args!("{name}: internal error: {}", panic_text(&*p)));
}

/// Calls `f` out of line: the traced branch of `#[entry]`, whose argument
/// copies and trace frame then cost the untraced path nothing (no spills
/// of the verb's arguments, a smaller frame).
#[cold]
#[inline(never)]
pub(crate) fn cold<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// [`run`], then a trace line with the arguments, result and errno; out of
/// line, so that the untraced path keeps a small frame.
#[cold]
#[inline(never)]
pub(crate) fn run_traced<R: Debug>(
    call: Call<'_>,
    body: impl FnOnce() -> R,
    on_panic: impl FnOnce() -> R,
) -> R {
    let ret = run(call.0, body, on_panic);
    trace_line(format_args!("{call} = {ret:?} (errno {})", errno_now()));
    ret
}

// ---- argument validators ----------------------------------------------------------

/// A C pointer argument as a reference; NULL is EINVAL.
///
/// # Safety
/// A non-NULL `p` must point to a valid, writable `T` for `'a` that nothing else
/// accesses meanwhile: the caller's contract with C.
pub(crate) unsafe fn arg_mut<'a, T>(p: *mut T) -> Result<&'a mut T> {
    // SAFETY: per this function's contract.
    unsafe { p.as_mut() }.ok_or(Errno::EINVAL)
}

/// A C pointer argument as a shared reference; NULL is EINVAL.
///
/// # Safety
/// A non-NULL `p` must point to a valid `T` for `'a`.
pub(crate) unsafe fn arg_ref<'a, T>(p: *const T) -> Result<&'a T> {
    // SAFETY: per this function's contract.
    unsafe { p.as_ref() }.ok_or(Errno::EINVAL)
}

/// A C string argument as UTF-8; NULL or non-UTF-8 is EINVAL.
///
/// # Safety
/// A non-NULL `p` must point to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn arg_cstr<'a>(p: *const std::ffi::c_char) -> Result<&'a str> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: per this function's contract.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| Errno::EINVAL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::c_void;

    #[entry(errno)]
    fn fails(x: c_int) -> c_int {
        if x < 0 { Err(Errno::EINVAL) } else { Ok(()) }
    }

    #[entry(ptr)]
    fn panics(p: *mut c_void) -> *mut c_void {
        if p.is_null() {
            panic!("boom")
        }
        Ok(p)
    }

    #[entry(value(-7), name = renamed)]
    #[inline]
    fn value_panics(x: c_int, _: c_int) -> c_int {
        if x < 0 {
            panic!("boom")
        }
        x
    }

    #[entry(minus_one)]
    fn minus_one_panics(x: c_int) -> c_int {
        if x < 0 {
            panic!("boom")
        }
        Ok(x)
    }

    #[entry(neg_errno)]
    fn neg_errno_fails(x: isize) -> isize {
        if x < 0 { Err(Errno::ENOMEM) } else { Ok(x) }
    }

    #[test]
    fn errno_convention() {
        assert_eq!(fails(1), 0);
        assert_eq!(fails(-1), libc::EINVAL);
        assert_eq!(errno_now(), libc::EINVAL);
    }

    #[test]
    fn panic_becomes_null_and_errno() {
        let r = panics(std::ptr::null_mut());
        assert!(r.is_null());
        assert_eq!(errno_now(), PANIC_ERRNO.0);
    }

    #[test]
    fn value_fallback_on_panic() {
        assert_eq!(value_panics(3, 0), 3);
        assert_eq!(value_panics(-1, 0), -7);
    }

    #[test]
    fn minus_one_on_panic() {
        assert_eq!(minus_one_panics(5), 5);
        set_errno(Errno(0));
        assert_eq!(minus_one_panics(-1), -1);
        assert_eq!(errno_now(), PANIC_ERRNO.0);
    }

    #[test]
    fn neg_errno_convention() {
        assert_eq!(neg_errno_fails(9), 9);
        assert_eq!(neg_errno_fails(-1), -(libc::ENOMEM as isize));
        assert_eq!(errno_now(), libc::ENOMEM);
    }
}
