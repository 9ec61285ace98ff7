//! WQE encoding checked byte for byte against offsets taken from the C
//! headers (written out by hand here, independent of the Rust structs).

use super::*;
use crate::providers::rxe::mmap::{Mmap, shared_pair};
use crate::providers::rxe::queue::{ConsumerQueue, ProducerQueue};
use crate::uverbs::rxe::queue_buf;

const SLOT: usize = 512;

/// A slot buffer aligned as ring slots are (a `Vec<u8>` promises alignment
/// 1, and Miri gives exactly that: WQE encoders refuse misaligned slots).
struct Buf(Mmap);

impl Buf {
    fn new(len: usize, fill: u8) -> Buf {
        let mut m = Mmap::heap(len).unwrap();
        m.bytes_mut(0, len).unwrap().fill(fill);
        Buf(m)
    }
}

impl std::ops::Deref for Buf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.bytes(0, self.0.len()).unwrap()
    }
}

impl std::ops::DerefMut for Buf {
    fn deref_mut(&mut self) -> &mut [u8] {
        let n = self.0.len();
        self.0.bytes_mut(0, n).unwrap()
    }
}
const LIM: SendLimits = SendLimits {
    max_sge: 4,
    max_inline: 64,
};

fn p16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_ne_bytes());
}
fn p32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_ne_bytes());
}
fn g32(b: &[u8]) -> u32 {
    u32::from_ne_bytes(b[..4].try_into().unwrap())
}
fn p64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_ne_bytes());
}

const SGES: [Sge; 2] = [
    Sge {
        addr: 0x1000_2000_3000,
        length: 100,
        lkey: 0x11,
    },
    Sge {
        addr: 0x4000,
        length: 28,
        lkey: 0x22,
    },
];

fn req(op: SendOp) -> SendReq<'static> {
    SendReq {
        wr_id: 0xdead_beef_0000_0001,
        op,
        send_flags: 2, // SIGNALED
        payload: Payload::Sge(&SGES),
        ud: None,
        ssn: 7,
    }
}

/// The bytes rdma-core would leave for `req(op)`-shaped requests: the common
/// fields, the dma info and the two SGEs; the caller adds the op's fields.
fn expected(opcode: u32, flags: u32) -> Vec<u8> {
    let mut e = vec![0u8; SLOT];
    p64(&mut e, 0, 0xdead_beef_0000_0001);
    p32(&mut e, 12, opcode);
    p32(&mut e, 16, flags);
    p32(&mut e, 176, 7); // ssn
    p32(&mut e, 184, 128); // dma.length
    p32(&mut e, 188, 128); // dma.resid
    p32(&mut e, 196, 2); // dma.num_sge
    p64(&mut e, 208, 0x1000_2000_3000);
    p32(&mut e, 216, 100);
    p32(&mut e, 220, 0x11);
    p64(&mut e, 224, 0x4000);
    p32(&mut e, 232, 28);
    p32(&mut e, 236, 0x22);
    e
}

fn encode(r: &SendReq<'_>) -> Vec<u8> {
    // Stale header bytes must be cleared; past the payload the slot is left
    // as it was (as rdma-core leaves it), zero here.
    let mut slot = Buf::new(SLOT, 0);
    slot[..SEND_WQE_SIZE].fill(0xaa);
    write_send_wqe(&mut slot, r, &LIM).unwrap();
    slot.to_vec()
}

#[test]
fn send() {
    assert_eq!(encode(&req(SendOp::Send)), expected(2, 2));
}

#[test]
fn send_with_imm_and_inv() {
    let mut e = expected(3, 2);
    p32(&mut e, 20, 0x7856_3412);
    let r = req(SendOp::SendWithImm {
        imm_data: 0x7856_3412,
    });
    assert_eq!(encode(&r), e);
    let mut e = expected(9, 2);
    p32(&mut e, 20, 0xabc);
    let r = req(SendOp::SendWithInv {
        invalidate_rkey: 0xabc,
    });
    assert_eq!(encode(&r), e);
}

