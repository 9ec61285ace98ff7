//! Our own `struct ibv_command_buffer` frame, for the `ibv_cmd_*` functions
//! whose command is an ioctl method: like DECLARE_COMMAND_BUFFER_LINK, it
//! has room for its attributes and for those of the plugin's `link` chain
//! (its driver attributes), and runs through the same [`super::ioctl`] path
//! as a plugin's own buffers. The fill methods are cmd_ioctl.h's helpers:
//! mandatory attributes; inputs of 8 bytes or fewer inline, longer ones by
//! pointer; outputs by pointer.

use crate::abi::ibv_context;
use crate::driver_abi::v34::{UHW_NO_INDEX, ib_uverbs_attr, ibv_command_buffer};
use crate::entry::{Errno, Result};
use crate::uverbs::ioctl_hdr::UVERBS_ATTR_F_MANDATORY;

/// Names an attribute of a frame, to read the kernel's answer back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot(usize);

pub(crate) struct Frame {
    /// The buffer struct, then the attribute array (8-byte aligned words).
    mem: Vec<u64>,
}

impl Frame {
    /// A frame for `object`/`method` with room for `own` attributes and the
    /// `link` chain's (`__ioctl_final_num_attrs`).
    ///
    /// # Safety
    /// `link` is NULL or a live command buffer chain of the plugin.
    pub(crate) unsafe fn new(
        object: u16,
        method: u16,
        own: usize,
        link: *mut ibv_command_buffer,
    ) -> Result<Frame> {
        // SAFETY: per the contract.
        let chained = unsafe { super::ioctl::chained_attrs(link)? };
        let room = own + chained;
        let bytes = size_of::<ibv_command_buffer>() + room * size_of::<ib_uverbs_attr>();
        let mut f = Frame {
            mem: vec![0; bytes.div_ceil(8)],
        };
        let p = f.ptr();
        let a = ibv_command_buffer::attrs(p);
        // SAFETY: our zeroed, aligned store, big enough for the struct and
        // `room` attributes.
        unsafe {
            (*p).next = link;
            (*p).next_attr = a;
            (*p).last_attr = a.add(room);
            (*p).uhw_in_idx = UHW_NO_INDEX;
            (*p).uhw_out_idx = UHW_NO_INDEX;
            (*p).hdr.object_id = object;
            (*p).hdr.method_id = method;
        }
        Ok(f)
    }

    pub(crate) fn ptr(&mut self) -> *mut ibv_command_buffer {
        self.mem.as_mut_ptr().cast()
    }

    fn push(&mut self, attr_id: u16, len: usize, data: u64) -> Slot {
        let p = self.ptr();
        let len = match u16::try_from(len) {
            Ok(l) => l,
            Err(_) => {
                // As _fill_attr_in: marshalling fails at execute time.
                // SAFETY: our frame.
                unsafe { (*p).flags |= crate::driver_abi::v34::CMDB_BUFFER_ERROR };
                0
            }
        };
        // SAFETY: our frame; `own` bounds our pushes (the callers push at
        // most what they declared, checked here).
        unsafe {
            let a = (*p).next_attr;
            assert!(a < (*p).last_attr, "frame overflow");
            *a = ib_uverbs_attr {
                attr_id,
                len,
                flags: UVERBS_ATTR_F_MANDATORY,
                attr_data: 0,
                data,
            };
            (*p).next_attr = a.add(1);
            Slot(a.offset_from(ibv_command_buffer::attrs(p)) as usize)
        }
    }

    /// fill_attr_in: `len` bytes at `data`, inline if they fit in 8.
    ///
    /// # Safety
    /// `data` holds `len` readable bytes that outlive the call.
    pub(crate) unsafe fn ptr_in(&mut self, id: u16, data: *const u8, len: usize) -> Slot {
        if len <= 8 {
            let mut v = [0u8; 8];
            // SAFETY: per the contract.
            unsafe { std::ptr::copy_nonoverlapping(data, v.as_mut_ptr(), len) };
            self.push(id, len, u64::from_ne_bytes(v))
        } else {
            self.push(id, len, data as u64)
        }
    }

    /// fill_attr_out: the kernel writes up to `len` bytes at `data`.
    ///
    /// # Safety
    /// `data` holds `len` writable bytes that outlive the call.
    pub(crate) unsafe fn ptr_out(&mut self, id: u16, data: *mut u8, len: usize) -> Slot {
        self.push(id, len, data as u64)
    }

    pub(crate) fn u32_in(&mut self, id: u16, v: u32) -> Slot {
        self.push(id, 4, u64::from(v))
    }

