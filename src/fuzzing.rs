//! The entry points of the fuzz targets (`fuzz/`): one function per target,
//! each taking the fuzzer's bytes. Not an API: hidden from the docs, and the
//! only door the fuzz crate has into the library's internals, which stay
//! private.
//!
//! The targets drive the code that reads data we do not control (netlink
//! replies, sysfs files, uverbs responses, completion rings the kernel
//! writes), the WQE encoders with arbitrary work requests, and the command
//! layer with arbitrary attribute structs. Rings are heap blocks
//! ([`Mmap::heap`]) so that ASan sees their bounds. Besides "no panic, no
//! crash", each target checks what must hold (e.g. a WQE reads back as
//! written).
#![allow(unsafe_code)]

use crate::abi::*;
use crate::providers::rxe::mmap::Mmap;
use crate::providers::rxe::queue::{ConsumerQueue, ProducerQueue};
use crate::providers::rxe::wqe::{self, *};
use crate::uverbs::Pod;
use crate::uverbs::rxe::queue_buf;

/// The fuzzer's bytes, read front to back; zeros once they run out.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        let b = self.bytes(N);
        a[..b.len()].copy_from_slice(b);
        a
    }
    fn u8(&mut self) -> u8 {
        self.array::<1>()[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.array())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.array())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// A length-prefixed (one byte) chunk.
    fn chunk(&mut self) -> &'a [u8] {
        let n = self.u8() as usize;
        self.bytes(n)
    }
    /// A plain C struct from the next `size_of::<T>()` bytes (zero-padded).
    fn c<T: CPlain>(&mut self) -> T {
        let b = self.bytes(size_of::<T>());
        // SAFETY: `CPlain` types are integers, pointers and `c_enum!`
        // newtypes, for which every bit pattern (all zeros too) is valid;
        // `b` is at most `size_of::<T>()` bytes.
        unsafe {
            let mut v: T = std::mem::zeroed();
            std::ptr::copy_nonoverlapping(b.as_ptr(), (&raw mut v).cast::<u8>(), b.len());
            v
        }
    }
}

/// C structs of integers, raw pointers and `c_enum!` newtypes only: any
/// bytes are a valid value. (The targets null the pointers before use.)
trait CPlain: Copy {}
impl CPlain for ibv_ah_attr {}
impl CPlain for ibv_qp_init_attr_ex {}
impl CPlain for ibv_cq_init_attr_ex {}
impl CPlain for ibv_qp_attr {}

/// Netlink: the device dump, char-device, copy-on-fork, route, link,
/// neighbour and address replies (see `netlink::fuzz`).
pub fn netlink_replies(data: &[u8]) {
    crate::netlink::fuzz::replies(data);
}

/// sysfs: the file parsers on arbitrary text, and device discovery over a
/// small tree whose files hold the input's fields.
pub fn sysfs_files(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let s = text.as_ref();
    let _ = crate::sysfs::parse_cdev(s);
    let _ = crate::sysfs::parse_guid(s);
    let _ = crate::sysfs::parse_leading_u64(s);
    let _ = crate::context::generic::gid::parse_sysfs_gid(s);
    let _ = crate::context::generic::pkey::parse_hex_u16(data);
    if let Some(g) = crate::sysfs::parse_guid(s) {
        // What parses prints back as it was read (modulo case and padding).
        let back = format!(
            "{:04x}:{:04x}:{:04x}:{:04x}",
            g >> 48,
            (g >> 32) & 0xffff,
            (g >> 16) & 0xffff,
            g & 0xffff
        );
        assert_eq!(crate::sysfs::parse_guid(&back), Some(g));
    }
    sysfs_tree(data);
}

