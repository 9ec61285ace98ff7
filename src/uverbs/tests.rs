use std::io::Read;

use super::channel::{IoctlSupport, Verb};
use super::fallback::{Fallback, check_legacy};
use super::ids::*;
use super::ioctl_hdr::*;
use super::pd::{AllocPdCmd, DeallocPdCmd};
use super::write::*;
use super::*;
use crate::entry::{Errno, Result};

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_ne_bytes(b[o..o + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
}

#[test]
fn ioctl_request_number_and_sizes() {
    // Values from a C program against the kernel headers.
    assert_eq!(sys::RDMA_VERBS_IOCTL, 0xc018_1b01);
    assert_eq!(size_of::<IoctlHdr>(), 24);
    assert_eq!(size_of::<IoctlAttr>(), 16);
    assert_eq!(size_of::<CmdHdr>(), 8);
    assert_eq!(size_of::<ExCmdHdr>(), 16);
    assert_eq!(size_of::<device::ExQueryDeviceResp>(), 304);
    assert_eq!(size_of::<qp::ExModifyQp>(), 120);
    assert_eq!(size_of::<rxe::CreateSrqResp>(), 24);
}

#[test]
fn ioctl_encoding() {
    let big = [7u8; 12];
    let mut out = [0u8; 16];
    let mut c = IoctlCmd::new("test", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
    let h = c.idr_out(UVERBS_ATTR_CREATE_CQ_HANDLE);
    c.u32_in(UVERBS_ATTR_CREATE_CQ_CQE, 0x1234_5678);
    c.const_in(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 0xdead_beef_0000_0001);
    assert!(c.fd_in(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, None).is_none());
    let fd = c.fd_in(UVERBS_ATTR_CREATE_CQ_EVENT_FD, Some(5)).unwrap();
    c.optional(fd);
    c.ptr_in(UVERBS_ATTR_UHW_IN, &big);
    c.enum_in(0x20, 3, &[1, 2]);
    let out_addr = out.as_ptr() as u64;
    c.ptr_out(UVERBS_ATTR_UHW_OUT, &mut out);
    let big_addr = big.as_ptr() as u64;
    let b = c.encode(RDMA_DRIVER_RXE).unwrap();
    let n = 7;
    assert_eq!(b.len(), 24 + 16 * n);
    assert_eq!(u16_at(&b, 0) as usize, 24 + 16 * n); // length
    assert_eq!(u16_at(&b, 2), UVERBS_OBJECT_CQ);
    assert_eq!(u16_at(&b, 4), UVERBS_METHOD_CQ_CREATE);
    assert_eq!(u16_at(&b, 6) as usize, n);
    assert_eq!(u64_at(&b, 8), 0);
    assert_eq!(u32_at(&b, 16), RDMA_DRIVER_RXE);
    let attr = |i: usize| &b[24 + 16 * i..40 + 16 * i];
    // (id, len, flags, elem_id, data)
    let fields = |a: &[u8]| (u16_at(a, 0), u16_at(a, 2), u16_at(a, 4), a[6], u64_at(a, 8));
    let m = UVERBS_ATTR_F_MANDATORY;
    assert_eq!(fields(attr(0)), (UVERBS_ATTR_CREATE_CQ_HANDLE, 0, m, 0, 0));
    assert_eq!(fields(attr(1)).1, 4);
    assert_eq!(
        &attr(1)[8..16],
        &[0x1234_5678u32.to_ne_bytes(), [0; 4]].concat()[..]
    );
    assert_eq!(
        fields(attr(2)),
        (
            UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
            8,
            m,
            0,
            0xdead_beef_0000_0001
        )
    );
    assert_eq!(
        fields(attr(3)),
        (UVERBS_ATTR_CREATE_CQ_EVENT_FD, 0, 0, 0, 5)
    );
    assert_eq!(fields(attr(4)), (UVERBS_ATTR_UHW_IN, 12, m, 0, big_addr));
    // Two bytes travel inline, in the low-addressed bytes of `data`.
    assert_eq!(fields(attr(5)).3, 3);
    assert_eq!(&attr(5)[8..10], &[1, 2]);
    assert_eq!(fields(attr(6)), (UVERBS_ATTR_UHW_OUT, 16, m, 0, out_addr));
    assert_eq!(c.read_idr(h), 0);
}

#[test]
fn ioctl_too_many_attrs_or_too_long_is_einval() {
    let mut c = IoctlCmd::new("test", 0, 0);
    for i in 0..=sys::MAX_ATTRS as u16 {
        c.const_in(i, 0);
    }
    assert_eq!(c.encode(0), Err(Errno::EINVAL));
    let long = vec![0u8; 70_000];
    let mut c = IoctlCmd::new("test", 0, 0);
    c.ptr_in(1, &long);
    assert_eq!(c.encode(0), Err(Errno::EINVAL));
}

#[test]
fn legacy_header_counts_4_byte_words_including_itself() {
    // ALLOC_PD: 8-byte core request + 8 bytes of driver data; 4+4 bytes back.
    let h = legacy_hdr(IB_USER_VERBS_CMD_ALLOC_PD, 16, 8).unwrap();
    assert_eq!(
        (h.command, h.in_words, h.out_words),
        (IB_USER_VERBS_CMD_ALLOC_PD, 6, 2)
    );
    assert_eq!(legacy_hdr(0, 6, 0), Err(Errno::EINVAL));
    assert_eq!(legacy_hdr(0, 8, 2), Err(Errno::EINVAL));
    assert_eq!(legacy_hdr(0, 300_000, 0), Err(Errno::EINVAL));
}

#[test]
fn extended_header_counts_8_byte_words_without_headers() {
    let (h, ex) = ex_hdrs(IB_USER_VERBS_EX_CMD_CREATE_CQ, 32, 16, 16, 8).unwrap();
    assert_eq!(
        h.command,
        IB_USER_VERBS_EX_CMD_CREATE_CQ | IB_USER_VERBS_CMD_FLAG_EXTENDED
    );
    assert_eq!((h.in_words, h.out_words), (4, 2));
    assert_eq!((ex.provider_in_words, ex.provider_out_words), (2, 1));
    assert_eq!(ex_hdrs(0, 32, 4, 16, 0), Err(Errno::EINVAL));
}

#[test]
fn fallback_decisions() {
    let s = IoctlSupport::default();
    assert!(!s.known_unsupported(Verb::CreateCq));
    assert!(!s.record_failure(Verb::CreateCq, Errno::EINVAL));
    assert!(!s.known_unsupported(Verb::CreateCq));
    assert!(s.record_failure(Verb::CreateCq, Errno::EPROTONOSUPPORT));
    assert!(s.known_unsupported(Verb::CreateCq));
    assert!(!s.known_unsupported(Verb::DestroyCq));
    // EOPNOTSUPP is the method's own answer, not a missing method.
    assert!(!s.record_failure(Verb::DestroyCq, Errno::EOPNOTSUPP));
    assert!(s.record_failure(Verb::DestroyCq, Errno(libc::ENOTTY)));
    assert!(s.known_unsupported(Verb::DeregMr));

    let drv = [0u8; 8];
    let mut c = IoctlCmd::new("t", 0, 0);
    c.const_in(1, 0);
    assert_eq!(check_legacy(&c), Ok(Fallback::TryWrite));
    c.fallback_require_ex();
    assert_eq!(check_legacy(&c), Ok(Fallback::TryWriteEx));
    c.begin_driver_attrs();
    c.uhw(&drv, &mut []);
    assert_eq!(check_legacy(&c), Ok(Fallback::TryWriteEx));
    let a = c.const_in(0x1010, 0);
    assert_eq!(check_legacy(&c), Err(Errno::EOPNOTSUPP));
    c.optional(a);
    assert_eq!(check_legacy(&c), Ok(Fallback::TryWriteEx));
    c.fallback_require_ioctl();
    assert_eq!(check_legacy(&c), Err(Errno::EOPNOTSUPP));
}

/// A "device" that is a pipe: ioctl fails with ENOTTY, write() records the bytes.
fn pipe_uverbs() -> (Uverbs, std::io::PipeReader) {
    let (r, w) = std::io::pipe().unwrap();
    let u = Uverbs::from_fd(w.into(), RDMA_DRIVER_RXE);
    assert!(!u.ioctl_write());
    (u, r)
}

fn read_n(r: &mut std::io::PipeReader, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    r.read_exact(&mut v).unwrap();
    v
}

#[test]
#[cfg_attr(miri, ignore)] // ioctl/write on a pipe: foreign calls Miri lacks
fn write_path_bytes() {
    let (u, mut r) = pipe_uverbs();
    let drv = [0xabu8; 8];
    let mut drv_out = [0u8; 8];
    let resp = u
        .write::<AllocPdCmd>(&Default::default(), &drv, &mut drv_out)
        .unwrap();
    assert_eq!(resp.pd_handle, 0);
    let b = read_n(&mut r, 24);
    assert_eq!(u32_at(&b, 0), IB_USER_VERBS_CMD_ALLOC_PD);
    assert_eq!((u16_at(&b, 4), u16_at(&b, 6)), (6, 3));
    assert_ne!(u64_at(&b, 8), 0, "response address filled in");
    assert_eq!(&b[16..], &drv);
}

#[test]
#[cfg_attr(miri, ignore)] // ioctl/write on a pipe: foreign calls Miri lacks
fn destroy_falls_back_to_write_without_ioctl() {
    let (u, mut r) = pipe_uverbs();
    u.dealloc_pd(0x42).unwrap();
    let b = read_n(&mut r, 12);
    assert_eq!(u32_at(&b, 0), IB_USER_VERBS_CMD_DEALLOC_PD);
    assert_eq!((u16_at(&b, 4), u16_at(&b, 6)), (3, 0));
    assert_eq!(u32_at(&b, 8), 0x42);
    // Learned: the next call goes straight to write().
    assert!(u.support.known_unsupported(Verb::DeallocPd));
    u.write::<DeallocPdCmd>(&pd::DeallocPd { pd_handle: 1 }, &[], &mut [])
        .unwrap();
    assert_eq!(read_n(&mut r, 12)[8], 1);
}

#[test]
#[cfg_attr(miri, ignore)] // ioctl/write on a pipe: foreign calls Miri lacks
fn extended_write_bytes() {
    let (u, mut r) = pipe_uverbs();
    let req = cq::ExCreateCq {
        cqe: 16,
        comp_channel: -1,
        ..Default::default()
    };
    let mut drv_out = [0u8; 16];
    u.write_ex::<cq::ExCreateCqCmd>(&req, &[], &mut drv_out)
        .unwrap();
    let b = read_n(&mut r, 8 + 16 + 32);
    assert_eq!(
        u32_at(&b, 0),
        IB_USER_VERBS_CMD_CREATE_CQ | IB_USER_VERBS_CMD_FLAG_EXTENDED
    );
    assert_eq!((u16_at(&b, 4), u16_at(&b, 6)), (4, 2));
    assert_ne!(u64_at(&b, 8), 0);
    assert_eq!((u16_at(&b, 16), u16_at(&b, 18)), (0, 2));
    assert_eq!(u32_at(&b, 24 + 8), 16);
}

#[test]
#[cfg_attr(miri, ignore)] // ioctl/write on a pipe: foreign calls Miri lacks
fn rxe_doorbell_is_an_empty_post_send() {
    let (u, mut r) = pipe_uverbs();
    u.post_send_doorbell(9).unwrap();
    let b = read_n(&mut r, 32);
    assert_eq!(u32_at(&b, 0), IB_USER_VERBS_CMD_POST_SEND);
    assert_eq!((u16_at(&b, 4), u16_at(&b, 6)), (8, 1));
    assert_eq!(u32_at(&b, 16), 9);
    assert_eq!(u32_at(&b, 20), 0);
}

#[test]
#[cfg_attr(miri, ignore)] // ioctl/write on a pipe: foreign calls Miri lacks
fn create_srq_ex_falls_back_to_create_srq_or_xsrq() {
    let (u, mut r) = pipe_uverbs();
    let mut req = srq::CreateXsrq {
        user_handle: 0x77,
        pd_handle: 3,
        max_wr: 16,
        max_sge: 2,
        srq_limit: 1,
        ..Default::default()
    };
    let drv = [0xcdu8; 8];
    // Basic: the legacy CREATE_SRQ (header, 32-byte core, driver data).
    u.create_srq_ex(&req, Some(5), &drv, &mut []).unwrap();
    let b = read_n(&mut r, 8 + 32 + 8);
    assert_eq!(u32_at(&b, 0), IB_USER_VERBS_CMD_CREATE_SRQ);
    assert_eq!(u16_at(&b, 4), 12);
    assert_eq!(
        (u64_at(&b, 16), u32_at(&b, 24), u32_at(&b, 28)),
        (0x77, 3, 16)
    );
    assert_eq!(&b[40..], &drv);
    // XRC: CREATE_XSRQ with its type, XRCD and CQ.
    req.srq_type = 1;
    req.xrcd_handle = 9;
    req.cq_handle = 4;
    u.create_srq_ex(&req, Some(5), &[], &mut []).unwrap();
    let b = read_n(&mut r, 8 + 48);
    assert_eq!(u32_at(&b, 0), IB_USER_VERBS_CMD_CREATE_XSRQ);
    assert_eq!((u32_at(&b, 24), u32_at(&b, 28)), (1, 3));
    assert_eq!((u32_at(&b, 48), u32_at(&b, 52)), (9, 4));
}

#[test]
#[cfg_attr(miri, ignore)] // ioctl/write on a pipe: foreign calls Miri lacks
fn modify_cq_and_flow_destroys_are_extended_writes() {
    let (u, mut r) = pipe_uverbs();
    let req = cq::ExModifyCq {
        cq_handle: 6,
        attr_mask: 1,
        attr: cq::CqModeration {
            cq_count: 8,
            cq_period: 100,
        },
        reserved: 0,
    };
    u.modify_cq(&req, &[]).unwrap();
    let b = read_n(&mut r, 24 + 16);
    assert_eq!(
        u32_at(&b, 0),
        IB_USER_VERBS_EX_CMD_MODIFY_CQ | IB_USER_VERBS_CMD_FLAG_EXTENDED
    );
    assert_eq!((u32_at(&b, 24), u32_at(&b, 28)), (6, 1));
    assert_eq!((u16_at(&b, 32), u16_at(&b, 34)), (8, 100));
    // No ioctl (ENOTTY): the extended DESTROY_FLOW, then DESTROY_RWQ_IND_TBL.
    u.destroy_flow(0x11).unwrap();
    let b = read_n(&mut r, 24 + 8);
    assert_eq!(
        u32_at(&b, 0),
        IB_USER_VERBS_EX_CMD_DESTROY_FLOW | IB_USER_VERBS_CMD_FLAG_EXTENDED
    );
    assert_eq!(u32_at(&b, 28), 0x11);
    u.destroy_rwq_ind_table(0x22).unwrap();
    let b = read_n(&mut r, 24 + 8);
    assert_eq!(
        u32_at(&b, 0),
        IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL | IB_USER_VERBS_CMD_FLAG_EXTENDED
    );
    assert_eq!(u32_at(&b, 28), 0x22);
}

/// Every destroy command on a disassociated device (the kernel answers EIO):
/// EIO with RDMAV_ALLOW_DISASSOC_DESTROY unset, success with an empty
/// response (no events to wait for) with it set. Other errors pass through.
#[test]
#[cfg_attr(miri, ignore)] // a pipe fd: foreign calls Miri lacks
fn destroy_eio_is_success_only_when_disassociate_destroy_is_allowed() {
    use std::sync::atomic::Ordering::SeqCst;
    let flag = &disassoc::verbs_allow_disassociate_destroy;
    let (u, _r) = pipe_uverbs();
    let all = |u: &Uverbs| -> Vec<Result<u32>> {
        vec![
            u.dealloc_pd(1).map(|()| 0),
            u.destroy_ah(1).map(|()| 0),
            u.dereg_mr(1).map(|()| 0),
            u.dealloc_mw(1).map(|()| 0),
            u.close_xrcd(1).map(|()| 0),
            u.destroy_flow(1).map(|()| 0),
            u.destroy_rwq_ind_table(1).map(|()| 0),
            u.destroy_cq(1)
                .map(|r| r.comp_events_reported + r.async_events_reported),
            u.destroy_qp(1),
            u.destroy_srq(1),
        ]
    };
    let was = flag.load(SeqCst);
    sys::FAKE_ERRNO.with(|f| f.set(Some(Errno::EIO)));
    flag.store(false, SeqCst);
    let off = all(&u);
    flag.store(true, SeqCst);
    let on = all(&u);
    sys::FAKE_ERRNO.with(|f| f.set(Some(Errno::EBUSY)));
    let busy = all(&u);
    flag.store(was, SeqCst);
    sys::FAKE_ERRNO.with(|f| f.set(None));
    assert!(off.iter().all(|r| *r == Err(Errno::EIO)), "{off:?}");
    assert!(on.iter().all(|r| *r == Ok(0)), "{on:?}");
    assert!(busy.iter().all(|r| *r == Err(Errno::EBUSY)), "{busy:?}");
}
