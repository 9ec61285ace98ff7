//! The command-buffer handling against frames laid out as cmd_ioctl.h's
//! DECLARE_COMMAND_BUFFER_LINK lays them out on a plugin's stack.

use super::*;
use crate::driver_abi::v34::{
    CMDB_BUFFER_ERROR, CMDB_FALLBACK_IOCTL_ONLY, CMDB_FALLBACK_REQUIRE_EX, UHW_NO_INDEX,
};
use crate::uverbs::ids::UVERBS_ATTR_UHW_IN;

/// One frame: the buffer struct, then room for `room` attributes.
struct Frame {
    mem: Vec<u64>,
}

impl Frame {
    fn new(object: u16, method: u16, room: usize, link: *mut ibv_command_buffer) -> Frame {
        let words = (size_of::<ibv_command_buffer>() + room * 16) / 8;
        let mut f = Frame {
            mem: vec![0; words],
        };
        let p = f.ptr();
        let a = ibv_command_buffer::attrs(p);
        // SAFETY: our zeroed, aligned backing store of the right size.
        unsafe {
            (*p).next = link;
            (*p).next_attr = a;
            (*p).last_attr = a.add(room);
            (*p).uhw_in_idx = UHW_NO_INDEX;
            (*p).uhw_out_idx = UHW_NO_INDEX;
            (*p).hdr.object_id = object;
            (*p).hdr.method_id = method;
        }
        f
    }

    fn ptr(&mut self) -> *mut ibv_command_buffer {
        self.mem.as_mut_ptr().cast()
    }

    /// What fill_attr_* does: the next slot, then advance.
    fn fill(&mut self, id: u16, len: u16, flags: u16, data: u64) -> usize {
        let p = self.ptr();
        // SAFETY: within the frame (the tests stay in their room).
        unsafe {
            let a = (*p).next_attr;
            *a = ib_uverbs_attr {
                attr_id: id,
                len,
                flags,
                attr_data: 0,
                data,
            };
            (*p).next_attr = a.add(1);
            a.offset_from(ibv_command_buffer::attrs(p)) as usize
        }
    }

    fn attr(&mut self, i: usize) -> ib_uverbs_attr {
        // SAFETY: within the frame.
        unsafe { *ibv_command_buffer::attrs(self.ptr()).add(i) }
    }

    fn hdr(&mut self) -> ib_uverbs_ioctl_hdr {
        // SAFETY: our frame.
        unsafe { (*self.ptr()).hdr }
    }
}

#[test]
fn chained_attrs_follow_the_callers_and_come_back() {
    let mut inner = Frame::new(3, 1, 2, std::ptr::null_mut());
    inner.fill(0x1000, 8, 1, 0xaaaa);
    inner.fill(0x1001, 0, 1, 0);
    // __ioctl_final_num_attrs(2, inner) sizes the outer frame: 2 + 2.
    // SAFETY: our frames.
    let total = unsafe { crate::verbs::driver::__ioctl_final_num_attrs(2, inner.ptr()) };
    assert_eq!(total, 4);
    let mut outer = Frame::new(3, 1, total as usize, inner.ptr());
    outer.fill(1, 0, 1, 42);
    outer.fill(2, 4, 0, 7);

    // SAFETY: a chain of our frames.
    let chain = unsafe { prepare(outer.ptr(), 9) }.unwrap();
    assert_eq!(chain, vec![inner.ptr()]);
    let h = outer.hdr();
    assert_eq!((h.object_id, h.method_id, h.num_attrs), (3, 1, 4));
    assert_eq!(h.length as usize, 24 + 4 * 16);
    assert_eq!((h.driver_id, h.reserved1, h.reserved2), (9, 0, 0));
    let ids: Vec<u16> = (0..4).map(|i| outer.attr(i).attr_id).collect();
    assert_eq!(ids, [1, 2, 0x1000, 0x1001]);

    // The kernel answers in the linear array: a new handle, VALID_OUTPUT.
    // SAFETY: our frame.
    unsafe {
        let a = ibv_command_buffer::attrs(outer.ptr());
        (*a.add(3)).data = 77;
        (*a.add(3)).flags |= 2;
    }
    // SAFETY: as prepared.
    unsafe { finalize(outer.ptr(), &chain) };
    assert_eq!(inner.attr(1).data, 77);
    assert_eq!(inner.attr(1).flags, 3);
    assert_eq!(inner.attr(0).data, 0xaaaa);
}

#[test]
fn a_small_uhw_in_is_inlined_from_a_link() {
    let drv = 0x0102_0304u32.to_ne_bytes();
    let mut inner = Frame::new(1, 2, 1, std::ptr::null_mut());
    let i = inner.fill(UVERBS_ATTR_UHW_IN, 4, 0, drv.as_ptr() as u64);
    // SAFETY: our frame; _write_set_uhw records the index.
    unsafe { (*inner.ptr()).uhw_in_idx = i as u8 };
    let mut outer = Frame::new(1, 2, 3, inner.ptr());
    outer.fill(5, 0, 1, 1);
    outer.fill(6, 0, 1, 2);
    // SAFETY: a chain of our frames.
    unsafe { prepare(outer.ptr(), 0) }.unwrap();
    // SAFETY: our frame.
    assert_eq!(unsafe { (*outer.ptr()).uhw_in_idx }, 2);
    let a = outer.attr(2);
    assert_eq!(a.attr_id, UVERBS_ATTR_UHW_IN);
    assert_eq!(a.data.to_ne_bytes()[..4], drv);
}

