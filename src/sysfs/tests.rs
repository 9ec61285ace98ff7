use super::*;
use std::fs;

/// A scratch directory removed on drop.
struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!("ibverbs-sysfs-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
    fn put(&self, rel: &str, text: &str) {
        let p = self.0.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn fake_rxe(t: &Tmp) {
    t.put("sys/class/infiniband_verbs/abi_version", "6\n");
    t.put("sys/class/infiniband_verbs/uverbs0/ibdev", "rxe0\n");
    t.put("sys/class/infiniband_verbs/uverbs0/dev", "231:192\n");
    t.put("sys/class/infiniband_verbs/uverbs0/abi_version", "1\n");
    t.put("sys/class/infiniband/rxe0/node_type", "1: CA\n");
    t.put(
        "sys/class/infiniband/rxe0/node_guid",
        "5054:00ff:fe12:3456\n",
    );
    t.put(
        "sys/class/infiniband/rxe0/sys_image_guid",
        "5054:00ff:fe12:3456\n",
    );
    t.put("sys/class/infiniband/rxe0/fw_ver", "0.0.0\n");
    fs::create_dir_all(t.0.join("sys/bus/drivers/rdma_rxe")).unwrap();
    fs::create_dir_all(t.0.join("sys/class/infiniband/rxe0/device")).unwrap();
    std::os::unix::fs::symlink(
        t.0.join("sys/bus/drivers/rdma_rxe"),
        t.0.join("sys/class/infiniband/rxe0/device/driver"),
    )
    .unwrap();
    t.put("dev/infiniband/uverbs0", "");
}

#[test]
fn finds_fake_rxe_device() {
    let t = Tmp::new("rxe");
    fake_rxe(&t);
    // A uverbs entry without a char device node is skipped, like rdma-core does.
    t.put("sys/class/infiniband_verbs/uverbs1/ibdev", "rxe0\n");
    t.put("sys/class/infiniband_verbs/uverbs1/dev", "231:193\n");
    let root = t.0.join("sys");
    assert_eq!(abi_version(&root).unwrap(), 6);
    let devs = find_devices_in(&root, &t.0.join("dev/infiniband")).unwrap();
    assert_eq!(devs.len(), 1);
    let d = &devs[0];
    assert_eq!(d.uverbs_name, "uverbs0");
    assert_eq!(d.ibdev_name, "rxe0");
    assert_eq!(d.ibdev_path, root.join("class/infiniband/rxe0"));
    assert_eq!(d.dev_path, t.0.join("dev/infiniband/uverbs0"));
    assert_eq!(d.cdev, (231, 192));
    assert_eq!(d.abi_ver, 1);
    assert_eq!(d.node_type, 1);
    assert_eq!(d.node_guid, Some(0x5054_00ff_fe12_3456));
    assert_eq!(d.fw_ver.as_deref(), Some("0.0.0"));
    assert_eq!(d.modalias, None);
    assert_eq!(d.driver.as_deref(), Some("rdma_rxe"));
    assert!(d.time_created.is_some());
}

#[test]
fn no_rdma_subsystem_is_empty_not_error() {
    let t = Tmp::new("empty");
    assert_eq!(find_devices_in(&t.0, &t.0).unwrap(), Vec::new());
    assert!(abi_version(&t.0).is_err());
}

#[test]
fn sysfs_root_override() {
    assert_eq!(sysfs_root_from(None), PathBuf::from("/sys"));
    assert_eq!(
        sysfs_root_from(Some(OsStr::new("/tmp/fake//"))),
        PathBuf::from("/tmp/fake")
    );
    assert_eq!(
        sysfs_root_from(Some(OsStr::new("/tmp/fake"))),
        PathBuf::from("/tmp/fake")
    );
    // Empty or all slashes: rdma-core keeps "" and builds "/class/..." on it.
    for v in ["", "/", "///"] {
        let root = sysfs_root_from(Some(OsStr::new(v)));
        assert_eq!(root, PathBuf::from("/"));
        assert_eq!(c_root(&root).as_bytes(), b"");
        assert_eq!(
            root.join("class/infiniband"),
            PathBuf::from("/class/infiniband")
        );
    }
    assert_eq!(c_root(Path::new("/sys")).as_bytes(), b"/sys");
}

#[test]
fn read_sysfs_file_semantics() {
    let t = Tmp::new("read");
    t.put("a", "hello\n");
    t.put("b", "hello");
    t.put("e", "");
    let mut buf = [0xffu8; 8];
    assert_eq!(read_sysfs_file_buf(&t.0.join("a"), &mut buf).unwrap(), 5);
    assert_eq!(&buf[..6], b"hello\0");
    assert_eq!(read_sysfs_file_buf(&t.0.join("b"), &mut buf).unwrap(), 5);
    assert_eq!(&buf[..6], b"hello\0");
    assert_eq!(read_sysfs_file_buf(&t.0.join("e"), &mut buf).unwrap(), 0);
    // Exactly filling the buffer without a newline leaves no room for the NUL.
    let mut small = [0u8; 5];
    assert!(read_sysfs_file_buf(&t.0.join("b"), &mut small).is_err());
    // With a newline it fits: the newline becomes the NUL.
    let mut six = [0u8; 6];
    assert_eq!(read_sysfs_file_buf(&t.0.join("a"), &mut six).unwrap(), 5);
    assert_eq!(read_sysfs_file(&t.0.join("a")).unwrap(), "hello");
    assert_eq!(read_sysfs_file(&t.0.join("missing")), Err(Errno::ENOENT));
}

#[test]
fn parsers() {
    assert_eq!(parse_cdev("231:192\n"), Some((231, 192)));
    assert_eq!(parse_cdev("231"), None);
    assert_eq!(
        parse_guid("0002:c903:0001:0203"),
        Some(0x0002_c903_0001_0203)
    );
    assert_eq!(parse_guid("zz"), None);
    assert_eq!(decode_node_type(4), 4);
    assert_eq!(decode_node_type(0), -1);
    assert_eq!(decode_node_type(99), -1);
}

#[test]
fn real_machine_without_rdma_is_fine() {
    // On hosts without RDMA this is empty; on the VM it lists rxe.
    assert!(find_devices().is_ok());
}
