//! Device, port, GID and P_Key queries.

use crate::abi::*;
use crate::context::Context;
use crate::entry::{Errno, Result, arg_mut};
use crate::object;
use std::ffi::{c_int, c_uint};
use std::sync::Arc;

fn context(p: *mut ibv_context) -> Result<Arc<Context>> {
    object::lookup::<Context>(p)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_device(
    context: *mut ibv_context,
    device_attr: *mut ibv_device_attr,
) -> c_int {
    entry!(errno, ibv_query_device(context, device_attr) {
        let ctx = self::context(context)?;
        // SAFETY: caller's out-parameter.
        let attr = unsafe { arg_mut(device_attr)? };
        ctx.ops.query_device(&ctx, attr)
    })
}

/// The same as the inline in verbs.h, exported for FFI users that cannot use
/// inline functions. Uses this library's `ibv_device_attr_ex` size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
) -> c_int {
    entry!(errno, ibv_query_device_ex(context, input, attr) {
        let ctx = self::context(context)?;
        // SAFETY: optional input from the caller.
        if unsafe { input.as_ref() }.is_some_and(|i| i.comp_mask != 0) {
            return Err(Errno::EINVAL);
        }
        // SAFETY: caller's out-parameter.
        let attr = unsafe { arg_mut(attr)? };
        match ctx.ops.query_device_ex(&ctx, attr) {
            Err(Errno::EOPNOTSUPP | Errno::ENOSYS) => {
                // SAFETY: plain C data; all-zero is valid.
                *attr = unsafe { std::mem::zeroed() };
                ctx.ops.query_device(&ctx, &mut attr.orig_attr)
            }
            r => r,
        }
    })
}

/// Size of the port attributes of programs built before port_cap_flags2.
const COMPAT_PORT_ATTR_LEN: usize = 48;

/// Fills the first `len` bytes of a caller's port attributes.
pub fn query_port_into(ctx: &Context, port: u8, out: *mut ibv_port_attr, len: usize) -> Result<()> {
    if out.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: plain C data; all-zero is valid.
    let mut full: ibv_port_attr = unsafe { std::mem::zeroed() };
    ctx.ops.query_port(ctx, port, &mut full)?;
    let n = len.min(size_of::<ibv_port_attr>());
    // SAFETY: the caller gives `len` writable bytes at `out`; we write at most that.
    unsafe { std::ptr::copy_nonoverlapping((&raw const full).cast::<u8>(), out.cast::<u8>(), n) };
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut _compat_ibv_port_attr,
) -> c_int {
    entry!(errno, ibv_query_port(context, port_num, port_attr) {
        let ctx = self::context(context)?;
        query_port_into(&ctx, port_num, port_attr.cast(), COMPAT_PORT_ATTR_LEN)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    gid: *mut ibv_gid,
) -> c_int {
    entry!(minus_one, ibv_query_gid(context, port_num, index, gid) {
        let ctx = self::context(context)?;
        // SAFETY: caller's out-parameter.
        let gid = unsafe { arg_mut(gid)? };
        let index = u32::try_from(index).map_err(|_| Errno::EINVAL)?;
        match ctx.ops.query_gid_ex(&ctx, port_num.into(), index, 0) {
            Ok(e) => *gid = e.gid,
            // An empty slot reads as the zero GID, as it always has.
            Err(Errno(libc::ENODATA)) => *gid = ibv_gid { raw: [0; 16] },
            Err(e) => return Err(e),
        }
        Ok(0)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_gid_ex(
    context: *mut ibv_context,
    port_num: u32,
    gid_index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
    entry_size: usize,
) -> c_int {
    entry!(errno, _ibv_query_gid_ex(context, port_num, gid_index, entry, flags, entry_size) {
        let ctx = self::context(context)?;
        if entry.is_null() || entry_size < size_of::<ibv_gid_entry>() || flags != 0 {
            return Err(Errno::EINVAL);
        }
        let e = ctx.ops.query_gid_ex(&ctx, port_num, gid_index, flags)?;
        // SAFETY: checked non-NULL and at least one entry long.
        unsafe { entry.write(e) };
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _ibv_query_gid_table(
    context: *mut ibv_context,
    entries: *mut ibv_gid_entry,
    max_entries: usize,
    flags: u32,
    entry_size: usize,
) -> isize {
    let r = entry!(minus_one, _ibv_query_gid_table(context, entries, max_entries, flags, entry_size) {
        let ctx = self::context(context)?;
        if entries.is_null() || entry_size < size_of::<ibv_gid_entry>() || flags != 0 {
            return Err(Errno::EINVAL);
        }
        let table = ctx.ops.query_gid_table(&ctx, max_entries, flags)?;
        for (i, e) in table.iter().take(max_entries).enumerate() {
            // SAFETY: the caller gives max_entries entries of entry_size bytes.
            unsafe { entries.byte_add(i * entry_size).write_unaligned(*e) };
        }
        Ok(table.len().min(max_entries) as c_int)
    });
    // This one reports failure as a negative errno.
    if r < 0 {
        -(crate::entry::Errno::last().0 as isize)
    } else {
        r as isize
    }
}

/// Not in verbs.h: rdma-core's private helper that librdmacm links against.
/// `gid_type` is enum ibv_gid_type_sysfs (0: IB/RoCE v1, 1: RoCE v2).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid_type(
    context: *mut ibv_context,
    port_num: u8,
    index: c_uint,
    gid_type: *mut u32,
) -> c_int {
    entry!(minus_one, ibv_query_gid_type(context, port_num, index, gid_type) {
        let ctx = self::context(context)?;
        // SAFETY: caller's out-parameter.
        let out = unsafe { arg_mut(gid_type)? };
        let e = ctx.ops.query_gid_ex(&ctx, port_num.into(), index, 0)?;
        *out = u32::from(e.gid_type == IBV_GID_TYPE_ROCE_V2);
        Ok(0)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_pkey(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    pkey: *mut __be16,
) -> c_int {
    entry!(minus_one, ibv_query_pkey(context, port_num, index, pkey) {
        let ctx = self::context(context)?;
        // SAFETY: caller's out-parameter.
        let out = unsafe { arg_mut(pkey)? };
        *out = ctx.ops.query_pkey(&ctx, port_num, index)?.to_be();
        Ok(0)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_get_pkey_index(
    context: *mut ibv_context,
    port_num: u8,
    pkey: __be16,
) -> c_int {
    entry!(minus_one, ibv_get_pkey_index(context, port_num, pkey) {
        let ctx = self::context(context)?;
        let want = u16::from_be(pkey);
        for i in 0.. {
            if ctx.ops.query_pkey(&ctx, port_num, i)? == want {
                return Ok(i);
            }
        }
        Err(Errno::ENOENT)
    })
}
