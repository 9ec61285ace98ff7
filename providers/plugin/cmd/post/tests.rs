//! Layout facts of rdma-core 44's write() data path (cmd.c) and
//! /usr/include/rdma/ib_user_verbs.h, as test data: `ib_uverbs_send_wr` is
//! 56 bytes (wr_id 0, num_sge 8, opcode 12, send_flags 16, ex 20, the union
//! at 24: rdma remote_addr 24 / rkey 32; atomic remote_addr 24 / compare_add
//! 32 / swap 40 / rkey 48; ud ah 24 / remote_qpn 28 / remote_qkey 32),
//! `ib_uverbs_recv_wr` 16 (wr_id 0, num_sge 8), `ib_uverbs_sge` 16; the
//! records come first, then every SGE; the kernel's bad_wr counts from 1.

use super::*;

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_ne_bytes(b[off..off + 8].try_into().unwrap())
}

fn send_wr(opcode: u32) -> ibv_send_wr {
    // SAFETY: a plain C struct; all-zero is valid.
    let mut w: ibv_send_wr = unsafe { std::mem::zeroed() };
    w.wr_id = 0x1122_3344_5566_7788;
    w.num_sge = 0;
    w.opcode = ibv_wr_opcode(opcode);
    w.send_flags = 0x2;
    w.imm_data = 0xabcd_ef01;
    w
}

#[test]
fn send_record_rdma() {
    let mut w = send_wr(IBV_WR_RDMA_WRITE);
    w.wr.rdma = ibv_send_wr_wr_rdma {
        remote_addr: 0xdead_beef_0000_1000,
        rkey: 0x77,
    };
    let b = send_record(&w, false).unwrap();
    assert_eq!(b.len(), 56);
    assert_eq!(u64_at(&b, 0), 0x1122_3344_5566_7788);
    assert_eq!(u32_at(&b, 8), 0);
    assert_eq!(u32_at(&b, 12), IBV_WR_RDMA_WRITE);
    assert_eq!(u32_at(&b, 16), 2);
    assert_eq!(u32_at(&b, 20), 0xabcd_ef01);
    assert_eq!(u64_at(&b, 24), 0xdead_beef_0000_1000);
    assert_eq!(u32_at(&b, 32), 0x77);
    assert!(b[36..].iter().all(|&x| x == 0));
}

#[test]
fn send_record_atomic_and_send() {
    let mut w = send_wr(IBV_WR_ATOMIC_CMP_AND_SWP);
    w.wr.atomic = ibv_send_wr_wr_atomic {
        remote_addr: 0x1000,
        compare_add: 5,
        swap: 6,
        rkey: 9,
    };
    let b = send_record(&w, false).unwrap();
    assert_eq!(
        (
            u64_at(&b, 24),
            u64_at(&b, 32),
            u64_at(&b, 40),
            u32_at(&b, 48)
        ),
        (0x1000, 5, 6, 9)
    );
    // A send carries no union: rdma-core leaves it out (zero here).
    w.opcode = ibv_wr_opcode(IBV_WR_SEND);
    let b = send_record(&w, false).unwrap();
    assert!(b[24..].iter().all(|&x| x == 0));
}

#[test]
fn send_record_ud() {
    // SAFETY: a plain C struct; all-zero is valid.
    let mut ah: ibv_ah = unsafe { std::mem::zeroed() };
    ah.handle = 42;
    let mut w = send_wr(IBV_WR_SEND);
    w.wr.ud = ibv_send_wr_wr_ud {
        ah: &mut ah,
        remote_qpn: 0x12,
        remote_qkey: 0x1111_1111,
    };
    let b = send_record(&w, true).unwrap();
    assert_eq!(
        (u32_at(&b, 24), u32_at(&b, 28), u32_at(&b, 32)),
        (42, 0x12, 0x1111_1111)
    );
    w.wr.ud.ah = std::ptr::null_mut();
    assert_eq!(send_record(&w, true).err(), Some(Errno::EINVAL));
}

fn recv_list(sges: &mut [Vec<ibv_sge>]) -> Vec<ibv_recv_wr> {
    let mut v: Vec<ibv_recv_wr> = sges
        .iter_mut()
        .enumerate()
        .map(|(i, s)| ibv_recv_wr {
            wr_id: 100 + i as u64,
            next: std::ptr::null_mut(),
            sg_list: s.as_mut_ptr(),
            num_sge: s.len() as c_int,
        })
        .collect();
    for i in 1..v.len() {
        let p: *mut ibv_recv_wr = &mut v[i];
        v[i - 1].next = p;
    }
    v
}

fn sge(n: u32) -> ibv_sge {
    ibv_sge {
        addr: 0x1000 * n as u64,
        length: n,
        lkey: 0x40 + n,
    }
}

