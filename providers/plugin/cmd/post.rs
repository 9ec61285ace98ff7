//! The write() data path, as rdma-core 44's cmd.c sends it:
//! ibv_cmd_post_send, ibv_cmd_post_recv, ibv_cmd_post_srq_recv (work
//! requests marshalled into the kernel's `ib_uverbs_send_wr` / `recv_wr`
//! records, then every `ib_uverbs_sge`) and ibv_cmd_poll_cq.
//!
//! Where rdma-core would crash (a NULL object, a negative `num_sge`, SGEs
//! without a list, a UD send without an AH, a list longer than one command
//! can carry, which a cycle is) we answer EINVAL before the kernel sees it.

use crate::abi::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::uverbs::Pod;

use crate::uverbs::cq::Wc;
use crate::uverbs::post::{PostRecv, PostResult, PostSend, PostSrqRecv, RecvWr, SendWr, Sge};
use std::ffi::c_int;

/// The legacy header counts a command in 16-bit words of 4 bytes.
const MAX_CMD: usize = 0xffff * 4;
/// The most completions one POLL_CQ response (8-byte head) can carry.
const MAX_WC: usize = (MAX_CMD - 8) / size_of::<Wc>();

/// A work request list node: its successor and its scatter/gather list.
trait Node {
    fn next(&self) -> *mut Self;
    fn sges(&self) -> (*mut ibv_sge, c_int);
}

impl Node for ibv_send_wr {
    fn next(&self) -> *mut Self {
        self.next
    }
    fn sges(&self) -> (*mut ibv_sge, c_int) {
        (self.sg_list, self.num_sge)
    }
}

impl Node for ibv_recv_wr {
    fn next(&self) -> *mut Self {
        self.next
    }
    fn sges(&self) -> (*mut ibv_sge, c_int) {
        (self.sg_list, self.num_sge)
    }
}

/// The payload after the core struct: `wr_count` records made by `rec`, then
/// every SGE in list order. Returns it with the WR and SGE counts.
///
/// # Safety
/// `wr` is NULL or a list of the caller's live work requests, whose
/// `sg_list`s hold `num_sge` entries.
unsafe fn marshal<W: Node>(
    wr: *mut W,
    wqe: usize,
    mut rec: impl FnMut(&W) -> Result<Vec<u8>>,
) -> Result<(Vec<u8>, u32, u32)> {
    let (mut recs, mut sges) = (Vec::new(), Vec::new());
    let mut n = 0u32;
    let mut p = wr;
    // SAFETY: per the contract.
    while let Some(w) = unsafe { p.as_ref() } {
        let (list, num) = w.sges();
        let num = usize::try_from(num).map_err(|_| Errno::EINVAL)?;
        if num > 0 && list.is_null() {
            return Err(Errno::EINVAL);
        }
        if 24 + recs.len() + sges.len() + wqe + num * size_of::<Sge>() > MAX_CMD {
            return Err(Errno::EINVAL);
        }
        recs.extend_from_slice(&rec(w)?);
        if num > 0 {
            // SAFETY: the caller's `num` SGEs (ibv_sge is the kernel's layout).
            let s =
                unsafe { std::slice::from_raw_parts(list.cast::<u8>(), num * size_of::<Sge>()) };
            sges.extend_from_slice(s);
        }
        n += 1;
        p = w.next();
    }
    let sge_count = (sges.len() / size_of::<Sge>()) as u32;
    recs.extend_from_slice(&sges);
    Ok((recs, n, sge_count))
}

