//! Flow rules, flow actions and RSS tables: ibv_cmd_create_flow (the
//! extended CREATE_FLOW write(), its `ibv_flow_spec_*` list converted to the
//! kernel's `ib_uverbs_flow_spec_*` records as rdma-core 44's cmd.c does),
//! ibv_cmd_destroy_flow, ibv_cmd_destroy_flow_action (ioctl only),
//! ibv_cmd_destroy_rwq_ind_table (the ioctl methods; rules and tables fall
//! back to write() as rdma-core 44).

use super::destroy_result;
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::providers::plugin::frame::Frame;
use crate::uverbs::Pod;
use crate::uverbs::flow::CreateFlow;
use crate::uverbs::ids::*;
use std::ffi::c_void;

/// `IBV_FLOW_SPEC_INNER`: the spec matches the inner (tunnelled) headers.
const INNER: u32 = 0x100;

/// A filter spec copied as is: the kernel record's size and mask offset
/// (its value is at 8), the user spec's size, value and mask offsets, and
/// the filter's length.
struct Fixed {
    kern: usize,
    kmask: usize,
    ib: usize,
    ival: usize,
    imask: usize,
    len: usize,
}

/// A spec whose filter may be longer than the kernel's: the kernel record's
/// size and mask offset, and how much of the filter the kernel takes.
struct Sized {
    kern: usize,
    kmask: usize,
    min: usize,
}

const fn fixed(
    kern: usize,
    kmask: usize,
    ib: usize,
    ival: usize,
    imask: usize,
    len: usize,
) -> Fixed {
    Fixed {
        kern,
        kmask,
        ib,
        ival,
        imask,
        len,
    }
}

/// rdma-core 44's table (ib_spec_to_kern_spec); `None` for a type it refuses.
fn fixed_of(ty: u32) -> Option<Fixed> {
    Some(match ty {
        0x20 | 0x120 => fixed(40, 24, 40, 6, 22, 16), // ETH
        0x30 | 0x130 => fixed(24, 16, 24, 8, 16, 8),  // IPV4 (ibv_kern_spec_ipv4)
        0x34 | 0x134 => fixed(24, 16, 24, 8, 16, 8),  // ESP
        0x40 | 0x41 | 0x140 | 0x141 => fixed(16, 12, 16, 6, 10, 4), // TCP, UDP
        0x51 => fixed(24, 16, 24, 8, 16, 8),          // GRE (no inner form)
        0x60 | 0x160 => fixed(16, 12, 16, 8, 12, 4),  // MPLS
        _ => return None,
    })
}

fn sized_of(ty: u32) -> Option<Sized> {
    Some(match ty {
        0x32 | 0x132 => Sized {
            kern: 32,
            kmask: 20,
            min: 12,
        }, // IPV4_EXT: up to flags
        0x31 | 0x131 => Sized {
            kern: 88,
            kmask: 48,
            min: 39,
        }, // IPV6: up to hop_limit
        0x50 => Sized {
            kern: 16,
            kmask: 12,
            min: 4,
        }, // VXLAN_TUNNEL: tunnel_id
        _ => return None,
    })
}

fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_ne_bytes());
}

/// The caller's spec of `n` bytes at `p`.
///
/// # Safety
/// `p` holds `n` readable bytes.
unsafe fn spec_bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// The handle after the C struct a flow action or counters pointer heads
/// (`container_of` in rdma-core, which would crash on NULL).
///
/// # Safety
/// `p` is NULL or the plugin's `verbs_flow_action` / `verbs_counters`.
unsafe fn action_handle(p: usize, counters: bool) -> Result<u32> {
    if p == 0 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: per the contract.
    Ok(unsafe {
        if counters {
            (*(p as *const verbs_counters)).handle
        } else {
            (*(p as *const verbs_flow_action)).handle
        }
    })
}

