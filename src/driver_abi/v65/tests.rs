//! Our v65 structs against rdma-core 65's, fact by fact
//! (tests/abi/private65/facts.txt, recorded by gen.sh there): the structs
//! 65 kept as 34 has them are v34's, checked again here.

use super::*;
use crate::driver_abi::v34::tests::{facts, ops_rows, shared};
use std::collections::BTreeSet;
use std::mem::{offset_of, size_of};

const FACTS: &str = include_str!("../../../tests/abi/private65/facts.txt");

fn ours() -> BTreeSet<String> {
    let mut s = shared();
    let qp = |f: &str, off: usize, size: usize| format!("member verbs_qp.{f} {off} {size}");
    s.insert(format!("type verbs_qp {} 8", size_of::<verbs_qp>()));
    s.insert(qp("qp", 0, size_of::<ibv_qp>()));
    s.insert(qp("qp_ex", 0, size_of::<ibv_qp_ex>()));
    s.insert(qp("comp_mask", offset_of!(verbs_qp, comp_mask), 4));
    s.insert(qp("xrcd", offset_of!(verbs_qp, xrcd), 8));
    s.insert(format!("type verbs_dmah {} 8", size_of::<verbs_dmah>()));
    s.insert(format!(
        "member verbs_dmah.dmah 0 {}",
        size_of::<ibv_dmah>()
    ));
    s.insert(format!(
        "member verbs_dmah.handle {} 4",
        offset_of!(verbs_dmah, handle)
    ));
    let pa = size_of::<verbs_create_cq_prov_attr>();
    s.insert(format!("type verbs_create_cq_prov_attr {pa} 8"));
    s.insert(format!("member verbs_create_cq_prov_attr.buffer 0 {pa}"));
    s.insert(format!("type ibv_buf {} 8", size_of::<ibv_buf>()));
    for (f, off, size) in [
        ("addr", offset_of!(ibv_buf, addr), 8),
        ("size", offset_of!(ibv_buf, size), 8),
        ("pd", offset_of!(ibv_buf, pd), 8),
        ("dmabuf_fd", offset_of!(ibv_buf, dmabuf_fd), 4),
    ] {
        s.insert(format!("member ibv_buf.{f} {off} {size}"));
    }
    ops_rows(
        &mut s,
        size_of::<verbs_context_ops>(),
        verbs_context_ops::NAMES,
    );
    s
}

#[test]
fn layouts_match_rdma_core_65() {
    let facts = facts(FACTS);
    let ours = ours();
    let missing: Vec<_> = facts.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&facts).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:#?}\nextra {extra:#?}"
    );
    assert!(facts.len() > 200);
}

/// The row's numbers are the recorded ones: the host converts by them.
#[test]
fn the_row_matches_the_facts() {
    let f = facts(FACTS);
    assert!(f.contains(&format!(
        "member verbs_qp.comp_mask {} 4",
        V65_ROW.qp_ex_size
    )));
    assert_eq!(V65_ROW.ops.len() * 8, size_of::<verbs_context_ops>());
    assert_eq!(V65_ROW.context_growth, 6 * 8, "rdma-core 64's six slots");
}

/// A 65 table read as 34's: each slot by name, 65's own left out.
#[test]
#[allow(unsafe_code)]
fn ops_convert_by_name() {
    const W: usize = size_of::<usize>();
    let mut t = [0usize; size_of::<verbs_context_ops>() / W];
    for (i, w) in t.iter_mut().enumerate() {
        *w = 0x1000 + i;
    }
    // SAFETY: a table of 65's size.
    let v = unsafe { V65_ROW.ops_to_v34(t.as_ptr().cast()) };
    // SAFETY: the v34 table, word for word.
    let words: [usize; size_of::<crate::driver_abi::v34::verbs_context_ops>() / W] =
        unsafe { std::mem::transmute(v) };
    let names34 = crate::driver_abi::v34::verbs_context_ops::NAMES;
    for (n, w) in names34.iter().zip(words) {
        let i = V65_ROW
            .ops
            .iter()
            .position(|m| m == n)
            .expect("34's slot in 65");
        assert_eq!(w, 0x1000 + i, "{n}");
    }
}

use crate::driver_abi::V65 as V65_ROW;