#[test]
fn marshal_recv_records_then_sges() {
    let mut s = vec![vec![sge(1)], vec![], vec![sge(2), sge(3)]];
    let mut l = recv_list(&mut s);
    // SAFETY: our list.
    let (b, wrs, sges) = unsafe { marshal(l.as_mut_ptr(), 16, recv_record) }.unwrap();
    assert_eq!((wrs, sges), (3, 3));
    assert_eq!(b.len(), 3 * 16 + 3 * 16);
    assert_eq!((u64_at(&b, 0), u32_at(&b, 8), u32_at(&b, 12)), (100, 1, 0));
    assert_eq!((u64_at(&b, 16), u32_at(&b, 24)), (101, 0));
    assert_eq!((u64_at(&b, 32), u32_at(&b, 40)), (102, 2));
    for (i, n) in [1u32, 2, 3].into_iter().enumerate() {
        let o = 48 + i * 16;
        assert_eq!(
            (u64_at(&b, o), u32_at(&b, o + 8), u32_at(&b, o + 12)),
            (0x1000 * n as u64, n, 0x40 + n)
        );
    }
    // SAFETY: an empty list.
    let (b, wrs, sges) = unsafe { marshal(std::ptr::null_mut(), 16, recv_record) }.unwrap();
    assert_eq!((b.len(), wrs, sges), (0, 0, 0));
}

#[test]
fn marshal_refuses_bad_lists() {
    let mut s = vec![vec![sge(1)], vec![sge(2)]];
    let mut l = recv_list(&mut s);
    l[1].num_sge = -1;
    // SAFETY: our list.
    assert_eq!(
        unsafe { marshal(l.as_mut_ptr(), 16, recv_record) }.err(),
        Some(Errno::EINVAL)
    );
    l[1].num_sge = 1;
    l[1].sg_list = std::ptr::null_mut();
    // SAFETY: as above.
    assert_eq!(
        unsafe { marshal(l.as_mut_ptr(), 16, recv_record) }.err(),
        Some(Errno::EINVAL)
    );
    // A cycle: longer than any command, refused rather than walked forever.
    l[1].sg_list = s[1].as_mut_ptr();
    let head: *mut ibv_recv_wr = &mut l[0];
    l[1].next = head;
    // SAFETY: as above.
    assert_eq!(
        unsafe { marshal(head, 16, recv_record) }.err(),
        Some(Errno::EINVAL)
    );
}

#[test]
fn report_names_the_failed_wr() {
    let mut s = vec![vec![], vec![], vec![]];
    let mut l = recv_list(&mut s);
    let head: *mut ibv_recv_wr = &mut l[0];
    let second: *mut ibv_recv_wr = &mut l[1];
    let mut bad: *mut ibv_recv_wr = std::ptr::null_mut();
    // SAFETY: our list and out pointer, in every call below.
    unsafe {
        assert_eq!(
            report(head, &mut bad, (Err(Errno::ENOMEM), Some(1))),
            Err(Errno::ENOMEM)
        );
        assert_eq!(bad, second);
        // Nothing named, failed: the head.
        bad = std::ptr::null_mut();
        assert!(report(head, &mut bad, (Err(Errno::EINVAL), None)).is_err());
        assert_eq!(bad, head);
        // A hostile index past the list: the head, not a wild pointer.
        bad = std::ptr::null_mut();
        assert!(report(head, &mut bad, (Err(Errno::EINVAL), Some(7))).is_err());
        assert_eq!(bad, head);
        // Success: untouched; a NULL out pointer is never written.
        bad = std::ptr::null_mut();
        assert!(report(head, &mut bad, (Ok(()), None)).is_ok());
        assert!(bad.is_null());
        assert!(report(head, std::ptr::null_mut(), (Err(Errno::EINVAL), Some(0))).is_err());
    }
}

#[test]
fn wc_fields() {
    let k = Wc {
        wr_id: 1,
        status: 2,
        opcode: 3,
        vendor_err: 4,
        byte_len: 5,
        ex: 6,
        qp_num: 7,
        src_qp: 8,
        wc_flags: 9,
        pkey_index: 10,
        slid: 11,
        sl: 12,
        dlid_path_bits: 13,
        port_num: 14,
        reserved: 15,
    };
    let w = to_wc(&k);
    assert_eq!(
        (
            w.wr_id,
            w.status.0,
            w.opcode.0,
            w.vendor_err,
            w.byte_len,
            w.imm_data,
            w.qp_num
        ),
        (1, 2, 3, 4, 5, 6, 7)
    );
    assert_eq!(
        (
            w.src_qp,
            w.wc_flags,
            w.pkey_index,
            w.slid,
            w.sl,
            w.dlid_path_bits
        ),
        (8, 9, 10, 11, 12, 13)
    );
}

#[test]
fn null_objects_are_einval() {
    let mut wc = [0u8; 48];
    // SAFETY: NULL objects are refused before any use.
    unsafe {
        assert_eq!(
            poll_cq(std::ptr::null_mut(), 1, wc.as_mut_ptr().cast()),
            Err(Errno::EINVAL)
        );
        let mut bad = std::ptr::null_mut();
        assert_eq!(
            post_send(std::ptr::null_mut(), std::ptr::null_mut(), &mut bad),
            Err(Errno::EINVAL)
        );
        let mut bad = std::ptr::null_mut();
        assert_eq!(
            post_recv(std::ptr::null_mut(), std::ptr::null_mut(), &mut bad),
            Err(Errno::EINVAL)
        );
        let mut bad = std::ptr::null_mut();
        assert_eq!(
            post_srq_recv(std::ptr::null_mut(), std::ptr::null_mut(), &mut bad),
            Err(Errno::EINVAL)
        );
    }
    assert_eq!(MAX_WC, 5461);
}