/// One device's files under a per-process scratch root (made once, left
/// for the next run), discovered with `find_devices_in`: fields are
/// separated by 0xff bytes.
fn sysfs_tree(data: &[u8]) {
    use std::fs;
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let root = ROOT.get_or_init(|| {
        std::env::temp_dir().join(format!("ibverbs-fuzz-sysfs-{}", std::process::id()))
    });
    let mut f = data.split(|&b| b == 0xff);
    let mut next = || f.next().unwrap_or_default();
    let uv = root.join("class/infiniband_verbs/uverbs0");
    // The device directory's name is ours; `ibdev` (the input) may name
    // anything, which discovery only reads below.
    let ib = root.join("class/infiniband/dev0");
    let cdev = root.join("cdev");
    if !cdev.join("uverbs0").exists() {
        let ok = fs::create_dir_all(&uv).is_ok()
            && fs::create_dir_all(&ib).is_ok()
            && fs::create_dir_all(&cdev).is_ok()
            && fs::write(cdev.join("uverbs0"), b"").is_ok();
        if !ok {
            return;
        }
    }
    let files: [(&std::path::Path, &str); 8] = [
        (&uv, "ibdev"),
        (&uv, "dev"),
        (&uv, "abi_version"),
        (&ib, "node_type"),
        (&ib, "node_guid"),
        (&ib, "sys_image_guid"),
        (&ib, "fw_ver"),
        (root, "class/infiniband_verbs/abi_version"),
    ];
    for (dir, name) in files {
        let _ = fs::write(dir.join(name), next());
    }
    let _ = crate::sysfs::abi_version(root);
    if let Ok(devs) = crate::sysfs::find_devices_in(root, &cdev) {
        assert!(devs.len() <= 1);
    }
}

/// uverbs responses: what the kernel writes back for QUERY_DEVICE(_EX),
/// QUERY_PORT, a GID table entry, an async event, and the rxe create
/// responses whose mmap info and ring header we then trust to map a queue.
pub fn uverbs_responses(data: &[u8]) {
    use crate::context::generic::{device, gid, port};
    use crate::uverbs::device::{AsyncEventDesc, ExQueryDeviceResp, QueryPortRespEx};
    let mut inp = Input(data);
    let r = ExQueryDeviceResp::from_prefix(inp.bytes(size_of::<ExQueryDeviceResp>()));
    let sizes = [
        size_of::<ibv_device_attr>(),
        size_of::<ibv_device_attr_ex>(),
        inp.u16() as usize,
    ];
    for size in sizes {
        let mut a = device::zeroed_attr_ex();
        device::fill_base(&mut a.orig_attr, &r.base);
        device::fill_ex(&mut a, size.min(size_of::<ibv_device_attr_ex>()), &r, || 0);
    }
    let _ = device::fw_ver_triplet(r.base.fw_ver).as_str().len();
    let p = QueryPortRespEx::from_prefix(inp.bytes(size_of::<QueryPortRespEx>()));
    // SAFETY: plain C data; all-zero is valid.
    let mut pa: ibv_port_attr = unsafe { std::mem::zeroed() };
    port::fill(&mut pa, &p);
    let e = gid::entry_from_bytes(&inp.array());
    let _ = gid::entry_bytes(&e);
    let ev = AsyncEventDesc::from_prefix(inp.bytes(size_of::<AsyncEventDesc>()));
    let _ = crate::context::generic::async_event::element_of(ibv_event_type(ev.event_type));
    // A ring as a create response describes it: its size, then its header.
    let size = (inp.u32() as usize) % (1 << 16);
    let min_elem = [CQE_SIZE, SEND_WQE_SIZE, RECV_WQE_SIZE][inp.u8() as usize % 3];
    if let Ok(mut m) = Mmap::heap(size) {
        let hdr = inp.bytes(queue_buf::DATA.min(size));
        if let Some(b) = m.bytes_mut(0, hdr.len()) {
            b.copy_from_slice(hdr);
        }
        let k = m.alias().expect("heap");
        if let Ok(q) = ConsumerQueue::new(m, min_elem) {
            assert!(queue_buf::DATA + q.num_slots() as usize * q.elem_size() <= size);
            assert!(q.elem_size() >= min_elem && q.num_slots().is_power_of_two());
        } else if let Ok(q) = ProducerQueue::new(k, min_elem) {
            panic!("producer accepted what the consumer refused: {q:?}");
        }
    }
}

