//! Hand-built kernel replies fed to the parser and the exchange logic.

use std::collections::VecDeque;

use super::msg::*;
use super::nldev::*;
use super::query::{Conn, Transport, process};
use super::*;
use crate::entry::Errno;

// ---- building replies ------------------------------------------------------------

fn attr(ty: u16, data: &[u8]) -> Vec<u8> {
    let mut v = ((NLA_HDRLEN + data.len()) as u16).to_ne_bytes().to_vec();
    v.extend_from_slice(&ty.to_ne_bytes());
    v.extend_from_slice(data);
    v.resize(align4(v.len()), 0);
    v
}

fn a_u8(ty: u16, x: u8) -> Vec<u8> {
    attr(ty, &[x])
}
fn a_u32(ty: u16, x: u32) -> Vec<u8> {
    attr(ty, &x.to_ne_bytes())
}
fn a_u64(ty: u16, x: u64) -> Vec<u8> {
    attr(ty, &x.to_ne_bytes())
}
fn a_str(ty: u16, s: &str) -> Vec<u8> {
    attr(ty, format!("{s}\0").as_bytes())
}

fn nlmsg(ty: u16, flags: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
    let mut v = ((NLMSG_HDRLEN + payload.len()) as u32)
        .to_ne_bytes()
        .to_vec();
    v.extend_from_slice(&ty.to_ne_bytes());
    v.extend_from_slice(&flags.to_ne_bytes());
    v.extend_from_slice(&seq.to_ne_bytes());
    v.extend_from_slice(&1234u32.to_ne_bytes());
    v.extend_from_slice(payload);
    v.resize(align4(v.len()), 0);
    v
}

fn err_msg(seq: u32, errno: i32) -> Vec<u8> {
    let mut p = (-errno).to_ne_bytes().to_vec();
    p.extend_from_slice(&[0; 16]); // the echoed request header
    nlmsg(NLMSG_ERROR, 0, seq, &p)
}

fn done_msg(seq: u32) -> Vec<u8> {
    nlmsg(NLMSG_DONE, NLM_F_MULTI, seq, &0i32.to_ne_bytes())
}

fn dev_attrs(index: u32, name: &str) -> Vec<u8> {
    [
        a_u32(ATTR_DEV_INDEX, index),
        a_str(ATTR_DEV_NAME, name),
        a_u32(ATTR_PORT_INDEX, 1),
        a_str(ATTR_FW_VERSION, "1.0.0"),
        a_u64(ATTR_NODE_GUID, 0x5054_00ff_fe12_3456),
        a_u64(ATTR_SYS_IMAGE_GUID, 0x5054_00ff_fe12_3456),
        a_u8(ATTR_DEV_NODE_TYPE, 1),
        a_str(ATTR_DEV_PROTOCOL, "roce"),
    ]
    .concat()
}

fn dev_msg(seq: u32, index: u32, name: &str) -> Vec<u8> {
    nlmsg(CMD_GET, NLM_F_MULTI, seq, &dev_attrs(index, name))
}

fn uverbs_msg(seq: u32, name: &str, cdev: u64) -> Vec<u8> {
    let p = [
        a_str(ATTR_CHARDEV_NAME, name),
        a_u64(ATTR_CHARDEV_ABI, 1),
        a_u64(ATTR_CHARDEV, cdev),
        a_u32(ATTR_UVERBS_DRIVER_ID, 16),
    ]
    .concat();
    nlmsg(CMD_GET_CHARDEV, 0, seq, &p)
}

/// Replays datagrams (an empty queue is a receive timeout) and records requests.
#[derive(Default)]
struct Script {
    sent: Vec<Vec<u8>>,
    replies: VecDeque<Vec<u8>>,
}

impl Script {
    fn new(replies: Vec<Vec<u8>>) -> Conn<Script> {
        Conn::new(Script {
            sent: Vec::new(),
            replies: replies.into(),
        })
    }
}

impl Transport for Script {
    fn send(&mut self, req: &[u8]) -> crate::entry::Result<()> {
        self.sent.push(req.to_vec());
        Ok(())
    }
    fn recv(&mut self, buf: &mut [u8]) -> crate::entry::Result<usize> {
        let d = self.replies.pop_front().ok_or(Errno(libc::EAGAIN))?;
        let n = d.len().min(buf.len());
        buf[..n].copy_from_slice(&d[..n]);
        Ok(d.len())
    }
}

fn run(dgram: &[u8], seq: u32) -> crate::entry::Result<(bool, usize)> {
    let mut count = 0;
    let done = process(dgram, seq, &mut count, &mut |_| Ok(()))?;
    Ok((done, count))
}