#[test]
fn rdma_write_and_read() {
    for (code, op) in [
        (
            0,
            SendOp::RdmaWrite {
                remote_addr: 0x7f00_1234_5678,
                rkey: 0x55,
            },
        ),
        (
            4,
            SendOp::RdmaRead {
                remote_addr: 0x7f00_1234_5678,
                rkey: 0x55,
            },
        ),
        (
            1,
            SendOp::RdmaWriteWithImm {
                remote_addr: 0x7f00_1234_5678,
                rkey: 0x55,
                imm_data: 9,
            },
        ),
    ] {
        let mut e = expected(code, 2);
        p64(&mut e, 24, 0x7f00_1234_5678); // wr.rdma.remote_addr
        p32(&mut e, 32, 0x55); // wr.rdma.rkey
        p64(&mut e, 152, 0x7f00_1234_5678); // iova
        if code == 1 {
            p32(&mut e, 20, 9);
        }
        assert_eq!(encode(&req(op)), e, "opcode {code}");
    }
}

#[test]
fn atomics() {
    let sge = [Sge {
        addr: 0x5000,
        length: 8,
        lkey: 3,
    }];
    let cmp = SendOp::AtomicCmpSwp {
        remote_addr: 0x8000,
        rkey: 0x66,
        compare: 0x1111,
        swap: 0x2222,
    };
    let add = SendOp::AtomicFetchAdd {
        remote_addr: 0x8000,
        rkey: 0x66,
        add: 0x3333,
    };
    for (code, op, ca, swap) in [(5, cmp, 0x1111, 0x2222), (6, add, 0x3333, 0)] {
        let r = SendReq {
            payload: Payload::Sge(&sge),
            ..req(op)
        };
        let mut e = vec![0u8; SLOT];
        p64(&mut e, 0, 0xdead_beef_0000_0001);
        p32(&mut e, 12, code);
        p32(&mut e, 16, 2);
        p64(&mut e, 24, 0x8000); // wr.atomic.remote_addr
        p64(&mut e, 32, ca); // compare_add
        p64(&mut e, 40, swap);
        p32(&mut e, 48, 0x66); // rkey
        p64(&mut e, 152, 0x8000); // iova
        p32(&mut e, 176, 7);
        p32(&mut e, 184, 8);
        p32(&mut e, 188, 8);
        p32(&mut e, 196, 1);
        p64(&mut e, 208, 0x5000);
        p32(&mut e, 216, 8);
        p32(&mut e, 220, 3);
        assert_eq!(encode(&r), e, "opcode {code}");
    }
}

#[test]
fn inline_data() {
    let a = [1u8, 2, 3];
    let b = [9u8; 13];
    let bufs: [&[u8]; 2] = [&a, &b];
    let r = SendReq {
        payload: Payload::Inline(&bufs),
        ..req(SendOp::Send)
    };
    let mut e = vec![0u8; SLOT];
    p64(&mut e, 0, 0xdead_beef_0000_0001);
    p32(&mut e, 12, 2);
    p32(&mut e, 16, 2 | 8); // SIGNALED | INLINE
    p32(&mut e, 176, 7);
    p32(&mut e, 184, 16);
    p32(&mut e, 188, 16);
    p32(&mut e, 196, 2); // num_sge counts the buffers, as rdma-core
    e[208..211].copy_from_slice(&a);
    e[211..224].copy_from_slice(&b);
    assert_eq!(encode(&r), e);
}

fn grh() -> GlobalRoute {
    GlobalRoute {
        dgid: [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 9],
        flow_label: 0x12345,
        sgid_index: 1,
        hop_limit: 64,
        traffic_class: 3,
        pad: 0,
    }
}

