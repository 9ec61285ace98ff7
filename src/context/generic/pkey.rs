//! P_Keys, read from sysfs `ports/N/pkeys/I` as rdma-core does.

use crate::context::Context;
use crate::entry::{Errno, Result};
use crate::sysfs::read_sysfs_file_buf;

/// The P_Key at `index` of `port`, in host order. A missing file (bad port or
/// index) fails with the errno of opening it.
pub(crate) fn query_pkey(ctx: &Context, port: u8, index: i32) -> Result<u16> {
    let path = ctx
        .device
        .sysfs
        .ibdev_path
        .join(format!("ports/{port}/pkeys/{index}"));
    let mut buf = [0u8; 8];
    let n = read_sysfs_file_buf(&path, &mut buf)?;
    parse_hex_u16(&buf[..n]).ok_or(Errno::EINVAL)
}

/// Like sscanf "%hx": optional blanks, optional 0x, hex digits (truncated to 16 bits).
pub(crate) fn parse_hex_u16(b: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(b).ok()?.trim_start();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let digits: String = s.chars().take_while(char::is_ascii_hexdigit).collect();
    if digits.is_empty() {
        return None;
    }
    let v = digits.chars().fold(0u64, |acc, c| {
        (acc << 4) | u64::from(c.to_digit(16).unwrap_or(0)) & 0xffff_ffff
    });
    Some(v as u16)
}

#[cfg(test)]
mod tests {
    use super::parse_hex_u16;

    #[test]
    fn pkey_text() {
        assert_eq!(parse_hex_u16(b"0xffff"), Some(0xffff));
        assert_eq!(parse_hex_u16(b"7fff"), Some(0x7fff));
        assert_eq!(parse_hex_u16(b"zz"), None);
    }
}