// ---- wire format -----------------------------------------------------------------

#[test]
fn request_layout() {
    let r = Request::new(CMD_GET_CHARDEV, 0, 7)
        .put_u32(ATTR_DEV_INDEX, 3)
        .put_str(ATTR_CHARDEV_TYPE, "uverbs")
        .finish();
    assert_eq!(r.len(), 16 + 8 + 12);
    let m = split(&r).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0].ty, m[0].flags, m[0].seq),
        (CMD_GET_CHARDEV, NLM_F_REQUEST, 7)
    );
    assert_eq!(CMD_GET_CHARDEV, 5 * 1024 + 15);
    let a = Attrs::parse(m[0].payload).unwrap();
    assert_eq!(a.u32(ATTR_DEV_INDEX), Some(3));
    assert_eq!(a.get(ATTR_CHARDEV_TYPE), Some(&b"uverbs\0"[..]));
    let dump = Request::new(CMD_GET, NLM_F_DUMP, 1).finish();
    assert_eq!(split(&dump).unwrap()[0].flags, NLM_F_REQUEST | NLM_F_DUMP);
}

#[test]
fn split_messages() {
    let d = [dev_msg(1, 1, "rxe0"), done_msg(1), vec![0; 8]].concat();
    let m = split(&d).unwrap();
    assert_eq!(
        m.len(),
        2,
        "trailing padding shorter than a header is ignored"
    );
    assert_eq!(m[1].ty, NLMSG_DONE);
    assert!(split(&[]).unwrap().is_empty());
    // A header claiming more than the datagram holds, or less than itself.
    let whole = dev_msg(1, 1, "rxe0");
    assert_eq!(split(&whole[..whole.len() - 4]).err(), Some(Errno::EINVAL));
    let mut short = done_msg(1);
    short[..4].copy_from_slice(&8u32.to_ne_bytes());
    assert_eq!(split(&short).err(), Some(Errno::EINVAL));
}

#[test]
fn attrs_parse() {
    let p = [
        a_u8(ATTR_DEV_NODE_TYPE, 4),
        a_u32(ATTR_DEV_INDEX, 1),
        a_u32(ATTR_DEV_INDEX | 0x8000, 2), // nested flag is masked; last one wins
        a_u32(200, 9),                     // beyond MAX_ATTR: ignored
        a_str(ATTR_DEV_NAME, "mlx5_0"),
        attr(ATTR_FW_VERSION, b"no-nul"),
        attr(ATTR_DEV_PROTOCOL, b"\xff\0"),
        attr(ATTR_NODE_GUID, &[1, 2, 3]),
    ]
    .concat();
    let a = Attrs::parse(&p).unwrap();
    assert_eq!(a.u8(ATTR_DEV_NODE_TYPE), Some(4));
    assert_eq!(a.u32(ATTR_DEV_INDEX), Some(2));
    assert_eq!(a.str(ATTR_DEV_NAME), Some("mlx5_0"));
    assert_eq!(a.str(ATTR_FW_VERSION), None, "unterminated");
    assert_eq!(a.str(ATTR_DEV_PROTOCOL), None, "not UTF-8");
    assert_eq!(a.u64(ATTR_NODE_GUID), None, "too short");
    assert_eq!(a.u32(ATTR_PORT_INDEX), None, "absent");
    // The last attribute needs no padding.
    assert!(Attrs::parse(&attr(1, &[7])[..5]).is_ok());
}

#[test]
fn attrs_bad_lengths() {
    let mut bad = a_u32(ATTR_DEV_INDEX, 1);
    bad[..2].copy_from_slice(&3u16.to_ne_bytes());
    assert!(Attrs::parse(&bad).is_err(), "length below the header");
    bad[..2].copy_from_slice(&12u16.to_ne_bytes());
    assert!(Attrs::parse(&bad).is_err(), "length past the payload");
    for tail in 1..4 {
        let p = [a_u32(1, 1), vec![4; tail]].concat();
        assert!(Attrs::parse(&p).is_err(), "{tail} stray bytes");
    }
}

#[test]
fn error_codes() {
    assert_eq!(error_code(&(-22i32).to_ne_bytes()), Ok(22));
    assert_eq!(error_code(&0i32.to_ne_bytes()), Ok(0));
    assert_eq!(error_code(&5i32.to_ne_bytes()), Ok(libc::EIO));
    assert_eq!(error_code(&i32::MIN.to_ne_bytes()), Ok(libc::EIO));
    assert_eq!(error_code(&[0, 0]), Err(Errno::EINVAL));
}