/// A completion ring the kernel writes: arbitrary geometry, indices and
/// CQEs; then a sequence of polls, with the kernel moving its index and
/// rewriting the header in between.
pub fn cq_ring(data: &[u8]) {
    let mut inp = Input(data);
    let Some((mut q, mut k)) = ring(&mut inp, CQE_SIZE, ConsumerQueue::new) else {
        return;
    };
    while !inp.is_empty() {
        match inp.u8() % 6 {
            0 => {
                let max = inp.u8().into();
                let len = q.len();
                let mut seen = 0;
                let n = q.drain(max, |run| {
                    for (i, slot) in run.slots() {
                        assert_eq!(i, seen);
                        seen += 1;
                        let c = read_cqe(slot).expect("slot holds a CQE");
                        let _ = (c.wr_id, c.status, c.byte_len);
                    }
                });
                assert_eq!((n, seen), (len.min(max), n));
            }
            1 => {
                let i = inp.u32();
                if let Some(s) = q.slot(i) {
                    assert_eq!(s.len(), q.elem_size());
                    let _ = read_cqe(s);
                }
            }
            2 => {
                let i = inp.u32();
                let len = q.len();
                if q.publish_consumer(i).is_ok() {
                    assert!(q.len() <= len);
                }
            }
            3 => kernel_word(&mut k, queue_buf::PRODUCER_INDEX, inp.u32()),
            4 => {
                // A hostile kernel rewrites the geometry after the fact.
                kernel_word(&mut k, 0, inp.u32());
                kernel_word(&mut k, 4, inp.u32());
            }
            _ => {
                let _ = q.is_empty();
                assert!(q.next_index(inp.u32()) < q.num_slots());
                // SAFETY: the words lead into `q`'s block, still allocated.
                let _ = unsafe { q.index_words().is_empty() };
            }
        }
        assert!(q.len() < q.num_slots());
    }
}

fn kernel_word(k: &mut Mmap, off: usize, v: u32) {
    if let Some(b) = k.bytes_mut(off, 4) {
        b.copy_from_slice(&v.to_ne_bytes());
    }
}

/// A heap ring with the input's geometry and contents, and the stand-in
/// kernel's view of it.
fn ring<Q>(
    inp: &mut Input<'_>,
    min_elem: usize,
    new: impl FnOnce(Mmap, usize) -> crate::entry::Result<Q>,
) -> Option<(Q, Mmap)> {
    let log2 = u32::from(inp.u8() % 13);
    let slots = 1u32 << (inp.u8() % 7);
    let mut hdr = [0u8; 16];
    hdr[..4].copy_from_slice(&log2.to_ne_bytes());
    hdr[4..8].copy_from_slice(&(slots - 1).to_ne_bytes());
    // Now and then a header that does not match the block.
    let slack = match inp.u8() % 8 {
        0 => inp.u16() as isize - 0x8000,
        _ => 0,
    };
    let size = (queue_buf::DATA as isize + ((slots as isize) << log2) + slack).max(1);
    let mut m = Mmap::heap(size as usize).ok()?;
    let k = m.alias()?;
    m.bytes_mut(0, 8)?.copy_from_slice(&hdr[..8]);
    let words = [queue_buf::PRODUCER_INDEX, queue_buf::CONSUMER_INDEX];
    for off in words {
        let v = inp.u32();
        if let Some(b) = m.bytes_mut(off, 4) {
            b.copy_from_slice(&v.to_ne_bytes());
        }
    }
    let fill = inp.chunk();
    let data_len = (size as usize).saturating_sub(queue_buf::DATA);
    if let Some(b) = m.bytes_mut(queue_buf::DATA, fill.len().min(data_len)) {
        b.copy_from_slice(&fill[..b.len()]);
    }
    Some((new(m, min_elem).ok()?, k))
}

