//! Device discovery from sysfs, as libibverbs does it: every
//! `class/infiniband_verbs/uverbsN` names its IB device, char device and ABI.

mod file;

pub(crate) use file::{read_sysfs_file, read_sysfs_file_buf};

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use crate::entry::{Errno, Result};

/// Where the uverbs character devices live.
pub(crate) const RDMA_CDEV_DIR: &str = "/dev/infiniband";

/// The sysfs root: `$SYSFS_PATH` (trailing slashes removed) unless the process
/// runs set-uid, else `/sys`. Read once, like `ibv_get_sysfs_path`.
pub(crate) fn sysfs_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let env = if is_setuid() {
            None
        } else {
            std::env::var_os("SYSFS_PATH")
        };
        sysfs_root_from(env.as_deref())
    })
}

/// [`sysfs_path`] as a C string, for ibv_get_sysfs_path.
pub(crate) fn sysfs_path_c() -> &'static std::ffi::CStr {
    static C: OnceLock<std::ffi::CString> = OnceLock::new();
    C.get_or_init(|| c_root(sysfs_path()))
}

/// `/sys`, or the given override with trailing slashes dropped. An override
/// that is empty or all slashes is the root directory: rdma-core keeps "" and
/// appends "/class/...", so its paths start at `/` too.
pub(crate) fn sysfs_root_from(env: Option<&OsStr>) -> PathBuf {
    match env {
        Some(v) => {
            let s = v.as_bytes();
            let end = s.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
            match end {
                0 => PathBuf::from("/"),
                _ => PathBuf::from(OsStr::from_bytes(&s[..end])),
            }
        }
        None => PathBuf::from("/sys"),
    }
}

/// The root as ibv_get_sysfs_path prints it: "" for `/`, as rdma-core strips
/// every trailing slash.
pub(crate) fn c_root(root: &Path) -> std::ffi::CString {
    let b = root.as_os_str().as_bytes();
    let b = if b == b"/" { &b[..0] } else { b };
    std::ffi::CString::new(b).unwrap_or_else(|_| c"/sys".into())
}

/// Real and effective uid differ (from /proc, to need no `unsafe` here).
fn is_setuid() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return true;
    };
    let uids = status.lines().find_map(|l| l.strip_prefix("Uid:"));
    let mut ids = uids.into_iter().flat_map(str::split_whitespace);
    ids.next() != ids.next()
}

/// One uverbs device found in sysfs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SysfsDevice {
    /// `uverbsN`
    pub uverbs_name: String,
    /// `/sys/class/infiniband_verbs/uverbsN`
    pub uverbs_path: PathBuf,
    /// The IB device name, e.g. `rxe0`.
    pub ibdev_name: String,
    /// `/sys/class/infiniband/<ibdev_name>`
    pub ibdev_path: PathBuf,
    /// `/dev/infiniband/uverbsN`
    pub dev_path: PathBuf,
    /// From `uverbsN/dev`, "major:minor".
    pub cdev: (u32, u32),
    /// The per-device uverbs ABI (`uverbsN/abi_version`), 0 if absent.
    pub abi_ver: u32,
    /// `enum ibv_node_type` value (-1 when unknown).
    pub node_type: i32,
    /// In host order; `None` if unreadable.
    pub node_guid: Option<u64>,
    pub sys_image_guid: Option<u64>,
    pub fw_ver: Option<String>,
    /// `device/modalias`, used to match a provider.
    pub modalias: Option<String>,
    /// The kernel driver bound to the parent device (`device/driver` link), e.g. `rdma_rxe`.
    pub driver: Option<String>,
    /// mtime of `ibdev_path`: tells a re-created device of the same name apart.
    pub time_created: Option<SystemTime>,
}

#[cfg(test)]
impl SysfsDevice {
    /// A device no sysfs holds (`uverbs9`/`fake0`), its char device at
    /// `dev_path`: for tests that need a Device without discovery.
    pub(crate) fn fake(dev_path: &str) -> SysfsDevice {
        SysfsDevice {
            uverbs_name: "uverbs9".into(),
            uverbs_path: "/nonexistent/uverbs9".into(),
            ibdev_name: "fake0".into(),
            ibdev_path: "/nonexistent/fake0".into(),
            dev_path: dev_path.into(),
            cdev: (231, 9),
            abi_ver: 1,
            node_type: 1,
            node_guid: None,
            sys_image_guid: None,
            fw_ver: None,
            modalias: None,
            driver: None,
            time_created: None,
        }
    }
}