#[test]
fn ud_send_with_av() {
    let sgid = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1];
    let av = Av::new(1, grh(), sgid, [2, 0, 0, 0, 0, 9]);
    let r = SendReq {
        ud: Some(UdDest {
            remote_qpn: 0x11,
            remote_qkey: 0x1111_2222,
            ah_num: 0,
            av: Some(&av),
        }),
        ..req(SendOp::Send)
    };
    let mut e = expected(2, 2);
    p32(&mut e, 24, 0x11); // wr.ud.remote_qpn
    p32(&mut e, 28, 0x1111_2222); // remote_qkey
    e[56] = 1; // av.port_num
    e[57] = 2; // network_type IPv6
    e[58..64].copy_from_slice(&[2, 0, 0, 0, 0, 9]);
    e[64..80].copy_from_slice(&grh().dgid);
    p32(&mut e, 80, 0x12345);
    e[84..87].copy_from_slice(&[1, 64, 3]);
    p16(&mut e, 88, 10); // sgid_addr.sin6_family = AF_INET6
    e[96..112].copy_from_slice(&sgid);
    p16(&mut e, 116, 10);
    e[124..140].copy_from_slice(&grh().dgid);
    assert_eq!(encode(&r), e);

    // With an AH number the AV is left out.
    let r = SendReq {
        ud: Some(UdDest {
            ah_num: 5,
            av: Some(&av),
            ..r.ud.unwrap()
        }),
        ..r
    };
    let mut e = expected(2, 2);
    p32(&mut e, 24, 0x11);
    p32(&mut e, 28, 0x1111_2222);
    p32(&mut e, 36, 5);
    assert_eq!(encode(&r), e);
}

#[test]
fn av_ipv4() {
    let mut g = grh();
    g.dgid = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2];
    let sgid = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1];
    let av = Av::new(1, g, sgid, [0; 6]);
    assert_eq!(av.network_type, 1);
    let mut s = [0u8; 28];
    s[4..8].copy_from_slice(&[10, 0, 0, 1]);
    assert_eq!(av.sgid_addr, s);
    s[4..8].copy_from_slice(&[10, 0, 0, 2]);
    assert_eq!(av.dgid_addr, s);
}

#[test]
fn bind_mw() {
    let mw = Mw {
        addr: 0x9000,
        length: 0x100,
        mr_lkey: 1,
        mw_rkey: 2,
        rkey: 3,
        access: 4,
    };
    let r = SendReq {
        payload: Payload::Sge(&[]),
        ..req(SendOp::BindMw(mw))
    };
    let mut e = vec![0u8; SLOT];
    p64(&mut e, 0, 0xdead_beef_0000_0001);
    p32(&mut e, 12, 8);
    p32(&mut e, 16, 2);
    p64(&mut e, 24, 0x9000);
    p64(&mut e, 32, 0x100);
    for (i, v) in [1u32, 2, 3, 4].into_iter().enumerate() {
        p32(&mut e, 40 + 4 * i, v);
    }
    p32(&mut e, 176, 7);
    assert_eq!(encode(&r), e);
}

#[test]
fn recv() {
    let mut slot = Buf::new(128, 0);
    slot[..RECV_WQE_SIZE].fill(0xaa);
    write_recv_wqe(&mut slot, 77, &SGES, 2).unwrap();
    let mut e = vec![0u8; 128];
    p64(&mut e, 0, 77);
    p32(&mut e, 16, 128); // dma.length
    p32(&mut e, 20, 128); // dma.resid
    p32(&mut e, 28, 2); // dma.num_sge
    e[40..56].copy_from_slice(SGES[0].as_bytes());
    e[56..72].copy_from_slice(SGES[1].as_bytes());
    assert_eq!(slot.to_vec(), e);
}

#[test]
fn cqe_decode() {
    let mut b = [0u8; 64];
    p64(&mut b, 0, 0x1234);
    p32(&mut b, 8, 5); // status
    p32(&mut b, 12, 128); // opcode IBV_WC_RECV
    p32(&mut b, 16, 0x99);
    p32(&mut b, 20, 4096);
    p32(&mut b, 24, 0xaabb_ccdd);
    p32(&mut b, 28, 0x12);
    p32(&mut b, 32, 0x34);
    p32(&mut b, 36, 3);
    p16(&mut b, 40, 0xffff);
    p16(&mut b, 42, 0x77);
    b[44..48].copy_from_slice(&[1, 2, 3, 0]);
    let c = read_cqe(&b).unwrap();
    let want = Cqe {
        wr_id: 0x1234,
        status: 5,
        opcode: 128,
        vendor_err: 0x99,
        byte_len: 4096,
        ex: 0xaabb_ccdd,
        qp_num: 0x12,
        src_qp: 0x34,
        wc_flags: 3,
        pkey_index: 0xffff,
        slid: 0x77,
        sl: 1,
        dlid_path_bits: 2,
        port_num: 3,
        reserved: 0,
    };
    assert_eq!(c, want);
    assert_eq!(read_cqe(&b[..47]), Err(Errno::EINVAL));
}

