//! Our structs against rdma-core 44's, fact by fact (tests/abi/private34/facts.txt,
//! recorded from rdma-core's v44.0 headers by gen.sh there).

use super::*;
use std::collections::BTreeSet;
use std::mem::{align_of, offset_of, size_of};

const FACTS: &str = include_str!("../../../tests/abi/private34/facts.txt");

fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

macro_rules! rows {
    ($out:ident; $($t:ident { $($f:ident $(as $c:literal)?),* $(,)? })*) => {$(
        $out.insert(format!("type {} {} {}", stringify!($t), size_of::<$t>(), align_of::<$t>()));
        $(
            #[allow(unused_variables)]
            let name = stringify!($f).trim_start_matches("r#");
            $(let name = $c;)?
            $out.insert(format!(
                "member {}.{} {} {}",
                stringify!($t), name, offset_of!($t, $f), field_size(|s: &$t| &s.$f)
            ));
        )*
    )*};
}

fn ours() -> BTreeSet<String> {
    let mut s = shared();
    rows!(s; verbs_qp { qp_ex, comp_mask, xrcd });
    s.insert(format!("member verbs_qp.qp 0 {}", size_of::<ibv_qp>()));
    ops_rows(
        &mut s,
        size_of::<verbs_context_ops>(),
        verbs_context_ops::NAMES,
    );
    s
}

/// The op table's rows: one pointer per name, in order.
pub(in crate::driver_abi) fn ops_rows(s: &mut BTreeSet<String>, size: usize, names: &[&str]) {
    s.insert(format!("type verbs_context_ops {size} 8"));
    for (i, n) in names.iter().enumerate() {
        s.insert(format!("member verbs_context_ops.{n} {} 8", i * 8));
    }
}

/// The rows of the structs every later version keeps as 34 has them.
pub(in crate::driver_abi) fn shared() -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    rows!(s;
        verbs_device_ops { name, match_min_abi_version, match_max_abi_version, match_table,
            static_providers, match_device, alloc_context, import_context, alloc_device,
            uninit_device }
        verbs_match_ent { driver_data, u, vendor, device, kind }
        verbs_sysfs_dev { entry, provider_data, r#match, flags, sysfs_name, sysfs_cdev,
            ibdev_name, ibdev_path, modalias, node_guid, driver_id, node_type, ibdev_idx,
            num_ports, abi_ver, time_created }
        verbs_device { device, ops, refcount, entry, sysfs, core_support }
        verbs_xrcd { xrcd, comp_mask, handle }
        verbs_srq { srq, srq_type, xrcd, cq, srq_num }
        verbs_cq { cq_ex }
        verbs_mr { ibv_mr, mr_type, access }
        verbs_dm { dm, handle }
        verbs_flow_action { action, handle, r#type }
        verbs_counters { counters, handle }
        ibv_command_buffer { next, next_attr, last_attr, uhw_in_idx, uhw_out_idx,
            uhw_in_headroom_dwords, uhw_out_headroom_dwords, hdr }
        ib_uverbs_attr { attr_id, len, flags, attr_data, data }
        ib_uverbs_ioctl_hdr { length, object_id, method_id, num_attrs, reserved1, driver_id,
            reserved2 }
        list_node { next, prev }
    );
    // The union heads C names twice, at offset 0 (the larger one is ours).
    s.insert(format!("member verbs_cq.cq 0 {}", size_of::<ibv_cq>()));
    s.insert("member ib_uverbs_attr.data_s64 8 8".into());
    // The bit-fields share our `flags` byte.
    let f = offset_of!(ibv_command_buffer, flags);
    for (bit, n) in ["buffer_error", "fallback_require_ex", "fallback_ioctl_only"]
        .iter()
        .enumerate()
    {
        s.insert(format!("member ibv_command_buffer.{n} {f}:{bit} 1b"));
    }
    s.insert("member ib_uverbs_ioctl_hdr.attrs 24 0".into());
    s
}

/// The fact lines of a facts.txt.
pub(in crate::driver_abi) fn facts(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn layouts_match_rdma_core_44() {
    let facts = facts(FACTS);
    let ours = ours();
    let missing: Vec<_> = facts.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&facts).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:#?}\nextra {extra:#?}"
    );
    assert!(facts.len() > 180);
}

/// A filler's image and its words put into a zeroed v34 context both give
/// what running it on a copy in our layout ([`with_ours`]) gives.
#[test]
#[allow(unsafe_code)]
fn image_and_words_match_with_ours() {
    let fill = |o: &mut crate::abi::verbs_context| {
        crate::context::dummy::fill_verbs_context(o);
        o.context.async_fd = -1;
    };
    // SAFETY: plain C data; all-zero is valid.
    let mut want: verbs_context = unsafe { std::mem::zeroed() };
    // SAFETY: our own context.
    unsafe { with_ours(&mut want, fill) };
    let bytes = |v: &verbs_context| {
        // SAFETY: plain C data of SIZE_44 bytes.
        unsafe { std::slice::from_raw_parts((v as *const verbs_context).cast::<u8>(), SIZE_44) }
            .to_vec()
    };
    assert_eq!(image_of(fill).to_vec(), bytes(&want));
    // SAFETY: as above.
    let mut got: verbs_context = unsafe { std::mem::zeroed() };
    let words = words_of(fill);
    assert!(words.len() > 40, "every dummy slot and the fd");
    // SAFETY: our own context.
    unsafe { put_words((&raw mut got).cast(), &words) };
    got.head[SIZE_44 - size_of::<crate::abi::ibv_context>() - 8..]
        .copy_from_slice(&SIZE_44.to_ne_bytes());
    assert_eq!(bytes(&got), bytes(&want));
}