#[test]
fn garbage_never_panics() {
    // Every truncation and single-byte corruption of a valid datagram, plus noise.
    let good = [dev_msg(1, 1, "rxe0"), dev_msg(1, 2, "rxe1"), done_msg(1)].concat();
    let mut all = Vec::new();
    let step = if cfg!(miri) { 7 } else { 1 };
    for n in (0..good.len()).step_by(step) {
        all.push(good[..n].to_vec());
        for x in [0u8, 1, 3, 0x7f, 0xff] {
            let mut c = good.clone();
            c[n] = x;
            all.push(c);
        }
    }
    let mut s = 0x1234_5678u32;
    // Fewer under Miri, which interprets every step (the fuzz target
    // netlink_replies covers far more).
    for len in 0..if cfg!(miri) { 100 } else { 2000 } {
        all.push(
            (0..len % 300)
                .map(|_| {
                    s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (s >> 16) as u8
                })
                .collect(),
        );
    }
    for d in &all {
        let mut count = 0;
        let _ = process(d, 1, &mut count, &mut |a| decode_device(a).map(drop));
    }
}

// ---- exchanges -------------------------------------------------------------------

#[test]
fn dump_over_datagrams() {
    let mut c = Script::new(vec![
        [dev_msg(1, 1, "rxe0"), dev_msg(1, 2, "siw0")].concat(),
        [nlmsg(NLMSG_NOOP, 0, 1, &[]), dev_msg(1, 5, "mlx5_0")].concat(),
        done_msg(1),
    ]);
    let devs = c.get_devices().unwrap();
    let names: Vec<_> = devs.iter().map(|d| (d.index, d.name.as_str())).collect();
    assert_eq!(names, [(1, "rxe0"), (2, "siw0"), (5, "mlx5_0")]);
    let d = &devs[0];
    assert_eq!(
        (d.node_type, d.node_guid, d.num_ports),
        (1, 0x5054_00ff_fe12_3456, 1)
    );
    assert_eq!(d.fw_version.as_deref(), Some("1.0.0"));
    assert_eq!(d.protocol.as_deref(), Some("roce"));
}

#[test]
fn stale_replies_are_skipped() {
    // Replies to an earlier sequence number (e.g. after a timeout) do not count.
    let d = [
        dev_msg(9, 1, "old0"),
        err_msg(9, libc::EPERM),
        dev_msg(1, 2, "new0"),
    ]
    .concat();
    assert_eq!(run(&d, 1), Ok((false, 1)));
    assert_eq!(run(&done_msg(9), 1), Ok((false, 0)));
}

#[test]
fn end_conditions() {
    assert_eq!(run(&err_msg(1, libc::EPERM), 1), Err(Errno::EPERM));
    assert_eq!(run(&err_msg(1, 0), 1), Ok((true, 0)), "an ACK ends it");
    assert_eq!(run(&nlmsg(NLMSG_ERROR, 0, 1, &[1]), 1), Err(Errno::EINVAL));
    let failed_dump = nlmsg(NLMSG_DONE, NLM_F_MULTI, 1, &(-libc::ENOMEM).to_ne_bytes());
    assert_eq!(run(&failed_dump, 1), Err(Errno::ENOMEM));
    assert_eq!(
        run(&nlmsg(NLMSG_DONE, 0, 1, &[]), 1),
        Ok((true, 0)),
        "old DONE"
    );
    assert_eq!(run(&nlmsg(NLMSG_OVERRUN, 0, 1, &[]), 1), Err(Errno::EIO));
    let intr = nlmsg(
        CMD_GET,
        NLM_F_MULTI | NLM_F_DUMP_INTR,
        1,
        &dev_attrs(1, "a"),
    );
    assert_eq!(run(&intr, 1), Err(Errno(libc::EINTR)));
    // A reply that is not multipart ends the exchange with its datagram.
    let single = nlmsg(CMD_SYS_GET, 0, 1, &a_u8(SYS_ATTR_COPY_ON_FORK, 1));
    assert_eq!(run(&single, 1), Ok((true, 1)));
}

#[test]
fn transport_failures() {
    let mut c = Script::new(vec![dev_msg(1, 1, "rxe0")]);
    assert_eq!(c.get_devices().err(), Some(Errno(libc::EAGAIN)), "timeout");
    let huge = nlmsg(CMD_GET, NLM_F_MULTI, 1, &vec![0; 70_000]);
    let mut c = Script::new(vec![huge]);
    assert_eq!(
        c.get_devices().err(),
        Some(Errno(libc::EMSGSIZE)),
        "truncated"
    );
    // A peer that never finishes is cut off.
    let mut c = Script::new(vec![vec![]; 70_000]);
    assert_eq!(c.get_devices().err(), Some(Errno::EIO));
}