#[test]
fn oversize_and_bad_requests_are_refused() {
    let fails = |r: &SendReq<'_>, lim: &SendLimits, slot_len: usize| {
        let mut slot = Buf::new(slot_len, 0xaa);
        let e = write_send_wqe(&mut slot, r, lim).unwrap_err();
        assert!(slot.iter().all(|&b| b == 0xaa), "slot untouched on error");
        e
    };
    let five = [SGES[0]; 5];
    let many = SendReq {
        payload: Payload::Sge(&five),
        ..req(SendOp::Send)
    };
    assert_eq!(fails(&many, &LIM, SLOT), Errno::EINVAL, "max_sge");
    let roomy = SendLimits {
        max_sge: 64,
        max_inline: 4096,
    };
    // 208 + 5 * 16 = 288 bytes do not fit a 256-byte slot.
    assert_eq!(fails(&many, &roomy, 256), Errno::EINVAL, "slot size");
    assert_eq!(fails(&req(SendOp::Send), &LIM, 100), Errno::EINVAL);

    let big = [0u8; 65];
    let bufs: [&[u8]; 1] = [&big];
    let inl = SendReq {
        payload: Payload::Inline(&bufs),
        ..req(SendOp::Send)
    };
    assert_eq!(fails(&inl, &LIM, SLOT), Errno::EINVAL, "max_inline");
    assert_eq!(fails(&inl, &roomy, 256), Errno::EINVAL, "inline > slot");
    let mut ok = Buf::new(208 + 65, 0);
    write_send_wqe(&mut ok, &inl, &roomy).unwrap();

    let flagged = SendReq {
        send_flags: SEND_INLINE,
        ..req(SendOp::Send)
    };
    assert_eq!(
        fails(&flagged, &LIM, SLOT),
        Errno::EINVAL,
        "INLINE with SGEs"
    );

    let four = [Sge {
        addr: 0x5000,
        length: 4,
        lkey: 1,
    }];
    let atomic = |remote_addr, payload| SendReq {
        payload,
        ..req(SendOp::AtomicFetchAdd {
            remote_addr,
            rkey: 1,
            add: 1,
        })
    };
    let short = atomic(0x8000, Payload::Sge(&four));
    assert_eq!(fails(&short, &LIM, SLOT), Errno::EINVAL, "atomic < 8 bytes");
    let unaligned = atomic(0x8004, Payload::Sge(&SGES));
    assert_eq!(fails(&unaligned, &LIM, SLOT), Errno::EINVAL, "atomic align");

    let bind = req(SendOp::BindMw(Mw::default()));
    assert_eq!(fails(&bind, &LIM, SLOT), Errno::EINVAL, "bind with data");

    let ud = UdDest {
        remote_qpn: 1,
        remote_qkey: 1,
        ah_num: 0,
        av: None,
    };
    let no_av = SendReq {
        ud: Some(ud),
        ..req(SendOp::Send)
    };
    assert_eq!(
        fails(&no_av, &LIM, SLOT),
        Errno::EINVAL,
        "old kernel, no AV"
    );
    let ud_write = SendReq {
        ud: Some(UdDest { ah_num: 1, ..ud }),
        ..req(SendOp::RdmaWrite {
            remote_addr: 0,
            rkey: 0,
        })
    };
    assert_eq!(fails(&ud_write, &LIM, SLOT), Errno::EINVAL, "UD RDMA");

    let huge = [Sge {
        addr: 0,
        length: u32::MAX,
        lkey: 0,
    }; 2];
    let wrap = SendReq {
        payload: Payload::Sge(&huge),
        ..req(SendOp::Send)
    };
    assert_eq!(fails(&wrap, &LIM, SLOT), Errno::EINVAL, "length overflow");

    let mut slot = [0xaau8; 64];
    assert_eq!(write_recv_wqe(&mut slot, 1, &SGES, 1), Err(Errno::EINVAL));
    assert_eq!(write_recv_wqe(&mut slot, 1, &five, 8), Err(Errno::EINVAL));
    assert!(slot.iter().all(|&b| b == 0xaa));
}