/// Puts the `k`th node (0-based) of `wr` at `*bad_wr` if the kernel named
/// one, else `wr` itself on failure; a count past the list (a hostile kernel)
/// names the head.
///
/// # Safety
/// As [`marshal`]; `bad_wr` is NULL or writable.
unsafe fn report<W: Node>(wr: *mut W, bad_wr: *mut *mut W, (r, bad): PostResult) -> Result<()> {
    let mut at = None;
    if let Some(k) = bad {
        let mut p = wr;
        for _ in 0..k {
            // SAFETY: per the contract.
            p = unsafe { p.as_ref() }.map_or(std::ptr::null_mut(), |w| w.next());
        }
        at = Some(if p.is_null() { wr } else { p });
    } else if r.is_err() {
        at = Some(wr);
    }
    if let (Some(p), false) = (at, bad_wr.is_null()) {
        // SAFETY: the caller's out pointer.
        unsafe { *bad_wr = p };
    }
    r
}

/// One `ib_uverbs_send_wr`: the union is filled by the QP type and opcode,
/// as rdma-core does (UD: the AH's handle, QPN and Q_Key).
fn send_record(w: &ibv_send_wr, ud: bool) -> Result<Vec<u8>> {
    let mut u = [0u8; 32];
    let mut put = |off: usize, b: &[u8]| u[off..off + b.len()].copy_from_slice(b);
    // SAFETY: reading the union members the QP type and opcode select, as C does.
    unsafe {
        if ud {
            // SAFETY: the caller's AH (rdma-core dereferences it unchecked).
            let ah = w.wr.ud.ah.as_ref().ok_or(Errno::EINVAL)?;
            put(0, &ah.handle.to_ne_bytes());
            put(4, &w.wr.ud.remote_qpn.to_ne_bytes());
            put(8, &w.wr.ud.remote_qkey.to_ne_bytes());
        } else {
            match w.opcode.0 {
                IBV_WR_RDMA_WRITE | IBV_WR_RDMA_WRITE_WITH_IMM | IBV_WR_RDMA_READ => {
                    put(0, &w.wr.rdma.remote_addr.to_ne_bytes());
                    put(8, &w.wr.rdma.rkey.to_ne_bytes());
                }
                IBV_WR_ATOMIC_CMP_AND_SWP | IBV_WR_ATOMIC_FETCH_AND_ADD => {
                    let a = w.wr.atomic;
                    put(0, &a.remote_addr.to_ne_bytes());
                    put(8, &a.compare_add.to_ne_bytes());
                    put(16, &a.swap.to_ne_bytes());
                    put(24, &a.rkey.to_ne_bytes());
                }
                _ => {}
            }
        }
    }
    let r = SendWr {
        wr_id: w.wr_id,
        num_sge: w.num_sge as u32,
        opcode: w.opcode.0,
        send_flags: w.send_flags,
        ex: w.imm_data,
        wr: std::array::from_fn(|i| u64::from_ne_bytes(u[i * 8..i * 8 + 8].try_into().unwrap())),
    };
    Ok(r.as_bytes().to_vec())
}

fn recv_record(w: &ibv_recv_wr) -> Result<Vec<u8>> {
    let r = RecvWr {
        wr_id: w.wr_id,
        num_sge: w.num_sge as u32,
        reserved: 0,
    };
    Ok(r.as_bytes().to_vec())
}

/// Marshals `wr` with `rec` and sends it on `ctx` with `send` (given the
/// payload and the WR and SGE counts); reports the failed WR at `bad_wr`.
///
/// # Safety
/// As [`marshal`] and [`report`]; `ctx` is the queue's context.
unsafe fn post<W: Node>(
    ctx: *mut ibv_context,
    wr: *mut W,
    bad_wr: *mut *mut W,
    wqe: usize,
    rec: impl FnMut(&W) -> Result<Vec<u8>>,
    send: impl FnOnce(&crate::uverbs::Uverbs, &[u8], u32, u32) -> PostResult,
) -> Result<()> {
    // SAFETY: the caller's list.
    let (wrs, wr_count, sge_count) = unsafe { marshal(wr, wqe, rec)? };
    let r = with_uverbs(ctx, |u| Ok(send(u, &wrs, wr_count, sge_count)))?;
    // SAFETY: the caller's list and out pointer.
    unsafe { report(wr, bad_wr, r) }
}

