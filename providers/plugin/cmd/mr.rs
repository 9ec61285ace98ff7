//! The MR commands: ibv_cmd_reg_mr, ibv_cmd_dereg_mr, ibv_cmd_rereg_mr
//! (write() REREG_MR, as rdma-core 44), and the ioctl-only ibv_cmd_query_mr, ibv_cmd_advise_mr and
//! ibv_cmd_reg_dmabuf_mr.

use super::{Arg, Bufs, Live};
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;
use crate::uverbs::mr::{RegMr, ReregMr, ReregMrResp};
use std::ffi::{c_int, c_void};

pub(crate) fn reg_mr(
    pd: Live<ibv_pd>,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    vmr: &mut verbs_mr,
    mut b: Bufs,
) -> Result<()> {
    let (ctx, pdh) = pd.parts();
    let req = RegMr {
        start: addr as u64,
        length: length as u64,
        hca_va,
        pd_handle: pdh,
        access_flags: access as u32,
        ..Default::default()
    };
    let core = size_of::<crate::uverbs::mr::RegMrResp>();
    let (di, dout) = b.split(size_of::<RegMr>(), core);
    let r = with_uverbs(ctx, |u| u.reg_mr(&req, di, dout))?;
    let m = &mut vmr.ibv_mr;
    m.handle = r.mr_handle;
    m.lkey = r.lkey;
    m.rkey = r.rkey;
    m.context = ctx;
    vmr.mr_type = IBV_MR_TYPE_MR;
    vmr.access = access;
    b.put(&r);
    Ok(())
}