#[test]
fn a_large_uhw_in_stays_a_pointer() {
    let drv = [7u8; 12];
    let mut f = Frame::new(1, 2, 1, std::ptr::null_mut());
    let i = f.fill(UVERBS_ATTR_UHW_IN, 12, 0, drv.as_ptr() as u64);
    // SAFETY: our frame.
    unsafe { (*f.ptr()).uhw_in_idx = i as u8 };
    // SAFETY: our frame.
    unsafe { prepare(f.ptr(), 0) }.unwrap();
    assert_eq!(f.attr(0).data, drv.as_ptr() as u64);
}

#[test]
fn a_marshalling_error_is_einval_before_the_kernel() {
    let mut f = Frame::new(1, 2, 1, std::ptr::null_mut());
    // SAFETY: our frame.
    unsafe { (*f.ptr()).flags |= CMDB_BUFFER_ERROR };
    // SAFETY: our frame.
    assert_eq!(unsafe { prepare(f.ptr(), 0) }.err(), Some(Errno::EINVAL));
}

#[test]
fn a_buffer_too_small_for_its_links_is_einval() {
    let mut inner = Frame::new(1, 2, 2, std::ptr::null_mut());
    inner.fill(1, 0, 1, 0);
    inner.fill(2, 0, 1, 0);
    let mut outer = Frame::new(1, 2, 2, inner.ptr());
    outer.fill(3, 0, 1, 0);
    // SAFETY: our frames.
    assert_eq!(
        unsafe { prepare(outer.ptr(), 0) }.err(),
        Some(Errno::EINVAL)
    );
    // Nothing was written to the frame's header.
    assert_eq!(outer.hdr().num_attrs, 0);
}

#[test]
fn a_looping_chain_is_einval() {
    let mut a = Frame::new(1, 2, 1, std::ptr::null_mut());
    let mut b = Frame::new(1, 2, 1, a.ptr());
    // SAFETY: our frames.
    unsafe { (*a.ptr()).next = b.ptr() };
    let mut c = Frame::new(1, 2, 4, b.ptr());
    // SAFETY: our frames.
    assert_eq!(unsafe { prepare(c.ptr(), 0) }.err(), Some(Errno::EINVAL));
}

#[test]
fn next_attr_outside_the_frame_is_einval() {
    let mut f = Frame::new(1, 2, 1, std::ptr::null_mut());
    // SAFETY: our frame; next_attr beyond last_attr.
    unsafe { (*f.ptr()).next_attr = (*f.ptr()).last_attr.wrapping_add(1) };
    // SAFETY: our frame (only compared, never read there).
    assert_eq!(unsafe { prepare(f.ptr(), 0) }.err(), Some(Errno::EINVAL));
}

#[test]
fn a_driver_chain_falls_back_to_write_only_without_method_attributes() {
    use crate::uverbs::ids::UVERBS_ATTR_UHW_OUT;
    // SAFETY (every call below): NULL or a chain of our frames.
    assert_eq!(unsafe { legacy_fallback(std::ptr::null_mut()) }, Ok(false));
    // UHW and optional attributes: the write() command carries the request.
    let mut tail = Frame::new(3, 0, 2, std::ptr::null_mut());
    tail.fill(UVERBS_ATTR_UHW_IN, 4, 1, 5);
    tail.fill(0x1002, 4, 0, 7);
    let mut head = Frame::new(3, 0, 1, tail.ptr());
    head.fill(UVERBS_ATTR_UHW_OUT, 8, 1, 0);
    assert_eq!(unsafe { legacy_fallback(head.ptr()) }, Ok(false));
    // SAFETY: our frame.
    unsafe { (*tail.ptr()).flags |= CMDB_FALLBACK_REQUIRE_EX };
    assert_eq!(unsafe { legacy_fallback(head.ptr()) }, Ok(true));
    // A mandatory driver attribute (mlx5's UAR index, the first id after
    // UHW_IN/UHW_OUT): only the method.
    let mut uar = Frame::new(3, 0, 1, std::ptr::null_mut());
    uar.fill(0x1002, 4, 1, 0x10000);
    assert_eq!(
        unsafe { legacy_fallback(uar.ptr()) },
        Err(Errno::EOPNOTSUPP)
    );
    let mut only = Frame::new(3, 0, 0, std::ptr::null_mut());
    // SAFETY: our frame.
    unsafe { (*only.ptr()).flags |= CMDB_FALLBACK_IOCTL_ONLY };
    assert_eq!(
        unsafe { legacy_fallback(only.ptr()) },
        Err(Errno::EOPNOTSUPP)
    );
}
