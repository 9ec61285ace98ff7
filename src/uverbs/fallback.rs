//! Choosing between the ioctl method and the write() command of a verb, the way
//! rdma-core does, remembering per context what the kernel lacks (in the
//! channel's `IoctlSupport`).

use super::channel::{Uverbs, Verb};
use super::ids::{UVERBS_ATTR_UHW_IN, UVERBS_ATTR_UHW_OUT};
use super::ioctl::IoctlCmd;
use super::ioctl_hdr::UVERBS_ATTR_F_MANDATORY;
use crate::entry::{Errno, Result};

/// What to do after trying the ioctl method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// The ioctl ran and succeeded.
    Done,
    /// Send the legacy write() command instead.
    TryWrite,
    /// Send the `_ex` write() command instead.
    TryWriteEx,
}

/// Whether the request can be expressed as a write() command, and which.
/// Driver attributes other than UHW cannot be, if the kernel must understand them.
pub(crate) fn check_legacy(cmd: &IoctlCmd<'_>) -> Result<Fallback> {
    if cmd.ioctl_only {
        return Err(Errno::EOPNOTSUPP);
    }
    if let Some(start) = cmd.driver_start {
        let blocked = cmd.buf.attrs()[start.min(cmd.buf.attrs().len())..]
            .iter()
            .any(|a| {
                a.attr_id != UVERBS_ATTR_UHW_IN
                    && a.attr_id != UVERBS_ATTR_UHW_OUT
                    && a.flags & UVERBS_ATTR_F_MANDATORY != 0
            });
        if blocked {
            return Err(Errno::EOPNOTSUPP);
        }
    }
    Ok(if cmd.require_ex {
        Fallback::TryWriteEx
    } else {
        Fallback::TryWrite
    })
}

impl Uverbs {
    /// Tries the ioctl method of `verb` unless this context already learned the
    /// kernel lacks it; on `Ok(TryWrite*)` the caller sends the write() command.
    #[inline(always)]
    pub(crate) fn ioctl_fallback(&self, verb: Verb, cmd: &mut IoctlCmd<'_>) -> Result<Fallback> {
        if self.support.known_unsupported(verb) {
            return check_legacy(cmd);
        }
        match self.ioctl(cmd) {
            Ok(()) => Ok(Fallback::Done),
            Err(e) if self.support.record_failure(verb, e) => check_legacy(cmd),
            Err(e) => Err(e),
        }
    }
}

impl Uverbs {
    /// Destroys an object by handle with its `*_DESTROY` method, or with the
    /// write() command `write` on kernels without it.
    #[inline(always)]
    pub(super) fn destroy(
        &self,
        verb: Verb,
        name: &'static str,
        (object, method, attr): (u16, u16, u16),
        handle: u32,
        write: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut c = IoctlCmd::new(name, object, method);
        c.idr_in(attr, handle);
        super::disassoc::destroy_result(match self.ioctl_fallback(verb, &mut c) {
            Ok(Fallback::Done) => Ok(()),
            Ok(Fallback::TryWrite | Fallback::TryWriteEx) => write(),
            Err(e) => Err(e),
        })
    }
}