/// The encoders: arbitrary send work requests (every opcode, flags, SGE
/// lists, inline data, UD destinations), `ibv_wr_*` builder and setter
/// sequences, and receive requests, into a send or receive ring whose
/// consumer index the kernel moves at will. Each WQE that is accepted reads
/// back as it was asked for.
pub fn encoders(data: &[u8]) {
    let mut inp = Input(data);
    let recv = inp.u8() & 1 == 1;
    let min = if recv { RECV_WQE_SIZE } else { SEND_WQE_SIZE };
    let Some((mut q, mut k)) = ring(&mut inp, min, ProducerQueue::new) else {
        return;
    };
    let lim = SendLimits {
        max_sge: inp.u8().into(),
        max_inline: inp.u16().into(),
    };
    let mut ssn = 0u32;
    while !inp.is_empty() {
        match inp.u8() % 5 {
            0 if !recv => {
                let sges = sge_list(&mut inp);
                let bufs: Vec<&[u8]> = (0..inp.u8() % 4).map(|_| inp.chunk()).collect();
                let av = Av::from_prefix(inp.bytes(size_of::<Av>()));
                let req = SendReq {
                    wr_id: inp.u64(),
                    op: send_op(&mut inp),
                    send_flags: inp.u32(),
                    payload: if inp.u8() & 1 == 0 {
                        Payload::Sge(&sges)
                    } else {
                        Payload::Inline(&bufs)
                    },
                    ud: ud_dest(&mut inp, &av),
                    ssn,
                };
                ssn = ssn.wrapping_add(1);
                let mut wrote = None;
                let r = q.push_with(|slot| {
                    write_send_wqe(slot, &req, &lim)?;
                    wrote = Some(SendWqe::from_prefix(slot));
                    Ok(())
                });
                if r.is_ok() {
                    let w = wrote.expect("written");
                    assert_eq!((w.wr.wr_id, w.ssn), (req.wr_id, req.ssn));
                    let (n, len) = match req.payload {
                        Payload::Sge(s) => (s.len(), s.iter().map(|s| u64::from(s.length)).sum()),
                        Payload::Inline(b) => (b.len(), b.iter().map(|b| b.len() as u64).sum()),
                    };
                    assert_eq!((w.dma.num_sge as usize, u64::from(w.dma.length)), (n, len));
                    assert!(n <= lim.max_sge as usize);
                }
            }
            1 if !recv => {
                // ibv_wr_start .. ibv_wr_complete: a builder, then setters.
                let i = q.producer_index();
                let Ok(slot) = q.slot_mut(i) else { continue };
                let (wr_id, op) = (inp.u64(), send_op(&mut inp));
                if write_send_header(slot, wr_id, &op, inp.u32(), ssn).is_err() {
                    continue;
                }
                let av = Av::from_prefix(inp.bytes(size_of::<Av>()));
                for _ in 0..inp.u8() % 4 {
                    let _ = match inp.u8() % 4 {
                        0 => set_send_sges(slot, &sge_list(&mut inp), lim.max_sge),
                        1 => {
                            let bufs: Vec<&[u8]> = (0..inp.u8() % 4).map(|_| inp.chunk()).collect();
                            set_send_inline(slot, bufs.into_iter(), lim.max_inline)
                        }
                        2 => set_atomic_write(slot, inp.chunk()),
                        _ => match ud_dest(&mut inp, &av) {
                            Some(ud) => set_send_ud(slot, &ud),
                            None => Ok(()),
                        },
                    };
                }
                assert_eq!(SendWqe::from_prefix(slot).wr.wr_id, wr_id);
                let next = q.next_index(i);
                if inp.u8() & 1 == 0 {
                    let _ = q.publish_producer(next);
                }
            }
            2 if recv => {
                let (wr_id, sges) = (inp.u64(), sge_list(&mut inp));
                let mut wrote = None;
                let r = q.push_with(|slot| {
                    write_recv_wqe(slot, wr_id, &sges, lim.max_sge)?;
                    wrote = Some(RecvWqe::from_prefix(slot));
                    Ok(())
                });
                if r.is_ok() {
                    let w = wrote.expect("written");
                    assert_eq!((w.wr_id, w.dma.num_sge as usize), (wr_id, sges.len()));
                }
            }
            3 => kernel_word(&mut k, queue_buf::CONSUMER_INDEX, inp.u32()),
            _ => {
                let mut b = q.batch();
                for _ in 0..inp.u8() % 8 {
                    if b.full() {
                        break;
                    }
                    let v = inp.u64();
                    let _ = b.push_with(|s| {
                        s[..8].copy_from_slice(&v.to_ne_bytes());
                        Ok(())
                    });
                }
            }
        }
        assert!(q.len() < q.num_slots());
    }
}

fn sge_list(inp: &mut Input<'_>) -> Vec<Sge> {
    (0..inp.u8() % 40)
        .map(|_| Sge::from_prefix(inp.bytes(size_of::<Sge>())))
        .collect()
}

fn send_op(inp: &mut Input<'_>) -> SendOp {
    let (addr, rkey, x, y) = (inp.u64(), inp.u32(), inp.u64(), inp.u64());
    match inp.u8() % 11 {
        0 => SendOp::Send,
        1 => SendOp::SendWithImm { imm_data: rkey },
        2 => SendOp::SendWithInv {
            invalidate_rkey: rkey,
        },
        3 => SendOp::RdmaWrite {
            remote_addr: addr,
            rkey,
        },
        4 => SendOp::RdmaWriteWithImm {
            remote_addr: addr,
            rkey,
            imm_data: x as u32,
        },
        5 => SendOp::RdmaRead {
            remote_addr: addr,
            rkey,
        },
        6 => SendOp::AtomicCmpSwp {
            remote_addr: addr,
            rkey,
            compare: x,
            swap: y,
        },
        7 => SendOp::AtomicFetchAdd {
            remote_addr: addr,
            rkey,
            add: x,
        },
        8 => SendOp::LocalInv {
            invalidate_rkey: rkey,
        },
        9 => SendOp::BindMw(wqe::Mw::from_prefix(inp.bytes(size_of::<wqe::Mw>()))),
        _ => SendOp::Other {
            opcode: x as u32,
            ex: y as u32,
            remote_addr: addr,
            rkey,
        },
    }
}

