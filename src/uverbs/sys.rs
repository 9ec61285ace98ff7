//! The system calls on a uverbs fd. Everything that hands the kernel an address
//! lives here, next to the borrows that keep those addresses valid.
#![allow(unsafe_code)]

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, BorrowedFd};

use super::ioctl_hdr::{IoctlAttr, IoctlHdr};
use super::pod::Pod;
use crate::entry::{Errno, Result};

/// `RDMA_VERBS_IOCTL`: `_IOWR(0x1b, 1, struct ib_uverbs_ioctl_hdr)`.
pub(crate) const RDMA_VERBS_IOCTL: u64 =
    (3 << 30) | ((size_of::<IoctlHdr>() as u64) << 16) | (0x1b << 8) | 1;

/// Most attributes any method takes (rdma-core's largest, QP create, uses 15 + driver's).
pub(crate) const MAX_ATTRS: usize = 32;

#[cfg(test)]
std::thread_local! {
    /// Tests only: the kernel's answer to this thread's next commands, in
    /// place of the system call (a fault the test device cannot produce).
    pub(crate) static FAKE_ERRNO: std::cell::Cell<Option<Errno>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn fake_errno() -> Result<()> {
    FAKE_ERRNO.with(|f| f.get()).map_or(Ok(()), Err)
}

/// write(2) of a whole command (also rxe's doorbell); a short write is `EIO`.
pub(crate) fn write_cmd(fd: BorrowedFd<'_>, buf: &[u8]) -> Result<()> {
    #[cfg(test)]
    fake_errno()?;
    if nix::unistd::write(fd, buf)? != buf.len() {
        return Err(Errno::EIO);
    }
    Ok(())
}

/// write(2) of rxe's doorbell as the system call returns: the bytes
/// written, or -1 with errno set (read it before any other libc call). No
/// `Result` on the data path: the caller compares once and leaves the rest
/// to a cold path.
#[inline(always)]
pub(crate) fn write_raw(fd: BorrowedFd<'_>, buf: &[u8]) -> isize {
    #[cfg(test)]
    if let Err(e) = fake_errno() {
        crate::entry::set_errno(e);
        return -1;
    }
    // SAFETY: `buf` is readable for its length; the kernel only reads it.
    unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast(), buf.len()) }
}

/// write(2) of a command whose response the kernel stores at the address held in
/// `req[at..at + 8]`: that address is set here to `resp`, so it cannot dangle.
pub(crate) fn write_cmd_resp(
    fd: BorrowedFd<'_>,
    req: &mut [u8],
    at: usize,
    resp: &mut [u8],
) -> Result<()> {
    let addr = resp.as_mut_ptr() as u64;
    req[at..at + 8].copy_from_slice(&addr.to_ne_bytes());
    // The kernel may write fewer bytes than asked; what it leaves must read as zero.
    resp.fill(0);
    write_cmd(fd, req)
}

/// The header and attribute array of one `RDMA_VERBS_IOCTL` call.
///
/// Invariant: every attribute that carries an address points into memory borrowed
/// for `'a` (shared for inputs, exclusive for outputs) and valid for its `len`.
pub(crate) struct AttrBuf<'a> {
    wire: Wire,
    object_id: u16,
    method_id: u16,
    len: usize,
    overflow: bool,
    _borrows: PhantomData<&'a mut [u8]>,
}

// The kernel reads the header and the attributes as one block, and writes
// its output (handles, fds, flags) back into the attributes in place. Only
// the first `len` attributes are initialised (and only those reach the
// kernel, `hdr.num_attrs`): no 512-byte memset per command. The header is
// written whole when the command goes (`finish`): zero header fields stored
// at `new` made LLVM merge them and the uninitialised attributes into one
// memset of the whole block (about 50 instructions per command).
#[repr(C)]
struct Wire {
    hdr: MaybeUninit<IoctlHdr>,
    attrs: [MaybeUninit<IoctlAttr>; MAX_ATTRS],
}

impl<'a> AttrBuf<'a> {
    #[inline]
    pub(crate) fn new(object_id: u16, method_id: u16) -> Self {
        AttrBuf {
            // SAFETY: every field of Wire is MaybeUninit: uninitialised
            // memory is a valid Wire. (Built field by field, LLVM zeroed
            // all 536 bytes.)
            wire: unsafe { MaybeUninit::<Wire>::uninit().assume_init() },
            object_id,
            method_id,
            len: 0,
            overflow: false,
            _borrows: PhantomData,
        }
    }

