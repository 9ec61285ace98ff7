//! `IBVERBS_PRIVATE_34`: the private provider ABI of rdma-core 34 to 44
//! (`libibverbs/driver.h`, `cmd_ioctl.h`), byte for byte: the host's own
//! layout, which later versions are converted to (`super::Pabi`). The layouts are
//! checked against facts recorded from rdma-core 44's headers
//! (tests/abi/private34/facts.txt) by the tests at the end.

use crate::abi::*;
use std::ffi::{c_char, c_int, c_uint, c_void};
#[allow(unused_imports)]
use std::mem::size_of;

/// rdma-core 44's `struct verbs_context`, the context a v34 plugin embeds:
/// ours less the op slots rdma-core 64 added at its front (the members after
/// them, `sz` and `context` included, keep their distance from the end). Our
/// code reaches the slots through [`with_ours`]; C reaches `context`.
#[repr(C)]
pub struct verbs_context {
    /// The op slots, `sz` and the rest, as in our layout's tail.
    pub head: [u8; SIZE_44 - size_of::<ibv_context>()],
    pub context: ibv_context,
}

/// `sizeof(struct verbs_context)` in rdma-core 44 (facts.txt).
pub const SIZE_44: usize = 648;
/// The bytes rdma-core 64 added in front of 44's slots.
pub const GROWTH: usize = size_of::<crate::abi::verbs_context>() - SIZE_44;
const _: () = assert!(size_of::<verbs_context>() == SIZE_44);

/// A v34 context copied into our layout: its bytes from [`GROWTH`] on, the
/// slots rdma-core 64 added (before them) zero.
///
/// # Safety
/// `v` points to a readable v34 context.
#[allow(unsafe_code)]
unsafe fn copy_in(v: *const verbs_context) -> crate::abi::verbs_context {
    // SAFETY: plain C data; all-zero is valid.
    let mut ours: crate::abi::verbs_context = unsafe { std::mem::zeroed() };
    let tail = (&raw mut ours).cast::<u8>().wrapping_add(GROWTH);
    // SAFETY: SIZE_44 bytes on both sides (the tail of ours, all of `v`).
    unsafe { std::ptr::copy_nonoverlapping(v.cast::<u8>(), tail, SIZE_44) };
    ours
}

/// The v34 part of an all-zero context of our layout after `fill`.
#[allow(unsafe_code)]
fn filled(fill: impl FnOnce(&mut crate::abi::verbs_context)) -> [u8; SIZE_44] {
    // SAFETY: plain C data; all-zero is valid.
    let mut ours: crate::abi::verbs_context = unsafe { std::mem::zeroed() };
    fill(&mut ours);
    let mut img = [0u8; SIZE_44];
    // SAFETY: SIZE_44 bytes from GROWTH on: the tail of `ours`.
    unsafe {
        let tail = (&raw const ours).cast::<u8>().add(GROWTH);
        std::ptr::copy_nonoverlapping(tail, img.as_mut_ptr(), SIZE_44);
    }
    img
}

/// The bytes of a v34 context that `fill` makes of an all-zero one of our
/// layout (with `sz` set): an image written into a fresh plugin context in
/// one copy, where [`with_ours`] would copy the context in and out.
pub fn image_of(fill: impl FnOnce(&mut crate::abi::verbs_context)) -> [u8; SIZE_44] {
    filled(|c| {
        fill(c);
        c.sz = SIZE_44;
    })
}

/// The pointer-sized words of the v34 part that `fill` sets (non-zero) on
/// an all-zero context of our layout, as (offset in the v34 struct, value):
/// a filler of constant slots, to be written straight into a plugin's
/// context with [`put_words`].
pub fn words_of(fill: impl FnOnce(&mut crate::abi::verbs_context)) -> Vec<(usize, usize)> {
    const W: usize = size_of::<usize>();
    filled(fill)
        .chunks_exact(W)
        .enumerate()
        .filter_map(|(i, w)| {
            let w = usize::from_ne_bytes(w.try_into().expect("one word"));
            (w != 0).then_some((i * W, w))
        })
        .collect()
}

/// Writes `words` (from [`words_of`]) into the v34 context at `v34`, each
/// as one store: other threads may read those slots meanwhile.
///
/// # Safety
/// `v34` points to a v34 context (pointer-aligned); no other thread writes
/// these words meanwhile.
#[allow(unsafe_code)]
#[inline]
pub unsafe fn put_words(v34: *mut u8, words: &[(usize, usize)]) {
    for &(off, w) in words {
        // SAFETY: an aligned word inside the v34 struct (per `words_of`).
        unsafe { v34.add(off).cast::<usize>().write_volatile(w) };
    }
}