fn ud_dest<'a>(inp: &mut Input<'_>, av: &'a Av) -> Option<UdDest<'a>> {
    let k = inp.u8();
    (k & 1 == 1).then(|| UdDest {
        remote_qpn: inp.u32(),
        remote_qkey: inp.u32(),
        ah_num: if k & 2 == 0 { 0 } else { inp.u32() },
        av: (k & 4 != 0).then_some(av),
    })
}

/// The command layer: ioctl commands with arbitrary attribute lists,
/// write() headers with arbitrary sizes, and the checks and conversions of
/// the create/modify attr structs (CQ, QP, AH) a caller passes.
pub fn commands(data: &[u8]) {
    use crate::uverbs::IoctlCmd;
    use crate::uverbs::write::{ex_hdrs, legacy_hdr};
    let mut inp = Input(data);
    let _ = legacy_hdr(inp.u32(), inp.u16().into(), inp.u16().into());
    let _ = ex_hdrs(
        inp.u32(),
        inp.u32() as usize,
        inp.u32() as usize,
        inp.u32() as usize,
        inp.u32() as usize,
    );
    let mut cq: ibv_cq_init_attr_ex = inp.c();
    (cq.cq_context, cq.channel, cq.parent_domain) = Default::default();
    let _ = crate::providers::rxe::fuzz_hooks::cq_ex_flags(&cq);
    let mut qp: ibv_qp_init_attr_ex = inp.c();
    (qp.qp_context, qp.send_cq, qp.recv_cq, qp.srq) = Default::default();
    (qp.pd, qp.xrcd, qp.rwq_ind_tbl) = Default::default();
    let _ = crate::providers::rxe::fuzz_hooks::qp_check_ex(&qp);
    let _ = crate::providers::rxe::fuzz_hooks::qp_legacy_mask(inp.u32() as i32);
    let ah: ibv_ah_attr = inp.c();
    crate::providers::rxe::fuzz_hooks::ah_round_trip(&ah);
    let qa: ibv_qp_attr = inp.c();
    crate::providers::rxe::fuzz_hooks::qp_dest_round_trip(&qa.ah_attr);

    // Outputs need storage that lives as long as the command.
    let mut outs: Vec<Vec<u8>> = (0..8).map(|_| vec![0u8; inp.u8().into()]).collect();
    let ins: Vec<&[u8]> = (0..8).map(|_| inp.chunk()).collect();
    let mut c = IoctlCmd::new("fuzz", inp.u16(), inp.u16());
    let mut outs = outs.iter_mut();
    let mut ins = ins.into_iter();
    while !inp.is_empty() {
        let id = inp.u16();
        let a = match inp.u8() % 10 {
            0 => Some(c.ptr_in(id, ins.next().unwrap_or_default())),
            1 => outs.next().map(|o| c.ptr_out(id, o)),
            2 => Some(c.const_in(id, inp.u64())),
            3 => Some(c.u32_in(id, inp.u32())),
            4 => Some(c.enum_in(id, inp.u8(), ins.next().unwrap_or_default())),
            5 => Some(c.idr_in(id, inp.u32())),
            6 => Some(c.idr_out(id)),
            7 => c.fd_in(id, (inp.u8() & 1 == 1).then_some(inp.u32() as i32)),
            8 => Some(c.fd_out(id)),
            _ => {
                c.begin_driver_attrs();
                None
            }
        };
        if let Some(a) = a {
            if inp.u8() & 1 == 1 {
                c.optional(a);
            }
            let _ = (c.read_idr(a), c.read_fd(a), c.valid_output(a));
        }
    }
    if let Ok(b) = c.encode(inp.u32()) {
        assert!(b.len() >= 24 && (b.len() - 24).is_multiple_of(16));
        assert_eq!(u16::from_ne_bytes([b[0], b[1]]) as usize, b.len());
    }
}