    pub(crate) fn u64_in(&mut self, id: u16, v: u64) -> Slot {
        self.push(id, 8, v)
    }

    /// fill_attr_const_in: a u64 inline.
    pub(crate) fn const_in(&mut self, id: u16, v: u64) -> Slot {
        self.push(id, 8, v)
    }

    /// fill_attr_in_obj: an object handle.
    pub(crate) fn obj_in(&mut self, id: u16, handle: u32) -> Slot {
        self.push(id, 0, u64::from(handle))
    }

    /// fill_attr_out_obj: a new object's handle, read with [`Frame::read_obj`].
    pub(crate) fn obj_out(&mut self, id: u16) -> Slot {
        self.push(id, 0, 0)
    }

    /// fill_attr_in_fd: nothing for a negative fd, as rdma-core.
    pub(crate) fn fd_in(&mut self, id: u16, fd: i32) -> Option<Slot> {
        (fd >= 0).then(|| self.push(id, 0, fd as i64 as u64))
    }

    /// fill_attr_in_enum's element: which form of the attribute `data` holds.
    pub(crate) fn set_enum(&mut self, s: Slot, elem_id: u8) {
        // SAFETY: an attribute we pushed.
        unsafe {
            (*ibv_command_buffer::attrs(self.ptr()).add(s.0)).attr_data =
                u16::from_ne_bytes([elem_id, 0])
        };
    }

    /// attr_optional: an older kernel may ignore it.
    pub(crate) fn optional(&mut self, s: Slot) {
        // SAFETY: an attribute we pushed.
        unsafe {
            (*ibv_command_buffer::attrs(self.ptr()).add(s.0)).flags &= !UVERBS_ATTR_F_MANDATORY
        };
    }

    pub(crate) fn read_obj(&mut self, s: Slot) -> u32 {
        self.attr(s).data as u32
    }

    pub(crate) fn attr(&mut self, s: Slot) -> ib_uverbs_attr {
        // SAFETY: an attribute we pushed.
        unsafe { *ibv_command_buffer::attrs(self.ptr()).add(s.0) }
    }

    /// execute_ioctl on this frame and its link chain.
    ///
    /// # Safety
    /// `ctx` is a hosted context; every pointer pushed is still live.
    pub(crate) unsafe fn execute(&mut self, ctx: *mut ibv_context) -> Result<()> {
        if ctx.is_null() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: per the contract.
        unsafe { super::ioctl::execute(ctx, self.ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_makes_room_for_its_link() {
        // SAFETY: no link.
        let mut inner = unsafe { Frame::new(14, 0, 2, std::ptr::null_mut()) }.unwrap();
        inner.u32_in(0x1000, 5);
        // SAFETY: `inner` outlives `outer`.
        let mut outer = unsafe { Frame::new(14, 0, 3, inner.ptr()) }.unwrap();
        let h = outer.obj_out(0);
        outer.u64_in(1, 4096);
        outer.u32_in(2, 12);
        let big = [9u8; 16];
        // SAFETY: `inner`'s room is spent; a third own attribute would not
        // fit, so the frame sized itself from the link: 3 + 1.
        let p = outer.ptr();
        // SAFETY: our frame.
        let room = unsafe { (*p).last_attr.offset_from(ibv_command_buffer::attrs(p)) };
        assert_eq!(room, 4);
        // SAFETY: a chain of our frames.
        unsafe { super::super::ioctl::prepare(p, 3) }.unwrap();
        // SAFETY: our frame.
        let hdr = unsafe { (*p).hdr };
        assert_eq!((hdr.object_id, hdr.num_attrs, hdr.driver_id), (14, 4, 3));
        assert_eq!(outer.attr(h).flags, UVERBS_ATTR_F_MANDATORY);
        let a = outer.attr(Slot(3));
        assert_eq!((a.attr_id, a.len, a.data), (0x1000, 4, 5));
        // SAFETY: our array, 16 bytes.
        let mut f = unsafe { Frame::new(1, 1, 2, std::ptr::null_mut()) }.unwrap();
        // SAFETY: as above.
        let s = unsafe { f.ptr_in(7, big.as_ptr(), big.len()) };
        assert_eq!(f.attr(s).data, big.as_ptr() as u64);
        let small = 0x0102u16.to_ne_bytes();
        // SAFETY: as above.
        let s = unsafe { f.ptr_in(8, small.as_ptr(), 2) };
        assert_eq!((f.attr(s).len, f.attr(s).data), (2, 0x0102));
    }
}
