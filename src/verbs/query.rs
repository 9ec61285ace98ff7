//! Device, port, GID and P_Key queries.

use crate::abi::*;
use crate::context::Context;
use crate::context::generic;
use crate::context::generic::gid::{GID_ATTR_ALL, GID_ENTRY_SIZE, entry_bytes};
use crate::entry::{Errno, Result, arg_mut};
use crate::object;
use std::ffi::{c_int, c_uint};

/// The context for the duration of a query (no `Arc` to keep).
fn context(p: *mut ibv_context) -> Result<object::Held<Context>> {
    object::hold::<Context>(p)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_device(
    context: *mut ibv_context,
    device_attr: *mut ibv_device_attr,
) -> c_int {
    let ctx = self::context(context)?;
    // SAFETY: caller's out-parameter.
    let attr = unsafe { arg_mut(device_attr)? };
    ctx.ops.query_device(&ctx, attr)
}

/// Fills the first `attr_size` bytes of a caller's `ibv_device_attr_ex`, as
/// the verbs_context slot does: everything zeroed (also on failure), then
/// what the caller's size covers.
///
/// # Safety
/// A non-NULL `out` must have `attr_size` writable bytes.
#[inline]
pub(crate) unsafe fn query_device_ex_into(
    ctx: &Context,
    input: Option<&ibv_query_device_ex_input>,
    out: *mut ibv_device_attr_ex,
    attr_size: usize,
) -> Result<()> {
    if input.is_some_and(|i| i.comp_mask != 0) {
        return Err(Errno::EINVAL);
    }
    if out.is_null() || attr_size < size_of::<ibv_device_attr>() {
        return Err(Errno::EINVAL);
    }
    let full_size = size_of::<ibv_device_attr_ex>();
    if attr_size >= full_size {
        // Only what lies beyond our struct is zeroed here: the op zeroes the
        // struct itself before filling it (generic::device::query_device_any,
        // ibv_cmd_query_device_any's for a plugin), and query_device_ex_full
        // on failure; zeroing it here as well was a second ~400-byte memset.
        // (A caller's struct of our size has no tail: no memset call.)
        if attr_size > full_size {
            // SAFETY: the caller gives attr_size writable bytes at out.
            unsafe {
                std::ptr::write_bytes(out.cast::<u8>().add(full_size), 0, attr_size - full_size)
            };
        }
        // SAFETY: the whole struct is there, plain C data any bytes are a
        // valid value of, and the caller lends it for this call.
        let attr = unsafe { &mut *out };
        return query_device_ex_full(ctx, attr, attr_size);
    }
    // An older caller's smaller struct: fill a whole one, copy its part.
    let mut full = generic::device::zeroed_attr_ex();
    let r = query_device_ex_full(ctx, &mut full, attr_size);
    // SAFETY: the caller gives attr_size writable bytes at out.
    unsafe { write_prefix(&full, out, attr_size) };
    r
}

/// The provider's extended query (which zeroes `attr` first), else its base one.
/// On failure `attr` is all zero again.
#[inline]
fn query_device_ex_full(ctx: &Context, attr: &mut ibv_device_attr_ex, size: usize) -> Result<()> {
    let r = match ctx.ops.query_device_ex(ctx, attr, size) {
        Err(Errno::EOPNOTSUPP | Errno::ENOSYS) => {
            *attr = generic::device::zeroed_attr_ex();
            ctx.ops.query_device(ctx, &mut attr.orig_attr)
        }
        r => r,
    };
    if r.is_err() {
        *attr = generic::device::zeroed_attr_ex();
    }
    r
}

/// The same as the inline in verbs.h, exported for FFI users that cannot use
/// inline functions. Uses this library's `ibv_device_attr_ex` size.
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
) -> c_int {
    let ctx = self::context(context)?;
    // SAFETY: optional input from the caller.
    let input = unsafe { input.as_ref() };
    // SAFETY: the caller's struct of this library's size.
    unsafe { query_device_ex_into(&ctx, input, attr, size_of::<ibv_device_attr_ex>()) }
}

/// Copies the first `len` bytes of `full` (at most all of it) to `out`: how a
/// caller built against an older, smaller struct gets its part.
///
/// # Safety
/// `out` must have `len` writable bytes.
unsafe fn write_prefix<T>(full: &T, out: *mut T, len: usize) {
    let n = len.min(size_of::<T>());
    // SAFETY: `full` is n readable bytes; the caller vouches for `out`.
    unsafe { std::ptr::copy_nonoverlapping((full as *const T).cast::<u8>(), out.cast::<u8>(), n) };
}

/// Size of the port attributes of programs built before port_cap_flags2.
const COMPAT_PORT_ATTR_LEN: usize = 48;
/// Size of rdma-core 44's `ibv_port_attr` (64 added `active_speed_ex`).
const PORT_ATTR_LEN_44: usize = 52;