/// Posting through a ring and polling a completion, end to end.
#[test]
fn post_and_poll_through_rings() {
    let len = queue_buf::DATA + 4 * 256;
    let (user, mut kern) = shared_pair(len).unwrap();
    kern.bytes_mut(0, 8)
        .unwrap()
        .copy_from_slice(&[8, 0, 0, 0, 3, 0, 0, 0]);
    let mut sq = ProducerQueue::new(user, SEND_WQE_SIZE).unwrap();
    sq.push_with(|slot| write_send_wqe(slot, &req(SendOp::Send), &LIM))
        .unwrap();
    assert_eq!(
        kern.bytes(queue_buf::PRODUCER_INDEX, 4).unwrap(),
        &[1, 0, 0, 0]
    );
    let wqe = SendWqe::from_prefix(kern.bytes(queue_buf::DATA, 256).unwrap());
    assert_eq!(
        (wqe.wr.wr_id, wqe.wr.opcode, wqe.dma.num_sge),
        (0xdead_beef_0000_0001, 2, 2)
    );
    assert_eq!(
        kern.bytes(queue_buf::DATA, 256).unwrap(),
        &expected(2, 2)[..256]
    );

    let (user, mut kern) = shared_pair(queue_buf::DATA + 4 * 64).unwrap();
    kern.bytes_mut(0, 8)
        .unwrap()
        .copy_from_slice(&[6, 0, 0, 0, 3, 0, 0, 0]);
    let mut cq = ConsumerQueue::new(user, CQE_SIZE).unwrap();
    let cqe = Cqe {
        wr_id: 42,
        byte_len: 128,
        ..Cqe::default()
    };
    kern.bytes_mut(queue_buf::DATA, CQE_SIZE)
        .unwrap()
        .copy_from_slice(cqe.as_bytes());
    kern.bytes_mut(queue_buf::PRODUCER_INDEX, 4).unwrap()[0] = 1;
    assert_eq!(cq.pop_with(read_cqe), Some(Ok(cqe)));
    assert_eq!(cq.pop_with(read_cqe), None);
    assert_eq!(
        kern.bytes(queue_buf::CONSUMER_INDEX, 4).unwrap(),
        &[1, 0, 0, 0]
    );
}

/// Not a test: a loop for counting instructions with callgrind
/// (`valgrind --tool=callgrind <test binary> --ignored encode_loop`).
#[test]
#[ignore]
fn encode_loop() {
    let mut slot = Buf::new(SLOT, 0);
    let r = SendReq {
        payload: Payload::Sge(&SGES[..1]),
        ..req(SendOp::RdmaWrite {
            remote_addr: 0x1000,
            rkey: 5,
        })
    };
    for _ in 0..1000 {
        write_send_wqe(
            std::hint::black_box(&mut slot),
            std::hint::black_box(&r),
            &LIM,
        )
        .unwrap();
    }
}