#[test]
fn device_requirements() {
    let full = dev_attrs(1, "rxe0");
    assert!(decode_device(&Attrs::parse(&full).unwrap()).is_ok());
    for missing in [
        ATTR_DEV_INDEX,
        ATTR_DEV_NAME,
        ATTR_PORT_INDEX,
        ATTR_NODE_GUID,
        ATTR_DEV_NODE_TYPE,
    ] {
        // An attribute of an unused type shadows nothing: drop by re-typing it.
        let mut p = full.clone();
        let mut at = 0;
        while at < p.len() {
            let len = u16::from_ne_bytes([p[at], p[at + 1]]) as usize;
            if u16::from_ne_bytes([p[at + 2], p[at + 3]]) == missing {
                p[at + 2..at + 4].copy_from_slice(&100u16.to_ne_bytes());
            }
            at += align4(len);
        }
        let a = Attrs::parse(&p).unwrap();
        assert_eq!(decode_device(&a).err(), Some(Errno::EINVAL), "{missing}");
    }
    // Short policy attributes, even unused ones, spoil the message.
    let p = [full.clone(), attr(ATTR_CHARDEV_ABI, &[1, 0])].concat();
    assert!(decode_device(&Attrs::parse(&p).unwrap()).is_err());
    let long = "x".repeat(64);
    let p = [full.clone(), a_str(ATTR_DEV_NAME, &long)].concat();
    assert!(decode_device(&Attrs::parse(&p).unwrap()).is_err());
    let p = [
        full,
        a_str(ATTR_DEV_NAME, &long[..63]),
        a_u8(ATTR_DEV_NODE_TYPE, 42),
    ]
    .concat();
    let d = decode_device(&Attrs::parse(&p).unwrap()).unwrap();
    assert_eq!((d.name.len(), d.node_type), (63, -1));
}

#[test]
fn cdev_decoding() {
    assert_eq!(decode_cdev((231 << 8) | 192), (231, 192));
    // huge_encode_dev puts minor bits 8..20 above the major.
    let (ma, mi) = (0xabcu64, 0x12345u64);
    let enc = (mi & 0xff) | (ma << 8) | ((mi & !0xff) << 12);
    assert_eq!(decode_cdev(enc), (0xabc, 0x12345));
}

#[test]
fn uverbs_reply() {
    let mut c = Script::new(vec![uverbs_msg(1, "uverbs0", (231 << 8) | 192)]);
    let u = c.get_uverbs(3).unwrap();
    assert_eq!(u.name, "uverbs0");
    assert_eq!((u.cdev, u.abi_ver, u.driver_id), ((231, 192), 1, 16));
    assert_eq!(u.dev_t(), libc::makedev(231, 192));
    let p = [
        a_str(ATTR_CHARDEV_NAME, "uverbs1"),
        a_u64(ATTR_CHARDEV_ABI, 1),
    ]
    .concat();
    let mut c = Script::new(vec![nlmsg(CMD_GET_CHARDEV, 0, 1, &p)]);
    assert_eq!(c.get_uverbs(0).err(), Some(Errno::EINVAL), "no CHARDEV");
    let p = [a_u64(ATTR_CHARDEV, 1), a_u64(ATTR_CHARDEV_ABI, 1)].concat();
    assert!(
        decode_uverbs(&Attrs::parse(&p).unwrap()).is_err(),
        "no name"
    );
    let p = [p, a_str(ATTR_CHARDEV_NAME, "")].concat();
    let mut c = Script::new(vec![nlmsg(CMD_GET_CHARDEV, 0, 1, &p)]);
    assert_eq!(c.get_uverbs(0).err(), Some(Errno::ENODEV), "empty name");
    let u = decode_uverbs(&Attrs::parse(&p).unwrap()).unwrap();
    assert_eq!(u.driver_id, RDMA_DRIVER_UNKNOWN);
}

