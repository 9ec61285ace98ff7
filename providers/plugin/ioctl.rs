//! `execute_ioctl`: runs an ioctl command that a plugin built on its own stack
//! with cmd_ioctl.h's inline helpers (`struct ibv_command_buffer`, attributes
//! right after its header, earlier frames chained by `next`). As rdma-core 44
//! does: the chained buffers' attributes are copied behind the caller's own
//! (the caller sized its buffer for them with `__ioctl_final_num_attrs`), a
//! small `UHW_IN` travels inline, the kernel gets the header with the
//! context's driver id, and afterwards the chained attributes go back to
//! their frames, so the helpers there read the kernel's output (new handles,
//! fds, `VALID_OUTPUT` flags) where they left them. There is no write()
//! fallback here: like rdma-core, a plugin gets the kernel's errno
//! (EPROTONOSUPPORT, ENOTTY) and decides itself; the fallbacks live in the
//! `ibv_cmd_*` functions (`crate::uverbs::fallback`).
//!
//! Safety: the buffers are the plugin's, as cmd_ioctl.h lays them out; we
//! check what can be checked (the bounds between `hdr.attrs`, `next_attr`
//! and `last_attr`, the chain's length) before writing anything.

use crate::driver_abi::v34::{
    CMDB_BUFFER_ERROR, UHW_NO_INDEX, ib_uverbs_attr, ib_uverbs_ioctl_hdr, ibv_command_buffer,
};
use crate::entry::{Errno, Result};
use crate::uverbs::ids::UVERBS_ATTR_UHW_IN;

/// More chained frames than any provider builds: a loop, not a command.
const MAX_LINKS: usize = 16;

/// The attributes a frame has filled: `hdr.attrs .. next_attr`.
///
/// # Safety
/// `b` is a live command buffer of the plugin.
unsafe fn filled(b: *mut ibv_command_buffer) -> Result<(*mut ib_uverbs_attr, usize)> {
    let start = ibv_command_buffer::attrs(b);
    // SAFETY: per the contract.
    let (next, last) = unsafe { ((*b).next_attr, (*b).last_attr) };
    let (s, n, l) = (start as usize, next as usize, last as usize);
    if n < s || l < n || (n - s) % size_of::<ib_uverbs_attr>() != 0 {
        return Err(Errno::EINVAL);
    }
    Ok((start, (n - s) / size_of::<ib_uverbs_attr>()))
}

/// The frames chained behind `cmd`, nearest first.
///
/// # Safety
/// `cmd` is a live command buffer of the plugin, and so is each `next`.
unsafe fn links(cmd: *mut ibv_command_buffer) -> Result<Vec<*mut ibv_command_buffer>> {
    let mut v = Vec::new();
    // SAFETY: per the contract.
    let mut l = unsafe { (*cmd).next };
    while !l.is_null() {
        if v.len() == MAX_LINKS || l == cmd || v.contains(&l) {
            return Err(Errno::EINVAL);
        }
        v.push(l);
        // SAFETY: per the contract.
        l = unsafe { (*l).next };
    }
    Ok(v)
}

/// `__ioctl_final_num_attrs` less `num_attrs`: what a chain has filled.
///
/// # Safety
/// `link` is NULL or a live command buffer chain of the plugin.
pub(crate) unsafe fn chained_attrs(link: *mut ibv_command_buffer) -> Result<usize> {
    if link.is_null() {
        return Ok(0);
    }
    // SAFETY: per the contract.
    let mut n = unsafe { filled(link)?.1 };
    // SAFETY: as above.
    for l in unsafe { links(link)? } {
        // SAFETY: as above.
        n += unsafe { filled(l)?.1 };
    }
    Ok(n)
}

/// _check_legacy over a driver's chain, after the kernel refused the
/// ioctl method: Ok(true) if the write() command must be the extended one,
/// Ok(false) if the plain one carries the request, EOPNOTSUPP if the chain
/// holds a mandatory attribute (other than UHW) that only the method takes.
///
/// # Safety
/// `link` is NULL or a live command buffer chain of the plugin.
pub(crate) unsafe fn legacy_fallback(link: *mut ibv_command_buffer) -> Result<bool> {
    if link.is_null() {
        return Ok(false);
    }
    let mut frames = vec![link];
    // SAFETY: per the contract.
    frames.extend(unsafe { links(link)? });
    let mut ex = false;
    for l in frames {
        // SAFETY: a frame of the chain.
        let (start, k) = unsafe { filled(l)? };
        for i in 0..k {
            // SAFETY: one of the `k` filled attributes.
            let a = unsafe { &*start.add(i) };
            if a.attr_id != UVERBS_ATTR_UHW_IN
                && a.attr_id != crate::uverbs::ids::UVERBS_ATTR_UHW_OUT
                && a.flags & crate::uverbs::ioctl_hdr::UVERBS_ATTR_F_MANDATORY != 0
            {
                return Err(Errno::EOPNOTSUPP);
            }
        }
        // SAFETY: as above.
        let flags = unsafe { (*l).flags };
        if flags & crate::driver_abi::v34::CMDB_FALLBACK_IOCTL_ONLY != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        ex |= flags & crate::driver_abi::v34::CMDB_FALLBACK_REQUIRE_EX != 0;
    }
    Ok(ex)
}

