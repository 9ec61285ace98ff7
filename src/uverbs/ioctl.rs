//! A typed builder for one `RDMA_VERBS_IOCTL` method call.

use std::os::fd::RawFd;

use super::channel::{Outcome, Uverbs};
use super::ids::{UVERBS_ATTR_UHW_IN, UVERBS_ATTR_UHW_OUT};
use super::ioctl_hdr::{UVERBS_ATTR_F_MANDATORY, UVERBS_ATTR_F_VALID_OUTPUT};
use super::pod::Pod;
use super::sys::AttrBuf;
use crate::entry::{Result, trace_level, trace_line};

/// Names an attribute after it was added, to make it optional or read it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Attr(usize);

/// One method call. Attributes are mandatory unless passed to [`IoctlCmd::optional`];
/// buffers are borrowed until the command is dropped, so the kernel's view of them
/// cannot go stale.
pub(crate) struct IoctlCmd<'a> {
    pub(super) name: &'static str,
    pub(super) object_id: u16,
    pub(super) method_id: u16,
    pub(super) buf: AttrBuf<'a>,
    /// Attributes from here on were added by the driver (see `begin_driver_attrs`).
    pub(super) driver_start: Option<usize>,
    pub(super) require_ex: bool,
    pub(super) ioctl_only: bool,
}

impl<'a> IoctlCmd<'a> {
    #[inline]
    pub(crate) fn new(name: &'static str, object_id: u16, method_id: u16) -> Self {
        IoctlCmd {
            name,
            object_id,
            method_id,
            buf: AttrBuf::new(object_id, method_id),
            driver_start: None,
            require_ex: false,
            ioctl_only: false,
        }
    }

    /// `PTR_IN`: up to 8 bytes travel inline in the attribute, as the kernel
    /// expects; longer data by pointer.
    pub(crate) fn ptr_in(&mut self, id: u16, data: &'a [u8]) -> Attr {
        self.ptr_in_elem(id, 0, data)
    }

    fn ptr_in_elem(&mut self, id: u16, elem_id: u8, data: &'a [u8]) -> Attr {
        let f = UVERBS_ATTR_F_MANDATORY;
        if data.len() <= 8 {
            let mut v = [0u8; 8];
            v[..data.len()].copy_from_slice(data);
            Attr(
                self.buf
                    .push_value(id, data.len() as u16, f, elem_id, u64::from_ne_bytes(v)),
            )
        } else {
            Attr(self.buf.push_ptr_in(id, f, elem_id, data))
        }
    }

    /// `PTR_OUT`: always by pointer.
    pub(crate) fn ptr_out(&mut self, id: u16, data: &'a mut [u8]) -> Attr {
        Attr(self.buf.push_ptr_out(id, UVERBS_ATTR_F_MANDATORY, data))
    }

    pub(crate) fn ptr_out_pod<T: Pod>(&mut self, id: u16, v: &'a mut T) -> Attr {
        self.ptr_out(id, v.as_bytes_mut())
    }

    /// A `u64` constant/flags value, inline.
    pub(crate) fn const_in(&mut self, id: u16, v: u64) -> Attr {
        Attr(self.buf.push_value(id, 8, UVERBS_ATTR_F_MANDATORY, 0, v))
    }