pub(crate) unsafe fn post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> Result<()> {
    // SAFETY: a QP of the plugin.
    let q = unsafe { qp.as_ref() }.ok_or(Errno::EINVAL)?;
    let ud = q.qp_type == ibv_qp_type::IBV_QPT_UD;
    let wqe = size_of::<SendWr>();
    let rec = |w: &ibv_send_wr| send_record(w, ud);
    // SAFETY: the caller's list and out pointer.
    unsafe {
        post(
            q.context,
            wr,
            bad_wr,
            wqe,
            rec,
            |u, wrs, wr_count, sge_count| {
                let req = PostSend {
                    qp_handle: q.handle,
                    wr_count,
                    sge_count,
                    wqe_size: wqe as u32,
                    ..Default::default()
                };
                u.post_send(&req, wrs)
            },
        )
    }
}

pub(crate) unsafe fn post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> Result<()> {
    // SAFETY: a QP of the plugin.
    let q = unsafe { qp.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: the caller's list and out pointer.
    unsafe { post_recv_to(q.context, q.handle, false, wr, bad_wr) }
}

pub(crate) unsafe fn post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> Result<()> {
    // SAFETY: an SRQ of the plugin.
    let s = unsafe { srq.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: the caller's list and out pointer.
    unsafe { post_recv_to(s.context, s.handle, true, wr, bad_wr) }
}

/// POST_RECV to a QP's receive queue or POST_SRQ_RECV to an SRQ: the same
/// core struct but for the handle's name.
///
/// # Safety
/// As [`post`].
unsafe fn post_recv_to(
    ctx: *mut ibv_context,
    handle: u32,
    srq: bool,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> Result<()> {
    let wqe = size_of::<RecvWr>();
    // SAFETY: per the contract.
    unsafe {
        post(
            ctx,
            wr,
            bad_wr,
            wqe,
            recv_record,
            |u, wrs, wr_count, sge_count| {
                let req = PostRecv {
                    qp_handle: handle,
                    wr_count,
                    sge_count,
                    wqe_size: wqe as u32,
                    ..Default::default()
                };
                if srq {
                    let req = PostSrqRecv::from_prefix(req.as_bytes());
                    u.post_srq_recv(&req, wrs)
                } else {
                    u.post_recv(&req, wrs)
                }
            },
        )
    }
}

/// The fields of an `ibv_wc` that rdma-core copies from an `ib_uverbs_wc`.
fn to_wc(k: &Wc) -> ibv_wc {
    ibv_wc {
        wr_id: k.wr_id,
        status: ibv_wc_status(k.status),
        opcode: ibv_wc_opcode(k.opcode),
        vendor_err: k.vendor_err,
        byte_len: k.byte_len,
        imm_data: k.ex,
        qp_num: k.qp_num,
        src_qp: k.src_qp,
        wc_flags: k.wc_flags,
        pkey_index: k.pkey_index,
        slid: k.slid,
        sl: k.sl,
        dlid_path_bits: k.dlid_path_bits,
    }
}

/// ibv_cmd_poll_cq: up to `ne` completions (at most what one response
/// carries); the count, as rdma-core returns it.
pub(crate) unsafe fn poll_cq(cq: *mut ibv_cq, ne: c_int, wc: *mut ibv_wc) -> Result<c_int> {
    // SAFETY: a CQ of the plugin.
    let c = unsafe { cq.as_ref() }.ok_or(Errno::EINVAL)?;
    let ne = usize::try_from(ne).map_err(|_| Errno::EINVAL)?.min(MAX_WC);
    if ne > 0 && wc.is_null() {
        return Err(Errno::EINVAL);
    }
    let mut k = vec![Wc::default(); ne];
    let n = with_uverbs(c.context, |u| u.poll_cq(c.handle, &mut k))?;
    for (i, w) in k[..n].iter().enumerate() {
        // SAFETY: the caller's array of at least `ne` >= `n` entries.
        unsafe { wc.add(i).write(to_wc(w)) };
    }
    Ok(n as c_int)
}

#[cfg(test)]
mod tests;
