//! Taking over an open uverbs fd: which transport its kernel takes for
//! write() commands.

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};

use super::channel::Uverbs;
use super::ids::{UVERBS_ATTR_WRITE_CMD, UVERBS_METHOD_INVOKE_WRITE, UVERBS_OBJECT_DEVICE};
use super::ioctl::IoctlCmd;
use super::post::Doorbell;
use super::write::IB_USER_VERBS_CMD_QUERY_DEVICE;
use crate::entry::{Errno, trace_level};

impl Uverbs {
    /// Takes over an already open uverbs fd and probes the transport.
    pub(crate) fn from_fd(fd: OwnedFd, driver_id: u32) -> Uverbs {
        let u = Uverbs {
            fd,
            driver_id,
            ioctl_write: AtomicBool::new(false),
            support: Default::default(),
            doorbell_ok: match trace_level() {
                0 | 1 => size_of::<Doorbell>() as isize,
                _ => -2,
            },
        };
        u.ioctl_write
            .store(u.probe_ioctl_write(), Ordering::Relaxed);
        u
    }

    /// Whether the kernel has `INVOKE_WRITE`: asked to run QUERY_DEVICE without a
    /// request, a kernel that has it fails with something other than "no such method".
    fn probe_ioctl_write(&self) -> bool {
        let mut c = IoctlCmd::new(
            "INVOKE_WRITE probe",
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_INVOKE_WRITE,
        );
        c.const_in(UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE as u64);
        !matches!(
            self.ioctl(&mut c),
            Err(Errno(libc::ENOTTY | libc::EPROTONOSUPPORT))
        )
    }
}
