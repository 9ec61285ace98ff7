//! Facts of rdma-core 44's ib_spec_to_kern_spec (cmd.c) and ib_user_verbs.h as
//! test data. Kernel records (header: type 0, size 4; value at 8): eth 40
//! (mask 24), ipv4 24 (ibv_kern_spec_ipv4, mask 16), ipv4_ext 32 (sent as
//! IPV4, mask 20, filter up to `flags` = 12 bytes), ipv6 88 (mask 48, up to
//! `hop_limit` = 39), esp 24 (mask 16), tcp_udp 16 (mask 12), gre 24 (mask
//! 16), mpls 16 (mask 12), tunnel 16 (mask 12, 4), tag / handle / count 16
//! (value at 8), drop 8. `ib_uverbs_create_flow` is 24 bytes: qp_handle 4,
//! flow_attr at 8 (type 0, size 4, priority 6, num_of_specs 8, port 11,
//! flags 12). User specs: eth value 6 / mask 22, tcp_udp 6 / 10, others 8.

use super::*;

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_ne_bytes(b[off..off + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}

/// A user spec of `size` bytes: header, then bytes 1, 2, 3, ... after it.
fn spec(ty: u32, size: usize) -> Vec<u8> {
    let mut b: Vec<u8> = (0..size).map(|i| i as u8).collect();
    b[0..4].copy_from_slice(&ty.to_ne_bytes());
    b[4..6].copy_from_slice(&(size as u16).to_ne_bytes());
    b[6..8].fill(0);
    b
}

fn conv(b: &[u8]) -> Result<(Vec<u8>, usize)> {
    // SAFETY: our spec, its whole size readable.
    unsafe { kern_spec(b.as_ptr()) }
}

#[test]
fn eth_moves_value_and_mask() {
    let s = spec(0x20, 40);
    let (k, step) = conv(&s).unwrap();
    assert_eq!(
        (k.len(), step, u32_at(&k, 0), u16_at(&k, 4)),
        (40, 40, 0x20, 40)
    );
    assert_eq!(&k[8..24], &s[6..22]);
    assert_eq!(&k[24..40], &s[22..38]);
}

#[test]
fn tcp_udp_and_inner() {
    let s = spec(0x141, 16);
    let (k, _) = conv(&s).unwrap();
    assert_eq!((k.len(), u32_at(&k, 0)), (16, 0x141));
    assert_eq!((&k[8..12], &k[12..16]), (&s[6..10], &s[10..14]));
    // GRE and VXLAN have no inner form; actions neither.
    assert_eq!(conv(&spec(0x151, 24)).err(), Some(Errno::EINVAL));
    assert_eq!(conv(&spec(0x150, 16)).err(), Some(Errno::EINVAL));
    assert_eq!(conv(&spec(0x1234, 16)).err(), Some(Errno::EINVAL));
}

#[test]
fn ipv4_ext_travels_as_ipv4() {
    let s = spec(0x132, 32);
    let (k, _) = conv(&s).unwrap();
    assert_eq!((k.len(), u32_at(&k, 0), u16_at(&k, 4)), (32, 0x130, 32));
    assert_eq!(&k[8..20], &s[8..20]);
    assert_eq!(&k[20..32], &s[20..32]);
}

#[test]
fn longer_filters_need_a_zero_tail() {
    // IPv6 with 4 more filter bytes each side (size 8 + 2 * 44).
    let mut s = spec(0x31, 96);
    s[8 + 44..].fill(0);
    s[8 + 44..8 + 44 + 39].fill(0xff);
    let (k, step) = conv(&s).unwrap();
    assert_eq!((k.len(), step), (88, 96));
    assert_eq!(&k[8..47], &s[8..47]);
    assert!(k[48..87].iter().all(|&b| b == 0xff));
    assert_eq!(k[47], 0);
    s[8 + 44 + 40] = 1;
    assert_eq!(conv(&s).err(), Some(Errno::EOPNOTSUPP));
    // Shorter than up to hop_limit: EINVAL.
    assert_eq!(conv(&spec(0x31, 8 + 2 * 38)).err(), Some(Errno::EINVAL));
    assert_eq!(conv(&spec(0x50, 8)).err(), Some(Errno::EINVAL));
}

#[test]
fn actions() {
    let (k, _) = conv(&spec(0x1000, 12)).unwrap();
    assert_eq!(
        (k.len(), u32_at(&k, 8), u32_at(&k, 12)),
        (16, u32::from_ne_bytes([8, 9, 10, 11]), 0)
    );
    let (k, _) = conv(&spec(0x1001, 8)).unwrap();
    assert_eq!((k.len(), u16_at(&k, 4)), (8, 8));
    // SAFETY: plain C data.
    let mut a: verbs_flow_action = unsafe { std::mem::zeroed() };
    a.handle = 77;
    let mut s = spec(0x1002, 16);
    s[8..16].copy_from_slice(&((&raw mut a) as usize).to_ne_bytes());
    assert_eq!(u32_at(&conv(&s).unwrap().0, 8), 77);
    s[8..16].fill(0);
    assert_eq!(conv(&s).err(), Some(Errno::EINVAL));
}

#[test]
fn core_is_attr_then_specs() {
    // SAFETY: plain C data.
    let mut attr: ibv_flow_attr = unsafe { std::mem::zeroed() };
    attr.priority = 3;
    attr.num_of_specs = 2;
    attr.port = 1;
    attr.flags = 0x10;
    let mut buf = vec![0u8; size_of::<ibv_flow_attr>()];
    // SAFETY: our attributes, as bytes.
    buf.copy_from_slice(unsafe {
        std::slice::from_raw_parts((&raw const attr).cast::<u8>(), size_of::<ibv_flow_attr>())
    });
    buf.extend_from_slice(&spec(0x20, 40));
    buf.extend_from_slice(&spec(0x1001, 8));
    let mut words = vec![0u64; buf.len().div_ceil(8)];
    // SAFETY: copying into our aligned store.
    unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), words.as_mut_ptr().cast(), buf.len()) };
    // SAFETY: our attributes and specs.
    let c = unsafe { create_flow_core(words.as_ptr().cast(), 9) }.unwrap();
    assert_eq!(c.len(), 24 + 40 + 8);
    assert_eq!((u32_at(&c, 4), u16_at(&c, 12), u16_at(&c, 14)), (9, 48, 3));
    assert_eq!((c[16], c[19], u32_at(&c, 20)), (2, 1, 0x10));
    assert_eq!((u32_at(&c, 24), u32_at(&c, 64)), (0x20, 0x1001));
}