/// rdma-core 64's ibv_wr_flush and ibv_wr_atomic_write WQEs (offsets of
/// `struct rxe_send_wqe` in rdma-core 64's rdma_user_rxe.h).
#[test]
fn flush_and_atomic_write() {
    let op = |opcode| SendOp::Other {
        opcode,
        ex: 0,
        remote_addr: 0x7f00_1234_5000,
        rkey: 0x66,
    };
    let mut slot = Buf::new(SLOT, 0xaa);
    write_send_header(&mut slot, 0x42, &op(14), 2, 3).unwrap();
    let f = Flush {
        remote_addr: 0x7f00_1234_5000,
        length: 4096,
        rkey: 0x66,
        type_: 1,
        level: 0,
        pad: [0; 6],
    };
    set_flush(&mut slot, &f).unwrap();
    let mut e = vec![0u8; SLOT];
    e[SEND_WQE_SIZE..].fill(0xaa);
    p64(&mut e, 0, 0x42);
    p32(&mut e, 12, 14); // IBV_WR_FLUSH
    p32(&mut e, 16, 2);
    p64(&mut e, 24, 0x7f00_1234_5000); // wr.flush.remote_addr
    p32(&mut e, 32, 4096); // wr.flush.length
    p32(&mut e, 36, 0x66); // wr.flush.rkey
    e[40] = 1; // wr.flush.type
    e[41] = 0; // wr.flush.level
    p64(&mut e, 152, 0x7f00_1234_5000); // iova
    p32(&mut e, 176, 3); // ssn
    p32(&mut e, 184, 4096); // dma.length
    p32(&mut e, 188, 4096); // dma.resid
    assert_eq!(&slot[..], &e[..]);

    let mut slot = Buf::new(SLOT, 0xaa);
    write_send_header(&mut slot, 0x43, &op(15), 2, 4).unwrap();
    set_atomic_write(&mut slot, &0x1122_3344_5566_7788u64.to_ne_bytes()).unwrap();
    let mut e = vec![0u8; SLOT];
    e[SEND_WQE_SIZE..].fill(0xaa);
    p64(&mut e, 0, 0x43);
    p32(&mut e, 12, 15); // IBV_WR_ATOMIC_WRITE
    p32(&mut e, 16, 2);
    p64(&mut e, 24, 0x7f00_1234_5000); // wr.rdma.remote_addr
    p32(&mut e, 32, 0x66); // wr.rdma.rkey
    p64(&mut e, 152, 0x7f00_1234_5000); // iova
    p32(&mut e, 176, 4); // ssn
    p32(&mut e, 184, 8); // dma.length
    p32(&mut e, 188, 8); // dma.resid
    p64(&mut e, SEND_WQE_SIZE, 0x1122_3344_5566_7788); // dma.atomic_wr
    assert_eq!(&slot[..], &e[..]);
}

/// rdma-core fixes between 44 and 64 in the ibv_wr_* setters (406cd2ad0:
/// wr_set_sge_list summed the first SGE N times; 1e8ed0aff:
/// wr_set_inline_data_list never added up the buffers, so neither the bound
/// nor dma.length held): the DMA length is the sum, and the inline bound is
/// on the total.
#[test]
fn setters_sum_every_entry() {
    let mut slot = Buf::new(SLOT, 0);
    write_send_header(&mut slot, 1, &SendOp::Send, 0, 0).unwrap();
    set_send_sges(&mut slot, &SGES, 4).unwrap();
    assert_eq!(g32(&slot[184..]), 128, "dma.length = 100 + 28");
    assert_eq!(g32(&slot[188..]), 128, "dma.resid");
    assert_eq!(g32(&slot[196..]), 2, "dma.num_sge");

    let (a, b) = ([1u8; 40], [2u8; 20]);
    let mut slot = Buf::new(SLOT, 0);
    write_send_header(&mut slot, 1, &SendOp::Send, 0, 0).unwrap();
    set_send_inline(&mut slot, [&a[..], &b[..]].into_iter(), 64).unwrap();
    assert_eq!(g32(&slot[184..]), 60, "dma.length = 40 + 20");
    assert_eq!(&slot[SEND_WQE_SIZE..SEND_WQE_SIZE + 40], &a[..]);
    assert_eq!(&slot[SEND_WQE_SIZE + 40..SEND_WQE_SIZE + 60], &b[..]);
    // Each buffer fits max_inline (64), their total does not.
    let c = [3u8; 40];
    let mut slot = Buf::new(SLOT, 0);
    write_send_header(&mut slot, 1, &SendOp::Send, 0, 0).unwrap();
    assert_eq!(
        set_send_inline(&mut slot, [&a[..], &c[..]].into_iter(), 64),
        Err(Errno(libc::ENOSPC))
    );
    assert!(
        slot[SEND_WQE_SIZE + 64..].iter().all(|&x| x == 0),
        "nothing past max_inline"
    );
}