pub(crate) fn dereg_mr(vmr: &verbs_mr) -> Result<()> {
    if vmr.mr_type == IBV_MR_TYPE_NULL_MR {
        return Ok(());
    }
    with_uverbs(vmr.ibv_mr.context, |u| u.dereg_mr(vmr.ibv_mr.handle))
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn rereg_mr(
    m: &mut verbs_mr,
    flags: u32,
    addr: *mut c_void,
    length: usize,
    hca_va: u64,
    access: c_int,
    pd: Option<Live<ibv_pd>>,
    mut b: Bufs,
) -> Result<()> {
    let change_pd = flags & ibv_rereg_mr_flags::IBV_REREG_MR_CHANGE_PD.0 != 0;
    // The caller's new PD, only read when the PD changes.
    let new_pd = if change_pd {
        Some(pd.ok_or(Errno::EINVAL)?.parts())
    } else {
        None
    };
    let pd_handle = new_pd.map_or(0, |(_, h)| h);
    let req = ReregMr {
        mr_handle: m.ibv_mr.handle,
        flags,
        start: addr as u64,
        length: length as u64,
        hca_va,
        pd_handle,
        access_flags: access as u32,
        ..Default::default()
    };
    let (di, dout) = b.split(size_of::<ReregMr>(), size_of::<ReregMrResp>());
    let r = with_uverbs(m.ibv_mr.context, |u| u.rereg_mr(&req, di, dout))?;
    m.ibv_mr.lkey = r.lkey;
    m.ibv_mr.rkey = r.rkey;
    if let Some((ctx, _)) = new_pd {
        m.ibv_mr.context = ctx;
    }
    b.put(&r);
    Ok(())
}

pub(crate) unsafe fn query_mr(pd: *mut ibv_pd, vmr: *mut verbs_mr, mr_handle: u32) -> Result<()> {
    // SAFETY: the plugin's PD and MR.
    let (p, m) = unsafe { (pd.as_ref(), vmr.as_mut()) };
    let (p, m) = (p.ok_or(Errno::EINVAL)?, m.ok_or(Errno::EINVAL)?);
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_MR,
            UVERBS_METHOD_QUERY_MR,
            4,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
    let mr = &mut m.ibv_mr;
    // SAFETY: the MR's fields, live until execute returns.
    unsafe {
        f.ptr_out(UVERBS_ATTR_QUERY_MR_RESP_LKEY, (&raw mut mr.lkey).cast(), 4);
        f.ptr_out(UVERBS_ATTR_QUERY_MR_RESP_RKEY, (&raw mut mr.rkey).cast(), 4);
        f.ptr_out(
            UVERBS_ATTR_QUERY_MR_RESP_LENGTH,
            (&raw mut mr.length).cast(),
            8,
        );
        f.execute(p.context)?;
    }
    mr.handle = mr_handle;
    mr.context = p.context;
    mr.pd = pd;
    mr.addr = std::ptr::null_mut();
    m.mr_type = IBV_MR_TYPE_IMPORTED_MR;
    Ok(())
}

pub(crate) unsafe fn advise_mr(
    pd: *mut ibv_pd,
    advice: u32,
    flags: u32,
    sg: *mut ibv_sge,
    num_sge: u32,
) -> Result<()> {
    // SAFETY: the plugin's PD.
    let p = unsafe { pd.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_MR,
            UVERBS_METHOD_ADVISE_MR,
            4,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, p.handle);
    f.const_in(UVERBS_ATTR_ADVISE_MR_ADVICE, advice.into());
    f.u32_in(UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
    let len = num_sge as usize * size_of::<ibv_sge>();
    // SAFETY: the caller's `num_sge` entries (fill_attr_in_ptr_array).
    unsafe {
        f.ptr_in(UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg.cast(), len);
        f.execute(p.context)
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
    vmr: *mut verbs_mr,
    driver: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the plugin's PD.
    let p = unsafe { pd.as_ref() }.ok_or(Errno::EINVAL)?;
    // rdma-core 55 added `driver`; a caller built against an older
    // driver.h passes seven arguments and leaves stack contents in its
    // place, so it is read only from a plugin built with the eighth.
    // SAFETY: the PD's context and device are the plugin's.
    let ops = unsafe { p.context.as_ref() }
        .and_then(|c| unsafe { c.device.cast::<verbs_device>().as_ref() })
        .map_or(std::ptr::null(), |d| d.ops);
    let link = if super::super::release::passes_dmabuf_driver(ops) {
        driver
    } else {
        std::ptr::null_mut()
    };
    let (mut lkey, mut rkey) = (0u32, 0u32);
    // SAFETY: the plugin's link chain (or none).
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, 9, link)? };
    let h = f.obj_out(UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
    // SAFETY: our locals, live until execute returns.
    unsafe {
        f.ptr_out(
            UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY,
            (&raw mut lkey).cast(),
            4,
        );
        f.ptr_out(
            UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY,
            (&raw mut rkey).cast(),
            4,
        );
    }
    f.obj_in(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, p.handle);
    f.u64_in(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
    f.u64_in(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length as u64);
    f.u64_in(UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
    f.u32_in(UVERBS_ATTR_REG_DMABUF_MR_FD, fd as u32);
    f.u32_in(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access as u32);
    // SAFETY: a hosted context; our live locals.
    unsafe { f.execute(p.context)? };
    let handle = f.read_obj(h);
    // SAFETY: the plugin's new MR.
    let m = unsafe { vmr.as_mut() }.ok_or(Errno::EINVAL)?;
    m.ibv_mr.handle = handle;
    m.ibv_mr.context = p.context;
    m.ibv_mr.lkey = lkey;
    m.ibv_mr.rkey = rkey;
    m.ibv_mr.pd = pd;
    m.ibv_mr.addr = offset as usize as *mut c_void;
    m.ibv_mr.length = length;
    m.mr_type = IBV_MR_TYPE_DMABUF_MR;
    Ok(())
}

/// What ibv_cmd_reg_mr_ex sends, from the caller's `ibv_mr_init_attr`: an
/// fd-based request needs its offset and an IOVA and no address; an
/// address-based one no fd offset; `SIZE_MAX` is the whole address space
/// for an on-demand MR at address 0 (EINVAL elsewhere), as rdma-core 65.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RegMrEx {
    /// `Some((fd, offset))` for a dma-buf.
    pub fd: Option<(c_int, u64)>,
    pub addr: u64,
    pub iova: u64,
    pub length: u64,
}

pub(crate) fn reg_mr_ex_args(a: &ibv_mr_init_attr) -> Result<RegMrEx> {
    const IOVA: u64 = 0x1;
    const ADDR: u64 = 0x2;
    const FD: u64 = 0x4;
    const FD_OFFSET: u64 = 0x8;
    const ON_DEMAND: c_int = 0x40;
    let m = a.comp_mask;
    let mut length = a.length as u64;
    let fd = if m & FD != 0 {
        if m & FD_OFFSET == 0 || m & ADDR != 0 {
            return Err(Errno::EINVAL);
        }
        Some((a.fd, a.fd_offset))
    } else {
        if m & FD_OFFSET != 0 || m & ADDR == 0 {
            return Err(Errno::EINVAL);
        }
        if a.access & ON_DEMAND != 0 && a.length == usize::MAX {
            if !a.addr.is_null() {
                return Err(Errno::EINVAL);
            }
            length = u64::MAX;
        }
        None
    };
    let iova = if m & IOVA != 0 {
        a.iova
    } else if fd.is_none() {
        a.addr as u64
    } else {
        // The kernel needs an IOVA for a dma-buf.
        return Err(Errno::EINVAL);
    };
    Ok(RegMrEx {
        fd,
        addr: a.addr as u64,
        iova,
        length,
    })
}

/// ibv_cmd_reg_mr_ex (rdma-core 65): the REG_MR method; on a kernel
/// without it an address-based request becomes the write() REG_MR, and a
/// dma-buf or DMA-handle one is EOPNOTSUPP.
pub(crate) unsafe fn reg_mr_ex(
    pd: *mut ibv_pd,
    vmr: *mut verbs_mr,
    attr: *mut ibv_mr_init_attr,
) -> Result<()> {
    // SAFETY: the plugin's PD and MR, the caller's attributes.
    let (p, a) = unsafe { (pd.as_ref(), attr.as_ref()) };
    let (p, a) = (p.ok_or(Errno::EINVAL)?, a.ok_or(Errno::EINVAL)?);
    if vmr.is_null() {
        return Err(Errno::EINVAL);
    }
    let args = reg_mr_ex_args(a)?;
    const DMAH: u64 = 0x10;
    let dmah = if a.comp_mask & DMAH != 0 {
        // SAFETY: the caller's handle, a verbs_dmah of its provider.
        let d = unsafe { a.dmah.cast::<crate::driver_abi::v65::verbs_dmah>().as_ref() };
        Some(d.ok_or(Errno::EINVAL)?.handle)
    } else {
        None
    };
    let (mut lkey, mut rkey) = (0u32, 0u32);
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_MR,
            UVERBS_METHOD_REG_MR,
            11,
            std::ptr::null_mut(),
        )?
    };
    match args.fd {
        Some((fd, off)) => {
            f.u64_in(UVERBS_ATTR_REG_MR_FD_OFFSET, off);
            f.fd_in(UVERBS_ATTR_REG_MR_FD, fd);
        }
        None => {
            f.u64_in(UVERBS_ATTR_REG_MR_ADDR, args.addr);
        }
    }
    f.u64_in(UVERBS_ATTR_REG_MR_IOVA, args.iova);
    let h = f.obj_out(UVERBS_ATTR_REG_MR_HANDLE);
    // SAFETY: our locals, live until execute returns.
    unsafe {
        f.ptr_out(UVERBS_ATTR_REG_MR_RESP_LKEY, (&raw mut lkey).cast(), 4);
        f.ptr_out(UVERBS_ATTR_REG_MR_RESP_RKEY, (&raw mut rkey).cast(), 4);
    }
    f.obj_in(UVERBS_ATTR_REG_MR_PD_HANDLE, p.handle);
    f.u64_in(UVERBS_ATTR_REG_MR_LENGTH, args.length);
    f.u32_in(UVERBS_ATTR_REG_MR_ACCESS_FLAGS, a.access as u32);
    if let Some(d) = dmah {
        f.obj_in(UVERBS_ATTR_REG_MR_DMA_HANDLE, d);
    }
    // SAFETY: a hosted context; our live locals.
    match unsafe { f.execute(p.context) } {
        Ok(()) => {}
        Err(e) if e == Errno::ENOTTY || e == Errno::EPROTONOSUPPORT => {
            if args.fd.is_some() || dmah.is_some() {
                return Err(Errno::EOPNOTSUPP);
            }
            let req = [0u8; size_of::<RegMr>() + 8];
            let mut resp = [0u8; 16];
            // SAFETY: the plugin's PD and new MR, checked non-NULL above.
            let (pd, vmr) = unsafe { (Arg::from_c(pd)?, &mut *vmr) };
            return reg_mr(
                pd,
                a.addr,
                args.length as usize,
                args.iova,
                a.access,
                vmr,
                Bufs::of(&req, &mut resp),
            );
        }
        Err(e) => return Err(e),
    }
    // SAFETY: the plugin's new MR (checked non-NULL).
    let m = unsafe { &mut *vmr };
    m.ibv_mr.handle = f.read_obj(h);
    m.ibv_mr.context = p.context;
    m.ibv_mr.lkey = lkey;
    m.ibv_mr.rkey = rkey;
    m.mr_type = if args.fd.is_some() {
        IBV_MR_TYPE_DMABUF_MR
    } else {
        IBV_MR_TYPE_MR
    };
    m.access = a.access;
    Ok(())
}