    /// A `u32` value, inline with length 4.
    pub(crate) fn u32_in(&mut self, id: u16, v: u32) -> Attr {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&v.to_ne_bytes());
        Attr(
            self.buf
                .push_value(id, 4, UVERBS_ATTR_F_MANDATORY, 0, u64::from_ne_bytes(b)),
        )
    }

    /// An `ENUM_IN` attribute: `elem_id` selects the variant, `data` its payload.
    pub(crate) fn enum_in(&mut self, id: u16, elem_id: u8, data: &'a [u8]) -> Attr {
        self.ptr_in_elem(id, elem_id, data)
    }

    /// An existing object's handle (`IDR` in).
    pub(crate) fn idr_in(&mut self, id: u16, handle: u32) -> Attr {
        Attr(
            self.buf
                .push_value(id, 0, UVERBS_ATTR_F_MANDATORY, 0, handle as u64),
        )
    }

    /// A new object's handle, read with [`IoctlCmd::read_idr`] after the call.
    pub(crate) fn idr_out(&mut self, id: u16) -> Attr {
        self.idr_in(id, 0)
    }

    /// An fd (`FD` in), e.g. a completion channel. Like rdma-core, `None`/-1 adds nothing.
    pub(crate) fn fd_in(&mut self, id: u16, fd: Option<RawFd>) -> Option<Attr> {
        let fd = fd.filter(|&f| f >= 0)?;
        Some(Attr(self.buf.push_value(
            id,
            0,
            UVERBS_ATTR_F_MANDATORY,
            0,
            fd as i64 as u64,
        )))
    }

    /// A new fd created by the kernel, read with [`IoctlCmd::read_fd`].
    pub(crate) fn fd_out(&mut self, id: u16) -> Attr {
        Attr(self.buf.push_value(id, 0, UVERBS_ATTR_F_MANDATORY, 0, 0))
    }

    /// The driver's private request/response (`UHW_IN`/`UHW_OUT`); empty ones are left out.
    pub(crate) fn uhw(&mut self, drv_in: &'a [u8], drv_out: &'a mut [u8]) {
        if !drv_in.is_empty() {
            self.ptr_in(UVERBS_ATTR_UHW_IN, drv_in);
        }
        if !drv_out.is_empty() {
            self.ptr_out(UVERBS_ATTR_UHW_OUT, drv_out);
        }
    }

    /// Lets an older kernel ignore the attribute.
    pub(crate) fn optional(&mut self, a: Attr) -> Attr {
        let flags = self.buf.attrs()[a.0].flags & !UVERBS_ATTR_F_MANDATORY;
        self.buf.set_flags(a.0, flags);
        a
    }

    /// Attributes added after this belong to the driver: write() cannot carry
    /// them, so if one is mandatory there is no fallback.
    pub(crate) fn begin_driver_attrs(&mut self) {
        self.driver_start.get_or_insert(self.buf.attrs().len());
    }

    /// On fallback, only the `_ex` write command can express this request.
    pub(crate) fn fallback_require_ex(&mut self) {
        self.require_ex = true;
    }

    /// On fallback, no write command can express this request.
    #[cfg(test)]
    pub(crate) fn fallback_require_ioctl(&mut self) {
        self.ioctl_only = true;
    }

    pub(crate) fn read_idr(&self, a: Attr) -> u32 {
        self.buf.attrs()[a.0].data as u32
    }

    pub(crate) fn read_fd(&self, a: Attr) -> RawFd {
        self.buf.attrs()[a.0].data as i64 as RawFd
    }

    /// Whether the kernel wrote an optional `PTR_OUT` attribute.
    pub(crate) fn valid_output(&self, a: Attr) -> bool {
        let f = self.buf.attrs()[a.0].flags;
        f & (UVERBS_ATTR_F_VALID_OUTPUT | UVERBS_ATTR_F_MANDATORY) != 0
    }

    /// The header and attributes as the kernel will see them (for tests and traces).
    pub(crate) fn encode(&mut self, driver_id: u32) -> Result<Vec<u8>> {
        self.buf.encode(driver_id)
    }
}

impl Uverbs {
    /// Runs one method call. No fallback: see [`Uverbs::ioctl_fallback`].
    #[inline]
    pub(crate) fn ioctl(&self, cmd: &mut IoctlCmd<'_>) -> Result<()> {
        let r = cmd.buf.execute(self.fd(), self.driver_id);
        trace_ioctl(cmd, &r);
        r
    }
}

// As `Uverbs::trace_write`: the check inlined, the line cold.
#[inline(always)]
fn trace_ioctl(c: &IoctlCmd<'_>, r: &Result<()>) {
    if trace_level() >= 2 {
        trace_ioctl_line(c.name, c.object_id, c.method_id, *r);
    }
}

#[cold]
#[inline(never)]
fn trace_ioctl_line(name: &str, o: u16, m: u16, r: Result<()>) {
    trace_line(format_args!(
        "uverbs ioctl {name} (object {o} method {m}) = {}",
        Outcome(&r)
    ));
}