/// Runs `f` on a copy of a v34 plugin's context in our layout (the slots
/// rdma-core 64 added are zero there: `sz` tells 64-header callers they are
/// absent) and writes the v34 part back.
///
/// # Safety
/// `v` points to a v34 context nobody else uses meanwhile (set-up time).
#[allow(unsafe_code)]
pub unsafe fn with_ours<R>(
    v: *mut verbs_context,
    f: impl FnOnce(&mut crate::abi::verbs_context) -> R,
) -> R {
    // SAFETY: per the contract.
    let mut ours = unsafe { copy_in(v) };
    let r = f(&mut ours);
    ours.sz = SIZE_44;
    let tail = (&raw const ours).cast::<u8>().wrapping_add(GROWTH);
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(tail, v.cast::<u8>(), SIZE_44) };
    r
}

/// As [`with_ours`] on a context in use (opened): writes back only the
/// pointer-sized words `f` changed, each as one store, so that the fields
/// other threads use meanwhile (fds, mutex, ...) are not rewritten. For
/// slot updates (verbs_set_ops after the open, as rdma-core allows).
///
/// # Safety
/// `v` points to a live v34 context; no other thread writes the words `f`
/// changes meanwhile.
#[allow(unsafe_code)]
pub unsafe fn update_ours<R>(
    v: *mut verbs_context,
    f: impl FnOnce(&mut crate::abi::verbs_context) -> R,
) -> R {
    // SAFETY: per the contract.
    let mut ours = unsafe { copy_in(v) };
    let before = ours;
    let r = f(&mut ours);
    const W: usize = size_of::<usize>();
    let (old, new) = (
        (&raw const before).cast::<u8>().wrapping_add(GROWTH),
        (&raw const ours).cast::<u8>().wrapping_add(GROWTH),
    );
    for i in (0..SIZE_44 / W).map(|i| i * W) {
        // SAFETY: words inside both copies (read unaligned: GROWTH need not
        // keep the copies' words aligned) and inside `v` (aligned: a C
        // struct of pointer alignment).
        unsafe {
            let n = new.add(i).cast::<usize>().read_unaligned();
            if old.add(i).cast::<usize>().read_unaligned() != n {
                v.cast::<u8>().add(i).cast::<usize>().write_volatile(n);
            }
        }
    }
    r
}

/// `struct list_node` (ccan/list.h).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct list_node {
    pub next: *mut list_node,
    pub prev: *mut list_node,
}

/// `struct verbs_match_ent`: one row of a plugin's match table.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_match_ent {
    pub driver_data: *mut c_void,
    /// `u.modalias` (a C string) or `u.driver_id`, by `kind`.
    pub u: u64,
    pub vendor: u16,
    pub device: u16,
    pub kind: u8,
}

/// `struct verbs_sysfs_dev`: a uverbs device found in sysfs, as a plugin's
/// `match_device`/`alloc_device` sees it.
#[repr(C)]
pub struct verbs_sysfs_dev {
    pub entry: list_node,
    pub provider_data: *mut c_void,
    pub r#match: *const verbs_match_ent,
    pub flags: c_uint,
    pub sysfs_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub sysfs_cdev: u64,
    pub ibdev_name: [c_char; IBV_SYSFS_NAME_MAX],
    pub ibdev_path: [c_char; IBV_SYSFS_PATH_MAX],
    pub modalias: [c_char; 512],
    pub node_guid: u64,
    pub driver_id: u32,
    pub node_type: ibv_node_type,
    pub ibdev_idx: c_int,
    pub num_ports: u32,
    pub abi_ver: u32,
    pub time_created: timespec,
}

/// `struct verbs_device_ops`: what a plugin registers.
#[repr(C)]
pub struct verbs_device_ops {
    pub name: *const c_char,
    pub match_min_abi_version: u32,
    pub match_max_abi_version: u32,
    pub match_table: *const verbs_match_ent,
    pub static_providers: *const *const verbs_device_ops,
    pub match_device: Option<unsafe extern "C" fn(sysfs_dev: *mut verbs_sysfs_dev) -> bool>,
    pub alloc_context: Option<
        unsafe extern "C" fn(
            device: *mut ibv_device,
            cmd_fd: c_int,
            private_data: *mut c_void,
        ) -> *mut verbs_context,
    >,
    pub import_context:
        Option<unsafe extern "C" fn(device: *mut ibv_device, cmd_fd: c_int) -> *mut verbs_context>,
    pub alloc_device:
        Option<unsafe extern "C" fn(sysfs_dev: *mut verbs_sysfs_dev) -> *mut verbs_device>,
    pub uninit_device: Option<unsafe extern "C" fn(device: *mut verbs_device)>,
}

