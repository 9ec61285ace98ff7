//! The fuzzing hook (see `crate::fuzzing`): replies from the kernel are data we
//! do not control, so every exchange runs over a transport that replays them.

use std::collections::VecDeque;

use super::msg::{Attrs, split};
use super::nldev::{decode_copy_on_fork, decode_device, decode_uverbs};
use super::query::{Conn, Transport};
use super::route::{decode_link, decode_neigh, decode_route};
use crate::entry::{Errno, Result};

/// Datagrams to replay; an empty queue reads as a receive timeout.
struct Replay(VecDeque<Vec<u8>>);

impl Transport for Replay {
    fn send(&mut self, _req: &[u8]) -> Result<()> {
        Ok(())
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize> {
        let d = self.0.pop_front().ok_or(Errno(libc::EAGAIN))?;
        let n = d.len().min(buf.len());
        buf[..n].copy_from_slice(&d[..n]);
        Ok(d.len())
    }
}

/// `data` is a list of datagrams, each a little-endian u16 length and its
/// bytes. They answer, in turn, every request the library makes: the device
/// dump with a char-device query per device, the copy-on-fork query, and the
/// route, link, neighbour and address queries of ibv_resolve_eth_l2_from_gid.
/// Each datagram is also decoded directly as every message kind.
pub(crate) fn replies(data: &[u8]) {
    let mut dgrams = VecDeque::new();
    let mut rest = data;
    while rest.len() >= 2 {
        let n = (u16::from_le_bytes([rest[0], rest[1]]) as usize).min(rest.len() - 2);
        dgrams.push_back(rest[2..2 + n].to_vec());
        rest = &rest[2 + n..];
    }
    for d in &dgrams {
        let Ok(msgs) = split(d) else { continue };
        for m in msgs {
            if let Ok(a) = Attrs::parse(m.payload) {
                let _ = (
                    decode_device(&a),
                    decode_uverbs(&a),
                    decode_copy_on_fork(&a),
                );
            }
            let _ = (decode_route(&m), decode_link(&m), decode_neigh(&m));
        }
    }
    let mut c = Conn::new(Replay(dgrams));
    let _ = super::devices_on(&mut c);
    let _ = super::index_on(&mut c, "rxe0");
    let _ = c.get_copy_on_fork();
    let _ = c.addr_index(libc::AF_INET as u8, &[10, 0, 0, 1]);
    let _ = c.get_route(
        libc::AF_INET6 as u8,
        &[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        2,
    );
    let _ = c.get_link(2);
    let _ = c.neighbours();
}