    fn push(&mut self, attr: IoctlAttr) -> usize {
        if self.len == MAX_ATTRS || self.overflow {
            self.overflow = true;
            return MAX_ATTRS - 1;
        }
        self.wire.attrs[self.len].write(attr);
        self.len += 1;
        self.len - 1
    }

    /// An attribute whose value is carried in `data` itself (inline data, handles, fds).
    pub(crate) fn push_value(
        &mut self,
        attr_id: u16,
        len: u16,
        flags: u16,
        elem_id: u8,
        data: u64,
    ) -> usize {
        self.push(IoctlAttr {
            attr_id,
            len,
            flags,
            elem_id,
            reserved: 0,
            data,
        })
    }

    /// A `PTR_IN` attribute that the kernel reads through a pointer.
    pub(crate) fn push_ptr_in(
        &mut self,
        attr_id: u16,
        flags: u16,
        elem_id: u8,
        data: &'a [u8],
    ) -> usize {
        let Ok(len) = u16::try_from(data.len()) else {
            self.overflow = true;
            return 0;
        };
        self.push_value(attr_id, len, flags, elem_id, data.as_ptr() as u64)
    }

    /// A `PTR_OUT` attribute that the kernel writes through a pointer.
    pub(crate) fn push_ptr_out(&mut self, attr_id: u16, flags: u16, data: &'a mut [u8]) -> usize {
        let Ok(len) = u16::try_from(data.len()) else {
            self.overflow = true;
            return 0;
        };
        self.push_value(attr_id, len, flags, 0, data.as_mut_ptr() as u64)
    }

    pub(crate) fn attrs(&self) -> &[IoctlAttr] {
        let init = &self.wire.attrs[..self.len];
        // SAFETY: `push` initialised the first `len` attributes, and
        // MaybeUninit<IoctlAttr> has IoctlAttr's layout.
        unsafe { &*(init as *const [MaybeUninit<IoctlAttr>] as *const [IoctlAttr]) }
    }

    /// Changes flags only: the address and length that the invariant is about stay.
    pub(crate) fn set_flags(&mut self, idx: usize, flags: u16) {
        if idx < self.len {
            // SAFETY: attributes below `len` are initialised (`push`).
            unsafe { self.wire.attrs[idx].assume_init_mut().flags = flags };
        }
    }

    /// Fills in the header fields and returns the bytes the kernel will read.
    pub(crate) fn encode(&mut self, driver_id: u32) -> Result<Vec<u8>> {
        let mut v = self.finish(driver_id)?.as_bytes().to_vec();
        for a in self.attrs() {
            v.extend_from_slice(a.as_bytes());
        }
        Ok(v)
    }

    fn finish(&mut self, driver_id: u32) -> Result<&IoctlHdr> {
        if self.overflow {
            return Err(Errno::EINVAL);
        }
        Ok(self.wire.hdr.write(IoctlHdr {
            length: (size_of::<IoctlHdr>() + self.len * size_of::<IoctlAttr>()) as u16,
            object_id: self.object_id,
            method_id: self.method_id,
            num_attrs: self.len as u16,
            reserved1: 0,
            driver_id,
            reserved2: 0,
        }))
    }

    /// Issues `RDMA_VERBS_IOCTL`; the kernel's output (handles, fds, flags) is
    /// copied back into the attributes. A raw `libc::ioctl`: nix's `ioctl_*!`
    /// macros describe one fixed-size argument, and this one is a header
    /// followed by a variable number of attributes pointing at other memory.
    pub(crate) fn execute(&mut self, fd: BorrowedFd<'_>, driver_id: u32) -> Result<()> {
        self.finish(driver_id)?;
        #[cfg(test)]
        fake_errno()?;
        // SAFETY: `self.wire` is a valid header followed by `num_attrs` attributes; each
        // address in them is valid for its length and borrowed for `'a`, which
        // outlives this call (the struct invariant), so the kernel's reads and
        // writes through them hit live memory that nothing else is using.
        let r = unsafe {
            libc::ioctl(
                fd.as_raw_fd(),
                RDMA_VERBS_IOCTL as _,
                &mut self.wire as *mut Wire,
            )
        };
        // Not `nix::errno::Errno::result(r)?`: that kept `r` for its Ok value,
        // 4 instructions more per ioctl (callgrind, docs/crates.md).
        if r != 0 {
            return Err(Errno::last());
        }
        Ok(())
    }
}

/// Takes ownership of an fd the kernel just created for us (e.g. in a response).
pub(crate) fn own_new_fd(fd: i32) -> Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    if fd < 0 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the kernel opened this fd for this call and nothing else owns it.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}