/// `struct verbs_device`: the plugin allocates it (its own struct starts
/// with one); `device` is the `ibv_device` applications hold.
#[repr(C)]
pub struct verbs_device {
    pub device: ibv_device,
    pub ops: *const verbs_device_ops,
    pub refcount: c_int,
    pub entry: list_node,
    pub sysfs: *mut verbs_sysfs_dev,
    pub core_support: u64,
}

context_ops! {
    advise_mr: fn(*mut ibv_pd, ib_uverbs_advise_mr_advice, u32, *mut ibv_sge, u32) -> c_int,
    alloc_dm: fn(*mut ibv_context, *mut ibv_alloc_dm_attr) -> *mut ibv_dm,
    alloc_mw: fn(*mut ibv_pd, ibv_mw_type) -> *mut ibv_mw,
    alloc_null_mr: fn(*mut ibv_pd) -> *mut ibv_mr,
    alloc_parent_domain: fn(*mut ibv_context, *mut ibv_parent_domain_init_attr) -> *mut ibv_pd,
    alloc_pd: fn(*mut ibv_context) -> *mut ibv_pd,
    alloc_td: fn(*mut ibv_context, *mut ibv_td_init_attr) -> *mut ibv_td,
    async_event: fn(*mut ibv_context, *mut ibv_async_event),
    attach_counters_point_flow: fn(*mut ibv_counters, *mut ibv_counter_attach_attr, *mut ibv_flow) -> c_int,
    attach_mcast: fn(*mut ibv_qp, *const ibv_gid, u16) -> c_int,
    bind_mw: fn(*mut ibv_qp, *mut ibv_mw, *mut ibv_mw_bind) -> c_int,
    close_xrcd: fn(*mut ibv_xrcd) -> c_int,
    cq_event: fn(*mut ibv_cq),
    create_ah: fn(*mut ibv_pd, *mut ibv_ah_attr) -> *mut ibv_ah,
    create_counters: fn(*mut ibv_context, *mut ibv_counters_init_attr) -> *mut ibv_counters,
    create_cq: fn(*mut ibv_context, c_int, *mut ibv_comp_channel, c_int) -> *mut ibv_cq,
    create_cq_ex: fn(*mut ibv_context, *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex,
    create_flow: fn(*mut ibv_qp, *mut ibv_flow_attr) -> *mut ibv_flow,
    create_flow_action_esp: fn(*mut ibv_context, *mut ibv_flow_action_esp_attr) -> *mut ibv_flow_action,
    create_qp: fn(*mut ibv_pd, *mut ibv_qp_init_attr) -> *mut ibv_qp,
    create_qp_ex: fn(*mut ibv_context, *mut ibv_qp_init_attr_ex) -> *mut ibv_qp,
    create_rwq_ind_table: fn(*mut ibv_context, *mut ibv_rwq_ind_table_init_attr) -> *mut ibv_rwq_ind_table,
    create_srq: fn(*mut ibv_pd, *mut ibv_srq_init_attr) -> *mut ibv_srq,
    create_srq_ex: fn(*mut ibv_context, *mut ibv_srq_init_attr_ex) -> *mut ibv_srq,
    create_wq: fn(*mut ibv_context, *mut ibv_wq_init_attr) -> *mut ibv_wq,
    dealloc_mw: fn(*mut ibv_mw) -> c_int,
    dealloc_pd: fn(*mut ibv_pd) -> c_int,
    dealloc_td: fn(*mut ibv_td) -> c_int,
    dereg_mr: fn(*mut verbs_mr) -> c_int,
    destroy_ah: fn(*mut ibv_ah) -> c_int,
    destroy_counters: fn(*mut ibv_counters) -> c_int,
    destroy_cq: fn(*mut ibv_cq) -> c_int,
    destroy_flow: fn(*mut ibv_flow) -> c_int,
    destroy_flow_action: fn(*mut ibv_flow_action) -> c_int,
    destroy_qp: fn(*mut ibv_qp) -> c_int,
    destroy_rwq_ind_table: fn(*mut ibv_rwq_ind_table) -> c_int,
    destroy_srq: fn(*mut ibv_srq) -> c_int,
    destroy_wq: fn(*mut ibv_wq) -> c_int,
    detach_mcast: fn(*mut ibv_qp, *const ibv_gid, u16) -> c_int,
    free_context: fn(*mut ibv_context),
    free_dm: fn(*mut ibv_dm) -> c_int,
    get_srq_num: fn(*mut ibv_srq, *mut u32) -> c_int,
    import_dm: fn(*mut ibv_context, u32) -> *mut ibv_dm,
    import_mr: fn(*mut ibv_pd, u32) -> *mut ibv_mr,
    import_pd: fn(*mut ibv_context, u32) -> *mut ibv_pd,
    modify_cq: fn(*mut ibv_cq, *mut ibv_modify_cq_attr) -> c_int,
    modify_flow_action_esp: fn(*mut ibv_flow_action, *mut ibv_flow_action_esp_attr) -> c_int,
    modify_qp: fn(*mut ibv_qp, *mut ibv_qp_attr, c_int) -> c_int,
    modify_qp_rate_limit: fn(*mut ibv_qp, *mut ibv_qp_rate_limit_attr) -> c_int,
    modify_srq: fn(*mut ibv_srq, *mut ibv_srq_attr, c_int) -> c_int,
    modify_wq: fn(*mut ibv_wq, *mut ibv_wq_attr) -> c_int,
    open_qp: fn(*mut ibv_context, *mut ibv_qp_open_attr) -> *mut ibv_qp,
    open_xrcd: fn(*mut ibv_context, *mut ibv_xrcd_init_attr) -> *mut ibv_xrcd,
    poll_cq: fn(*mut ibv_cq, c_int, *mut ibv_wc) -> c_int,
    post_recv: fn(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
    post_send: fn(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr) -> c_int,
    post_srq_ops: fn(*mut ibv_srq, *mut ibv_ops_wr, *mut *mut ibv_ops_wr) -> c_int,
    post_srq_recv: fn(*mut ibv_srq, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
    query_device_ex: fn(*mut ibv_context, *const ibv_query_device_ex_input, *mut ibv_device_attr_ex, usize) -> c_int,
    query_ece: fn(*mut ibv_qp, *mut ibv_ece) -> c_int,
    query_port: fn(*mut ibv_context, u8, *mut ibv_port_attr) -> c_int,
    query_qp: fn(*mut ibv_qp, *mut ibv_qp_attr, c_int, *mut ibv_qp_init_attr) -> c_int,
    query_qp_data_in_order: fn(*mut ibv_qp, ibv_wr_opcode, u32) -> c_int,
    query_rt_values: fn(*mut ibv_context, *mut ibv_values_ex) -> c_int,
    query_srq: fn(*mut ibv_srq, *mut ibv_srq_attr) -> c_int,
    read_counters: fn(*mut ibv_counters, *mut u64, u32, u32) -> c_int,
    reg_dm_mr: fn(*mut ibv_pd, *mut ibv_dm, u64, usize, c_uint) -> *mut ibv_mr,
    reg_dmabuf_mr: fn(*mut ibv_pd, u64, usize, u64, c_int, c_int) -> *mut ibv_mr,
    reg_mr: fn(*mut ibv_pd, *mut c_void, usize, u64, c_int) -> *mut ibv_mr,
    req_notify_cq: fn(*mut ibv_cq, c_int) -> c_int,
    rereg_mr: fn(*mut verbs_mr, c_int, *mut ibv_pd, *mut c_void, usize, c_int) -> c_int,
    resize_cq: fn(*mut ibv_cq, c_int) -> c_int,
    set_ece: fn(*mut ibv_qp, *mut ibv_ece) -> c_int,
    unimport_dm: fn(*mut ibv_dm),
    unimport_mr: fn(*mut ibv_mr),
    unimport_pd: fn(*mut ibv_pd),
}

/// `sizeof(struct ibv_qp_ex)` in rdma-core 44: where `verbs_qp.comp_mask` is.
pub const QP_EX_SIZE: usize = 352;
/// The same in rdma-core 45..56: 45 appended `wr_flush` without a new
/// private ABI, so their v34 plugins' `verbs_qp` is 8 bytes longer there.
pub const QP_EX_SIZE_45: usize = QP_EX_SIZE + 8;

/// `struct verbs_xrcd`
#[repr(C)]
pub struct verbs_xrcd {
    pub xrcd: ibv_xrcd,
    pub comp_mask: u32,
    pub handle: u32,
}

/// `struct verbs_srq`
#[repr(C)]
pub struct verbs_srq {
    pub srq: ibv_srq,
    pub srq_type: ibv_srq_type,
    pub xrcd: *mut verbs_xrcd,
    pub cq: *mut ibv_cq,
    pub srq_num: u32,
}

/// rdma-core 44's `struct ibv_qp_ex` (352 bytes): ours less `wr_flush`,
/// which rdma-core 45 appended. A 44 plugin's QPs embed this one, so such a
/// hosted QP has no `wr_flush` slot (the plugin refuses
/// IBV_QP_EX_WITH_FLUSH, so no correct caller reaches for it); a 45..56
/// one's embed ours ([`QP_EX_SIZE_45`]), and the v34 commands' writes are
/// moved for them (`verbs::driver::on_qp`).
#[repr(C)]
pub struct ibv_qp_ex_44 {
    pub qp_base: ibv_qp,
    /// `comp_mask` to `wr_atomic_write`, as in ours.
    pub rest: [u64; (QP_EX_SIZE - size_of::<ibv_qp>()) / 8],
}
const _: () = assert!(size_of::<ibv_qp_ex_44>() == QP_EX_SIZE);

/// `struct verbs_qp`: `qp` and `qp_ex` share its start (`qp_ex.qp_base`).
#[repr(C)]
pub struct verbs_qp {
    pub qp_ex: ibv_qp_ex_44,
    pub comp_mask: u32,
    pub xrcd: *mut verbs_xrcd,
}

/// `struct verbs_cq`: `cq` and `cq_ex` share its start.
#[repr(C)]
pub struct verbs_cq {
    pub cq_ex: ibv_cq_ex,
}

/// `enum ibv_mr_type`
pub const IBV_MR_TYPE_MR: u32 = 0;
pub const IBV_MR_TYPE_NULL_MR: u32 = 1;
pub const IBV_MR_TYPE_IMPORTED_MR: u32 = 2;
pub const IBV_MR_TYPE_DMABUF_MR: u32 = 3;

/// `struct verbs_mr`
#[repr(C)]
pub struct verbs_mr {
    pub ibv_mr: ibv_mr,
    pub mr_type: u32,
    pub access: c_int,
}

/// `struct verbs_dm`
#[repr(C)]
pub struct verbs_dm {
    pub dm: ibv_dm,
    pub handle: u32,
}

/// `struct verbs_flow_action`
#[repr(C)]
pub struct verbs_flow_action {
    pub action: ibv_flow_action,
    pub handle: u32,
    pub r#type: u32,
}

/// `struct verbs_counters`
#[repr(C)]
pub struct verbs_counters {
    pub counters: ibv_counters,
    pub handle: u32,
}

/// `struct ib_uverbs_attr` (rdma_user_ioctl_cmds.h); `attr_data` is the
/// `enum_data.elem_id`/`reserved` pair.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct ib_uverbs_attr {
    pub attr_id: u16,
    pub len: u16,
    pub flags: u16,
    pub attr_data: u16,
    pub data: u64,
}

/// `struct ib_uverbs_ioctl_hdr`, followed by its attributes.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct ib_uverbs_ioctl_hdr {
    pub length: u16,
    pub object_id: u16,
    pub method_id: u16,
    pub num_attrs: u16,
    pub reserved1: u64,
    pub driver_id: u32,
    pub reserved2: u32,
}

/// `struct ibv_command_buffer` (cmd_ioctl.h): the ioctl command a plugin
/// builds on its stack, attributes right after `hdr`, chained by `next`.
/// `flags` holds the bit-fields `buffer_error` (bit 0),
/// `fallback_require_ex` (1) and `fallback_ioctl_only` (2).
#[repr(C)]
pub struct ibv_command_buffer {
    pub next: *mut ibv_command_buffer,
    pub next_attr: *mut ib_uverbs_attr,
    pub last_attr: *mut ib_uverbs_attr,
    pub uhw_in_idx: u8,
    pub uhw_out_idx: u8,
    pub uhw_in_headroom_dwords: u8,
    pub uhw_out_headroom_dwords: u8,
    pub flags: u8,
    pub hdr: ib_uverbs_ioctl_hdr,
}

pub const CMDB_BUFFER_ERROR: u8 = 1 << 0;
pub const CMDB_FALLBACK_REQUIRE_EX: u8 = 1 << 1;
pub const CMDB_FALLBACK_IOCTL_ONLY: u8 = 1 << 2;
/// `_UHW_NO_INDEX`: no UHW attribute in this buffer.
pub const UHW_NO_INDEX: u8 = 0xff;

impl ibv_command_buffer {
    /// Where this buffer's attributes start (right after the struct).
    pub fn attrs(this: *mut ibv_command_buffer) -> *mut ib_uverbs_attr {
        this.wrapping_add(1).cast()
    }
}

#[cfg(test)]
pub(crate) mod tests;