/// Fills the first `len` bytes of a caller's port attributes. A caller with
/// the whole struct (or more) has it zeroed first, even if the query fails.
///
/// # Safety
/// A non-NULL `out` must have `len` writable bytes.
pub(crate) unsafe fn query_port_into(
    ctx: &Context,
    port: u8,
    out: *mut ibv_port_attr,
    len: usize,
) -> Result<()> {
    if out.is_null() {
        return Err(Errno::EINVAL);
    }
    // From rdma-core 44's size on (52 bytes, through port_cap_flags2), as both
    // 44 and 64 do for callers built against their own header.
    if len >= PORT_ATTR_LEN_44 {
        // SAFETY: the caller gives `len` writable bytes at `out`.
        unsafe { std::ptr::write_bytes(out.cast::<u8>(), 0, len) };
    }
    // SAFETY: plain C data; all-zero is valid.
    let mut full: ibv_port_attr = unsafe { std::mem::zeroed() };
    ctx.ops.query_port(ctx, port, &mut full)?;
    // SAFETY: the caller gives `len` writable bytes at `out`.
    unsafe { write_prefix(&full, out, len) };
    Ok(())
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut _compat_ibv_port_attr,
) -> c_int {
    let ctx = self::context(context)?;
    // SAFETY: callers of this symbol pass the old, shorter port attributes.
    unsafe { query_port_into(&ctx, port_num, port_attr.cast(), COMPAT_PORT_ATTR_LEN) }
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_query_gid(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    gid: *mut ibv_gid,
) -> c_int {
    let ctx = self::context(context)?;
    // SAFETY: caller's out-parameter.
    let gid = unsafe { arg_mut(gid)? };
    // A negative index reaches the kernel as a huge one, as in rdma-core.
    let raw = generic::gid::query_gid(&ctx, port_num.into(), index as u32)?;
    *gid = ibv_gid { raw };
    Ok(0)
}

/// The most an ioctl attribute can carry.
const MAX_ATTR_LEN: usize = u16::MAX as usize;

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn _ibv_query_gid_ex(
    context: *mut ibv_context,
    port_num: u32,
    gid_index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
    entry_size: usize,
) -> c_int {
    let ctx = self::context(context)?;
    // The kernel takes entries of at least its own size (the tail zeroed).
    if !(GID_ENTRY_SIZE..=MAX_ATTR_LEN).contains(&entry_size) {
        return Err(Errno::EINVAL);
    }
    let e = generic::gid::query_gid_ex(&ctx, port_num, gid_index, flags, GID_ATTR_ALL)?;
    if entry.is_null() {
        // Where the kernel's copy-out would fault.
        return Err(Errno::EFAULT);
    }
    let b = entry_bytes(&e);
    // SAFETY: the caller gives entry_size (>= GID_ENTRY_SIZE) writable bytes at entry.
    unsafe {
        let p = entry.cast::<u8>();
        std::ptr::copy_nonoverlapping(b.as_ptr(), p, GID_ENTRY_SIZE);
        std::ptr::write_bytes(p.add(GID_ENTRY_SIZE), 0, entry_size - GID_ENTRY_SIZE);
    }
    Ok(())
}

#[unsafe(no_mangle)]
#[entry(neg_errno)]
pub unsafe extern "C" fn _ibv_query_gid_table(
    context: *mut ibv_context,
    entries: *mut ibv_gid_entry,
    max_entries: usize,
    flags: u32,
    entry_size: usize,
) -> isize {
    let ctx = self::context(context)?;
    let len = entry_size
        .checked_mul(max_entries)
        .filter(|&l| l <= MAX_ATTR_LEN)
        .ok_or(Errno::EINVAL)?;
    let n = if entries.is_null() {
        // The kernel fills a table it then cannot copy out (EFAULT),
        // unless it is empty.
        let mut tmp = vec![0u8; len];
        match generic::gid::query_gid_table(&ctx, &mut tmp, entry_size, flags)? {
            0 => 0,
            _ => return Err(Errno::EFAULT),
        }
    } else {
        // SAFETY: the caller gives max_entries entries of entry_size bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(entries.cast::<u8>(), len) };
        generic::gid::query_gid_table(&ctx, out, entry_size, flags)?
    };
    isize::try_from(n).map_err(|_| Errno(libc::EOVERFLOW))
}

/// Not in verbs.h: rdma-core's private helper that librdmacm links against.
/// `gid_type` is enum ibv_gid_type_sysfs (0: IB/RoCE v1, 1: RoCE v2).
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_query_gid_type(
    context: *mut ibv_context,
    port_num: u8,
    index: c_uint,
    gid_type: *mut u32,
) -> c_int {
    let ctx = self::context(context)?;
    // SAFETY: caller's out-parameter.
    let out = unsafe { arg_mut(gid_type)? };
    *out = generic::gid::query_gid_type_sysfs(&ctx, port_num.into(), index)?;
    Ok(0)
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_query_pkey(
    context: *mut ibv_context,
    port_num: u8,
    index: c_int,
    pkey: *mut __be16,
) -> c_int {
    let ctx = self::context(context)?;
    // SAFETY: caller's out-parameter.
    let out = unsafe { arg_mut(pkey)? };
    *out = generic::pkey::query_pkey(&ctx, port_num, index)?.to_be();
    Ok(0)
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_get_pkey_index(
    context: *mut ibv_context,
    port_num: u8,
    pkey: __be16,
) -> c_int {
    let ctx = self::context(context)?;
    let want = u16::from_be(pkey);
    for i in 0.. {
        if generic::pkey::query_pkey(&ctx, port_num, i)? == want {
            return Ok(i);
        }
    }
    Err(Errno::ENOENT)
}
