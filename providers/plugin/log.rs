//! The plugins' log: rdma-core's `__verbs_log` (src/verbs/driver_log.c, C
//! for its printf-style arguments) set up from the environment before any
//! plugin can log.
#![allow(unsafe_code)]

unsafe extern "C" {
    /// src/verbs/driver_log.c (hidden): what `__verbs_log` prints and where.
    fn ibverbs_c_set_verbs_log(level: u32, fp: *mut libc::FILE);
}

/// Sets up `__verbs_log` (src/verbs/driver_log.c: C, for its printf-style
/// arguments) once, before any plugin can log, as rdma-core 44's
/// ibverbs_init does: `VERBS_LOG_LEVEL` (strtol, any base) is the highest
/// level printed, and lines go to `VERBS_LOG_FILE`, opened for appending;
/// without that file (unset or unopenable) nothing is logged, as in
/// rdma-core's release build.
pub(crate) fn init_verbs_log() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let (level, fp) = open_log();
        #[cfg(not(miri))]
        // SAFETY: plain values; the C side only stores them.
        unsafe {
            ibverbs_c_set_verbs_log(level, fp)
        };
        #[cfg(miri)]
        let _ = (level, fp);
    });
}

fn open_log() -> (u32, *mut libc::FILE) {
    let none = (0, std::ptr::null_mut());
    let Some(level) = std::env::var_os("VERBS_LOG_LEVEL") else {
        return none;
    };
    let Ok(level) =
        std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(level.as_os_str()))
    else {
        return none;
    };
    // SAFETY: a NUL-terminated string; strtol as rdma-core parses it.
    let level = unsafe { libc::strtol(level.as_ptr(), std::ptr::null_mut(), 0) } as u32;
    if level == 0 {
        return none;
    }
    let Some(path) = std::env::var_os("VERBS_LOG_FILE") else {
        return none;
    };
    let Ok(path) = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
    else {
        return none;
    };
    // SAFETY: NUL-terminated path and mode; rdma-core's mode string.
    let f = unsafe { libc::fopen(path.as_ptr(), c"aw+".as_ptr()) };
    if f.is_null() { none } else { (level, f) }
}