/// prepare_attrs: the chained attributes behind the caller's, `num_attrs`,
/// `length`, the driver id, and a small UHW_IN inlined. Returns the chain.
///
/// # Safety
/// `cmd` is a live command buffer chain of the plugin.
pub(crate) unsafe fn prepare(
    cmd: *mut ibv_command_buffer,
    driver_id: u32,
) -> Result<Vec<*mut ibv_command_buffer>> {
    // SAFETY: per the contract.
    let c = unsafe { &mut *cmd };
    if c.flags & CMDB_BUFFER_ERROR != 0 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: per the contract.
    let chain = unsafe { links(cmd)? };
    // SAFETY: as above.
    let (base, mut n) = unsafe { filled(cmd)? };
    let room = (c.last_attr as usize - base as usize) / size_of::<ib_uverbs_attr>();
    for &l in &chain {
        // SAFETY: a frame of the chain.
        let (src, k) = unsafe { filled(l)? };
        if n + k > room {
            return Err(Errno::EINVAL);
        }
        // SAFETY: as above.
        let l_uhw = unsafe { (*l).uhw_in_idx };
        if l_uhw != UHW_NO_INDEX {
            let at = usize::from(l_uhw) + n;
            c.uhw_in_idx = u8::try_from(at).map_err(|_| Errno::EINVAL)?;
        }
        // SAFETY: `k` filled attributes of the frame, to free room in ours
        // (checked against last_attr above); distinct frames do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src, base.add(n), k) };
        n += k;
    }
    let num = u16::try_from(n).map_err(|_| Errno::EINVAL)?;
    let len = size_of::<ib_uverbs_ioctl_hdr>() + n * size_of::<ib_uverbs_attr>();
    c.hdr.num_attrs = num;
    c.hdr.length = u16::try_from(len).map_err(|_| Errno::EINVAL)?;
    c.hdr.reserved1 = 0;
    c.hdr.reserved2 = 0;
    c.hdr.driver_id = driver_id;
    if c.uhw_in_idx != UHW_NO_INDEX && usize::from(c.uhw_in_idx) < n {
        // SAFETY: an attribute of ours (index checked).
        let a = unsafe { &mut *base.add(usize::from(c.uhw_in_idx)) };
        // The write() compat path keeps UHW_IN by pointer until now; the
        // kernel wants 8 bytes or fewer inline.
        if a.attr_id == UVERBS_ATTR_UHW_IN && usize::from(a.len) <= 8 && a.len > 0 {
            let mut v = [0u8; 8];
            // SAFETY: the plugin's UHW data of `len` bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    a.data as usize as *const u8,
                    v.as_mut_ptr(),
                    a.len.into(),
                )
            };
            a.data = u64::from_ne_bytes(v);
        }
    }
    Ok(chain)
}

/// finalize_attrs: the chained frames get their attributes back, as the
/// kernel left them.
///
/// # Safety
/// `cmd` and `chain` are what [`prepare`] was given and returned.
pub(crate) unsafe fn finalize(cmd: *mut ibv_command_buffer, chain: &[*mut ibv_command_buffer]) {
    // SAFETY: checked by prepare.
    let Ok((base, mut n)) = (unsafe { filled(cmd) }) else {
        return;
    };
    for &l in chain {
        // SAFETY: as above.
        let Ok((dst, k)) = (unsafe { filled(l) }) else {
            return;
        };
        // SAFETY: the same ranges prepare copied from.
        unsafe { std::ptr::copy_nonoverlapping(base.add(n), dst, k) };
        n += k;
    }
}

/// execute_ioctl: 0, or the kernel's errno.
///
/// # Safety
/// `ctx` is a hosted context and `cmd` a live command buffer chain of the
/// plugin, per cmd_ioctl.h.
pub(crate) unsafe fn execute(
    ctx: *mut crate::abi::ibv_context,
    cmd: *mut ibv_command_buffer,
) -> Result<()> {
    if cmd.is_null() {
        return Err(Errno::EINVAL);
    }
    super::context::with_uverbs(ctx, |u| {
        // SAFETY: per the contract.
        let chain = unsafe { prepare(cmd, u.driver_id())? };
        // SAFETY: the header is followed by `num_attrs` attributes whose
        // pointers the plugin made for this call (cmd_ioctl.h's contract).
        let r = unsafe {
            libc::ioctl(
                std::os::fd::AsRawFd::as_raw_fd(&u.fd()),
                crate::uverbs::RDMA_VERBS_IOCTL as _,
                &raw mut (*cmd).hdr,
            )
        };
        if r != 0 {
            return Err(Errno::last());
        }
        // SAFETY: as prepared.
        unsafe { finalize(cmd, &chain) };
        Ok(())
    })
}

#[cfg(test)]
mod tests;
