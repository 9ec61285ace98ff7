//! Reading small sysfs attribute files the way `ibv_read_sysfs_file` does.

use std::io::Read;
use std::path::Path;

use crate::entry::{Errno, Result};

/// Reads an attribute file with one read() into `buf`, like `ibv_read_sysfs_file`:
/// a trailing newline becomes NUL (and is not counted), otherwise a NUL is added
/// if there is room; contents that would not fit with their NUL are an error.
/// Returns the length of the text.
pub(crate) fn read_sysfs_file_buf(path: &Path, buf: &mut [u8]) -> Result<usize> {
    let mut f = std::fs::File::open(path)?;
    let mut len = f.read(buf)?;
    if len > 0 {
        if buf[len - 1] == b'\n' {
            len -= 1;
            buf[len] = 0;
        } else if len < buf.len() {
            buf[len] = 0;
        } else {
            return Err(Errno::EINVAL);
        }
    }
    Ok(len)
}

/// Reads an attribute file as text, without its trailing newline.
pub(crate) fn read_sysfs_file(path: &Path) -> Result<String> {
    let mut buf = [0u8; 4096];
    let n = read_sysfs_file_buf(path, &mut buf)?;
    String::from_utf8(buf[..n].to_vec()).map_err(|_| Errno::EINVAL)
}