/// A payload for both encoders: the general one's, and the fast one's pair.
type Case<'a> = (Payload<'a>, &'a [Sge], Option<&'a [&'a [u8]]>);

/// `write_send_fast` (the common `ibv_post_send` case) writes the very bytes
/// `write_send_wqe` writes, and refuses what it refuses; both start from
/// the same dirty slot, so a field one leaves unwritten shows.
#[test]
fn fast_encoder_matches_the_general_one() {
    let data = [7u8; 80];
    let one: [&[u8]; 1] = [&data[..8]];
    let three: [&[u8]; 3] = [&data[..10], &[], &data[..30]];
    let big: [&[u8]; 1] = [&data[..65]];
    let inl: [&[&[u8]]; 3] = [&one, &three, &big];
    let ops = [
        (opcode::SEND, SendOp::Send),
        (
            opcode::SEND_WITH_IMM,
            SendOp::SendWithImm {
                imm_data: 0x1234_5678,
            },
        ),
        (
            opcode::RDMA_WRITE,
            SendOp::RdmaWrite {
                remote_addr: 0xdead_beef_0000,
                rkey: 0x77,
            },
        ),
        (
            opcode::RDMA_WRITE_WITH_IMM,
            SendOp::RdmaWriteWithImm {
                remote_addr: 0x10,
                rkey: 0x78,
                imm_data: 0x99,
            },
        ),
        (
            opcode::RDMA_READ,
            SendOp::RdmaRead {
                remote_addr: 0x20,
                rkey: 0x79,
            },
        ),
    ];
    let overflow = [
        Sge {
            addr: 1,
            length: u32::MAX,
            lkey: 1,
        },
        Sge {
            addr: 2,
            length: 1,
            lkey: 2,
        },
    ];
    let many = [SGES[0]; 5];
    let lists: [&[Sge]; 5] = [&[], &SGES[..1], &SGES, &overflow, &many];
    let mut checked = 0;
    for (code, op) in ops {
        for flags in [0, 2, SEND_INLINE, SEND_INLINE | 2] {
            for slot_len in [SLOT, 208 + 16, 200] {
                let mut cases: Vec<Case<'_>> = Vec::new();
                for l in lists {
                    cases.push((Payload::Sge(l), l, None));
                }
                for b in inl {
                    cases.push((Payload::Inline(b), &[], Some(b)));
                }
                for (payload, sges, bufs) in cases {
                    let (imm, rdma) = match op {
                        SendOp::SendWithImm { imm_data } => (imm_data, (0xaa, 0xbb)),
                        SendOp::RdmaWriteWithImm {
                            remote_addr,
                            rkey,
                            imm_data,
                        } => (imm_data, (remote_addr, rkey)),
                        SendOp::RdmaWrite { remote_addr, rkey }
                        | SendOp::RdmaRead { remote_addr, rkey } => (0x55, (remote_addr, rkey)),
                        _ => (0x66, (0xcc, 0xdd)),
                    };
                    let r = SendReq {
                        send_flags: flags,
                        payload,
                        ssn: 9,
                        ..req(op)
                    };
                    let mut a = Buf::new(slot_len, 0xa5);
                    let mut b = Buf::new(slot_len, 0xa5);
                    let ra = write_send_wqe(&mut a, &r, &LIM);
                    let f = FastWr {
                        wr_id: r.wr_id,
                        opcode: code,
                        flags,
                        imm_data: imm,
                        remote_addr: rdma.0,
                        rkey: rdma.1,
                        ssn: 9,
                    };
                    let rb = write_send_fast(&mut b, f, sges, bufs, &LIM);
                    assert_eq!(
                        ra.is_ok(),
                        rb.is_ok(),
                        "{op:?} flags {flags} len {slot_len}"
                    );
                    if ra.is_ok() {
                        assert_eq!(&a[..], &b[..], "{op:?} flags {flags} len {slot_len}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 40, "{checked}");
}

/// `copy_bytes` (the inline copy without a memcpy call for 8 to 64 bytes)
/// copies exactly the bytes `copy_from_slice` does, at every length around
/// its cases, leaving the bytes beyond untouched.
#[test]
fn copy_bytes_is_copy_from_slice() {
    let src: Vec<u8> = (1..=80).collect();
    for n in 0..=80 {
        let mut a = [0xeeu8; 96];
        let mut b = [0xeeu8; 96];
        copy_bytes(&mut a[3..3 + n], &src[..n]);
        b[3..3 + n].copy_from_slice(&src[..n]);
        assert_eq!(a, b, "length {n}");
    }
}