#[test]
fn device_list_flow() {
    let mut c = Script::new(vec![
        [dev_msg(1, 1, "rxe0"), dev_msg(1, 4, "siw0"), done_msg(1)].concat(),
        uverbs_msg(2, "uverbs0", (231 << 8) | 192),
        err_msg(3, libc::EOPNOTSUPP),
    ]);
    let devs = devices_on(&mut c).unwrap();
    assert_eq!(
        devs[0].uverbs.as_ref().map(|u| u.name.as_str()),
        Some("uverbs0")
    );
    assert_eq!(devs[1].uverbs, None, "left to the sysfs fallback");
    let sent = &c.transport().sent;
    assert_eq!(sent.len(), 3);
    let m = split(&sent[0]).unwrap();
    assert_eq!((m[0].ty, m[0].flags), (CMD_GET, NLM_F_REQUEST | NLM_F_DUMP));
    let m = split(&sent[2]).unwrap();
    let a = Attrs::parse(m[0].payload).unwrap();
    assert_eq!((m[0].ty, m[0].seq), (CMD_GET_CHARDEV, 3));
    assert_eq!(a.u32(ATTR_DEV_INDEX), Some(4));
    assert_eq!(a.str(ATTR_CHARDEV_TYPE), Some("uverbs"));

    let bad = nlmsg(CMD_GET, NLM_F_MULTI, 1, &a_u32(ATTR_DEV_INDEX, 1));
    let mut c = Script::new(vec![[dev_msg(1, 1, "rxe0"), bad, done_msg(1)].concat()]);
    assert!(
        devices_on(&mut c).is_err(),
        "one bad device spoils the dump"
    );
    let mut c = Script::new(vec![err_msg(1, libc::EPERM)]);
    assert_eq!(devices_on(&mut c).err(), Some(Errno::EPERM));
    let mut c = Script::new(vec![done_msg(1)]);
    assert_eq!(devices_on(&mut c), Ok(vec![]));
}

#[test]
fn index_lookup() {
    let dump = [dev_msg(1, 1, "rxe0"), dev_msg(1, 7, "siw0"), done_msg(1)].concat();
    assert_eq!(
        index_on(&mut Script::new(vec![dump.clone()]), "siw0"),
        Some(7)
    );
    assert_eq!(index_on(&mut Script::new(vec![dump]), "mlx5_0"), None);
    assert_eq!(index_on(&mut Script::new(vec![]), "rxe0"), None);
}

#[test]
fn copy_on_fork_reply_and_cache() {
    let cof = |p: Vec<u8>| Script::new(vec![nlmsg(CMD_SYS_GET, 0, 1, &p)]).get_copy_on_fork();
    assert_eq!(cof(a_u8(SYS_ATTR_COPY_ON_FORK, 1)), Ok(true));
    assert_eq!(cof(a_u8(SYS_ATTR_COPY_ON_FORK, 0)), Ok(false));
    assert_eq!(cof(vec![]), Ok(false), "old kernel: no attribute");
    assert!(cof(attr(SYS_ATTR_COPY_ON_FORK, &[])).is_err());
    assert!(Script::new(vec![err_msg(1, 0)]).get_copy_on_fork().is_err());

    let cache = AtomicU8::new(0);
    assert!(!cached_copy_on_fork(&cache, || Err(Errno::EPERM)));
    assert!(
        cached_copy_on_fork(&cache, || Ok(true)),
        "errors are not cached"
    );
    assert!(cached_copy_on_fork(&cache, || panic!("asked again")));
}

#[test]
#[cfg_attr(miri, ignore)] // a netlink socket: a foreign call Miri lacks
fn real_socket_error_and_timeout() {
    // NETLINK_ROUTE stands in for a kernel peer: an unknown type gets an error
    // reply, a NOOP without ACK gets none (so the receive must time out).
    let t = std::time::Duration::from_millis(200);
    let Ok(s) = sock::NlSocket::open_proto(nix::sys::socket::SockProtocol::NetlinkRoute, t) else {
        return;
    };
    let mut c = Conn::new(s);
    let r = c.exchange("bogus", 0x3ff, 0, |r| r, |_| Ok(()));
    assert_eq!(r, Err(Errno::EOPNOTSUPP));
    let start = std::time::Instant::now();
    let r = c.exchange("noop", NLMSG_NOOP, 0, |r| r, |_| Ok(()));
    assert_eq!(r, Err(Errno(libc::EAGAIN)));
    assert!(start.elapsed() >= t && start.elapsed() < 10 * t);
    // ... and an ACK when asked for one.
    let r = c.exchange("noop+ack", NLMSG_NOOP, 0x4, |r| r, |_| Ok(()));
    assert_eq!(r, Ok(0));
}

#[test]
#[cfg_attr(miri, ignore)] // a netlink socket: a foreign call Miri lacks
fn real_kernel_either_way() {
    // No RDMA here usually: an error or an empty list; never a hang or a panic.
    let t = std::time::Instant::now();
    match devices() {
        Ok(devs) => devs.iter().for_each(|d| assert!(!d.name.is_empty())),
        Err(e) => assert_ne!(e.0, 0),
    }
    let _ = copy_on_fork();
    let _ = copy_on_fork();
    assert_eq!(device_index("no-such-rdma-device"), None);
    assert!(t.elapsed() < 4 * TIMEOUT * 2);
}