/// The global uverbs ABI version (`class/infiniband_verbs/abi_version`).
pub(crate) fn abi_version(root: &Path) -> Result<u32> {
    let v = read_sysfs_file(&root.join("class/infiniband_verbs/abi_version"))?;
    parse_leading_u64(&v).map(|n| n as u32).ok_or(Errno::ENOSYS)
}

/// All usable uverbs devices under the process's sysfs root. No RDMA
/// subsystem (no `class/infiniband_verbs`) is an empty list, not an error.
pub(crate) fn find_devices() -> Result<Vec<SysfsDevice>> {
    find_devices_in(sysfs_path(), Path::new(RDMA_CDEV_DIR))
}

/// As [`find_devices`] for a given sysfs root and char device directory.
/// Entries that are incomplete or have no char device node are skipped.
pub(crate) fn find_devices_in(root: &Path, cdev_dir: &Path) -> Result<Vec<SysfsDevice>> {
    let class = root.join("class/infiniband_verbs");
    let entries = match std::fs::read_dir(&class) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut devs = Vec::new();
    for ent in entries {
        let ent = ent?;
        let name = ent.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || !ent.path().is_dir() {
            continue;
        }
        if let Some(d) = read_device(root, cdev_dir, name) {
            devs.push(d);
        }
    }
    devs.sort_by(|a, b| a.uverbs_name.cmp(&b.uverbs_name));
    Ok(devs)
}

fn read_device(root: &Path, cdev_dir: &Path, uverbs: &str) -> Option<SysfsDevice> {
    let uverbs_path = root.join("class/infiniband_verbs").join(uverbs);
    let ibdev_name = read_sysfs_file(&uverbs_path.join("ibdev")).ok()?;
    let ibdev_path = root.join("class/infiniband").join(&ibdev_name);
    let time_created = std::fs::metadata(&ibdev_path).ok()?.modified().ok();
    let cdev = parse_cdev(&read_sysfs_file(&uverbs_path.join("dev")).ok()?)?;
    let abi_ver = read_sysfs_file(&uverbs_path.join("abi_version"))
        .ok()
        .and_then(|v| parse_leading_u64(&v))
        .unwrap_or(0) as u32;
    let dev_path = cdev_dir.join(uverbs);
    std::fs::metadata(&dev_path).ok()?;
    let attr = |f: &str| {
        read_sysfs_file(&ibdev_path.join(f))
            .ok()
            .filter(|s| !s.is_empty())
    };
    let node_type = attr("node_type")
        .and_then(|v| parse_leading_u64(&v))
        .map_or(-1, decode_node_type);
    let driver = std::fs::read_link(ibdev_path.join("device/driver"))
        .ok()
        .and_then(|p| p.file_name().and_then(OsStr::to_str).map(str::to_owned));
    Some(SysfsDevice {
        uverbs_name: uverbs.to_owned(),
        uverbs_path,
        ibdev_name,
        dev_path,
        cdev,
        abi_ver,
        node_type,
        node_guid: attr("node_guid").and_then(|g| parse_guid(&g)),
        sys_image_guid: attr("sys_image_guid").and_then(|g| parse_guid(&g)),
        fw_ver: attr("fw_ver"),
        modalias: attr("device/modalias"),
        driver,
        time_created,
        ibdev_path,
    })
}

/// Kernel `RDMA_NODE_*` to `enum ibv_node_type`: the same numbers for the known
/// kinds (CA 1 .. UNSPECIFIED 7), anything else is `IBV_NODE_UNKNOWN` (-1).
pub(crate) fn decode_node_type(k: u64) -> i32 {
    if (1..=7).contains(&k) { k as i32 } else { -1 }
}

/// "major:minor"
pub(crate) fn parse_cdev(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// A GUID as sysfs prints it, "0011:2233:4455:6677", to a host-order u64.
pub(crate) fn parse_guid(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.trim().split(':').collect();
    if parts.len() != 4 {
        return None;
    }
    parts.iter().try_fold(0u64, |acc, p| {
        Some((acc << 16) | u16::from_str_radix(p, 16).ok()? as u64)
    })
}

/// Like `strtoul`: the leading decimal digits ("1: CA" is 1).
pub(crate) fn parse_leading_u64(s: &str) -> Option<u64> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s[..end].parse().ok()
}

#[cfg(test)]
mod tests;