/// One user spec at `p` as the kernel's record; also the user spec's size
/// (the step to the next one).
///
/// # Safety
/// `p` is the caller's spec, readable for its own `size` (and at least its
/// type's struct).
unsafe fn kern_spec(p: *const u8) -> Result<(Vec<u8>, usize)> {
    // SAFETY: every spec starts with its 8-byte header.
    let h = unsafe { spec_bytes(p, 8) };
    let ty = u32::from_ne_bytes(h[0..4].try_into().unwrap());
    let ib_size = u16::from_ne_bytes(h[4..6].try_into().unwrap()) as usize;
    let mut k;
    if let Some(f) = fixed_of(ty) {
        // SAFETY: a spec of this type is this big.
        let ib = unsafe { spec_bytes(p, f.ib) };
        k = vec![0u8; f.kern];
        k[8..8 + f.len].copy_from_slice(&ib[f.ival..f.ival + f.len]);
        k[f.kmask..f.kmask + f.len].copy_from_slice(&ib[f.imask..f.imask + f.len]);
    } else if let Some(z) = sized_of(ty) {
        // The filter's length from the spec's size: half of what follows the header.
        let ifs = (ib_size as isize - 8) / 2;
        if ifs < z.min as isize {
            return Err(Errno::EINVAL);
        }
        let ifs = ifs as usize;
        // SAFETY: the spec's own size (8 + two filters).
        let ib = unsafe { spec_bytes(p, 8 + 2 * ifs) };
        let (val, mask) = (&ib[8..8 + ifs], &ib[8 + ifs..8 + 2 * ifs]);
        if mask[z.min..].iter().any(|&b| b != 0) {
            return Err(Errno::EOPNOTSUPP);
        }
        k = vec![0u8; z.kern];
        k[8..8 + z.min].copy_from_slice(&val[..z.min]);
        k[z.kmask..z.kmask + z.min].copy_from_slice(&mask[..z.min]);
    } else {
        k = match ty {
            // ACTION_TAG: tag_id.
            0x1000 => {
                // SAFETY: ibv_flow_spec_action_tag is 12 bytes.
                let ib = unsafe { spec_bytes(p, 12) };
                let mut k = vec![0u8; 16];
                k[8..12].copy_from_slice(&ib[8..12]);
                k
            }
            0x1001 => vec![0u8; 8], // ACTION_DROP
            // ACTION_HANDLE, ACTION_COUNT: the object's kernel handle.
            0x1002 | 0x1003 => {
                // SAFETY: both specs are 16 bytes, the pointer at 8.
                let ib = unsafe { spec_bytes(p, 16) };
                let ptr = usize::from_ne_bytes(ib[8..16].try_into().unwrap());
                let mut k = vec![0u8; 16];
                // SAFETY: the caller's flow action or counters.
                put_u32(&mut k, 8, unsafe { action_handle(ptr, ty == 0x1003)? });
                k
            }
            _ => return Err(Errno::EINVAL),
        };
    }
    // IPV4_EXT travels as IPV4 with the longer filter.
    let kty = if ty & !INNER == 0x32 {
        0x30 | (ty & INNER)
    } else {
        ty
    };
    put_u32(&mut k, 0, kty);
    let ks = k.len() as u16;
    k[4..6].copy_from_slice(&ks.to_ne_bytes());
    Ok((k, ib_size))
}

/// The CREATE_FLOW core request: the attributes, then every spec converted.
///
/// # Safety
/// `a` is followed by its `num_of_specs` specs, as verbs.h lays them out.
unsafe fn create_flow_core(a: *const ibv_flow_attr, qp_handle: u32) -> Result<Vec<u8>> {
    // SAFETY: per the contract.
    let attr = unsafe { &*a };
    let mut specs = Vec::new();
    let mut p = a.cast::<u8>().wrapping_add(size_of::<ibv_flow_attr>());
    for _ in 0..attr.num_of_specs {
        // SAFETY: the next spec of the caller's list.
        let (k, step) = unsafe { kern_spec(p)? };
        specs.extend_from_slice(&k);
        p = p.wrapping_add(step);
    }
    let req = CreateFlow {
        qp_handle,
        attr_type: attr.r#type.0,
        size: u16::try_from(specs.len()).map_err(|_| Errno::EINVAL)?,
        priority: attr.priority,
        num_of_specs: attr.num_of_specs,
        port: attr.port,
        flags: attr.flags,
        ..Default::default()
    };
    Ok([req.as_bytes(), &specs].concat())
}

pub(crate) unsafe fn create_flow(
    qp: *mut ibv_qp,
    flow: *mut ibv_flow,
    attr: *mut ibv_flow_attr,
    ucmd: *mut c_void,
    ucmd_size: usize,
) -> Result<()> {
    // SAFETY: the plugin's QP and new flow.
    let (q, f) = unsafe { (qp.as_ref(), flow.as_mut()) };
    let (q, f) = q.zip(f).ok_or(Errno::EINVAL)?;
    if attr.is_null() || (ucmd.is_null() && ucmd_size > 0) {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's attributes and specs.
    let core = unsafe { create_flow_core(attr, q.handle)? };
    let di: &[u8] = if ucmd.is_null() {
        &[]
    } else {
        // SAFETY: the plugin's driver data of `ucmd_size` bytes.
        unsafe { std::slice::from_raw_parts(ucmd.cast::<u8>(), ucmd_size) }
    };
    let r = with_uverbs(q.context, |u| u.create_flow(&core, di))?;
    f.context = q.context;
    f.handle = r.flow_handle;
    Ok(())
}

pub(crate) unsafe fn destroy_flow_action(action: *mut verbs_flow_action) -> Result<()> {
    // SAFETY: a flow action of the plugin.
    let a = unsafe { action.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_FLOW_ACTION,
            UVERBS_METHOD_FLOW_ACTION_DESTROY,
            1,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, a.handle);
    // SAFETY: the action's context.
    destroy_result(unsafe { f.execute(a.action.context) })
}

pub(crate) unsafe fn destroy_flow(flow: *mut ibv_flow) -> Result<()> {
    // SAFETY: a flow rule of the plugin.
    let f = unsafe { flow.as_ref() }.ok_or(Errno::EINVAL)?;
    destroy_result(with_uverbs(f.context, |u| u.destroy_flow(f.handle)))
}

pub(crate) unsafe fn destroy_rwq_ind_table(t: *mut ibv_rwq_ind_table) -> Result<()> {
    // SAFETY: an indirection table of the plugin.
    let t = unsafe { t.as_ref() }.ok_or(Errno::EINVAL)?;
    let h = t.ind_tbl_handle as u32;
    destroy_result(with_uverbs(t.context, |u| u.destroy_rwq_ind_table(h)))
}

#[cfg(test)]
mod tests;
