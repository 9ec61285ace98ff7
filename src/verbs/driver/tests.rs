use super::*;
use crate::driver_abi::{Pabi, V34, V34_45, V65};

/// A plugin's new verbs_qp of `pabi`'s layout with `wr_flush` set, run
/// through [`on_qp`] with a command that writes `comp_mask` and `xrcd` at
/// 44's places as the v34 commands do; the words at 352, 360 and 368.
fn run(pabi: &Pabi, ok: bool) -> [u64; 3] {
    let mut q = [0u64; 64];
    q[352 / 8] = 0x5151_5151_5151_5150; // the plugin's wr_flush
    q[360 / 8] = 0x2; // bits it keeps
    // SAFETY: 512 bytes of ours, longer than any verbs_qp here.
    let r = unsafe {
        on_qp(q.as_mut_ptr().cast(), pabi, |v| {
            let v = v.cast::<u8>();
            // SAFETY: inside `q`.
            v.add(352).cast::<u64>().write(0x1); // comp_mask 1 (with padding)
            v.add(360).cast::<u64>().write(0xC0DE); // xrcd
            if ok { Ok(()) } else { Err(Errno::EINVAL) }
        })
    };
    assert_eq!(r.is_ok(), ok);
    [q[352 / 8], q[360 / 8], q[368 / 8]]
}

#[test]
fn on_qp_keeps_44s_layout_as_written() {
    assert_eq!(run(&V34, true), [0x1, 0xC0DE, 0]);
}

#[test]
fn on_qp_moves_comp_mask_and_xrcd_past_wr_flush() {
    for pabi in [&V34_45, &V65] {
        assert_eq!(pabi.qp_ex_size, 360);
        let [flush, mask, xrcd] = run(pabi, true);
        assert_eq!(flush, 0x5151_5151_5151_5150);
        assert_eq!(mask & 0xffff_ffff, 0x1);
        assert_eq!(xrcd, 0xC0DE);
        // A failed command leaves the plugin's bytes as they were.
        assert_eq!(run(pabi, false), [0x5151_5151_5151_5150, 0x2, 0]);
    }
}

#[test]
fn on_qp_refuses_null() {
    // SAFETY: NULL is refused before any access.
    let r = unsafe { on_qp(std::ptr::null_mut(), &V34_45, |_| Ok(())) };
    assert_eq!(r.err(), Some(Errno::EINVAL));
}
