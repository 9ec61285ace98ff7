//! Argument checks of the commands rdma-core 65 added: NULL and objects of
//! no hosted context are EINVAL (rdma-core would follow the pointers), and
//! the pure conversions (ibv_mr_init_attr's masks, the CQ buffer of
//! `prov_attr`) follow rdma-core 65's cmd_mr.c and cmd_cq.c.

use super::*;
use crate::providers::plugin::cmd::cq::{CqBuf, cq_buf};
use crate::providers::plugin::cmd::mr::{RegMrEx, reg_mr_ex_args};
use crate::verbs::dmabuf_heap::*;
use std::ptr::null_mut;

const EINVAL: c_int = libc::EINVAL;

/// A context of no plugin: zeroed, never registered.
fn foreign_ctx() -> Box<ibv_context> {
    // SAFETY: plain C data; all-zero is valid.
    Box::new(unsafe { std::mem::zeroed() })
}

#[test]
fn null_objects_are_einval() {
    // SAFETY: every pointer is NULL; each entry checks before reading.
    unsafe {
        assert_eq!(ibv_cmd_destroy_comp_cntr(null_mut()), EINVAL);
        assert_eq!(ibv_cmd_set_comp_cntr(null_mut(), 1), EINVAL);
        assert_eq!(ibv_cmd_set_err_comp_cntr(null_mut(), 1), EINVAL);
        assert_eq!(ibv_cmd_inc_comp_cntr(null_mut(), 1), EINVAL);
        assert_eq!(ibv_cmd_inc_err_comp_cntr(null_mut(), 1), EINVAL);
        let mut v = 0u64;
        assert_eq!(ibv_cmd_read_comp_cntr(null_mut(), &mut v), EINVAL);
        assert_eq!(ibv_cmd_read_err_comp_cntr(null_mut(), &mut v), EINVAL);
        assert_eq!(
            ibv_cmd_create_comp_cntr(null_mut(), null_mut(), null_mut()),
            EINVAL
        );
        assert_eq!(
            ibv_cmd_qp_attach_comp_cntr(null_mut(), null_mut(), null_mut()),
            EINVAL
        );
        assert_eq!(ibv_cmd_free_dmah(null_mut()), EINVAL);
        assert_eq!(
            ibv_cmd_alloc_dmah(null_mut(), null_mut(), null_mut()),
            EINVAL
        );
        assert_eq!(ibv_cmd_query_port_speed(null_mut(), 1, &mut v), EINVAL);
        assert_eq!(
            ibv_cmd_reg_mr_ex(null_mut(), null_mut(), null_mut()),
            EINVAL
        );
        assert_eq!(ibv_cmd_export_dmabuf_fd(null_mut(), 0), -1);
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(EINVAL));
    }
}

#[test]
fn objects_of_no_hosted_context_are_einval() {
    let mut ctx = foreign_ctx();
    let c: *mut ibv_context = &mut *ctx;
    let mut cc = ibv_comp_cntr {
        context: c,
        handle: 7,
    };
    let mut v = 0u64;
    // SAFETY: live locals; the context is no plugin's, so nothing is sent.
    unsafe {
        assert_eq!(ibv_cmd_create_comp_cntr(c, &mut cc, null_mut()), EINVAL);
        assert_eq!(ibv_cmd_destroy_comp_cntr(&mut cc), EINVAL);
        assert_eq!(ibv_cmd_inc_comp_cntr(&mut cc, 3), EINVAL);
        assert_eq!(ibv_cmd_read_err_comp_cntr(&mut cc, &mut v), EINVAL);
        // A caller's value pointer is checked before the command.
        assert_eq!(ibv_cmd_read_comp_cntr(&mut cc, null_mut()), EINVAL);
        assert_eq!(ibv_cmd_query_port_speed(c, 1, &mut v), EINVAL);
        assert_eq!(ibv_cmd_query_port_speed(c, 1, null_mut()), EINVAL);
        // SAFETY: plain C data; all-zero is valid.
        let mut caps: ibv_comp_cntr_caps = std::mem::zeroed();
        assert_eq!(
            ibv_cmd_query_comp_cntr_caps(c, &mut caps, size_of_val(&caps)),
            EINVAL
        );
        // 65 refuses a struct shorter than its own before asking.
        assert_eq!(ibv_cmd_query_comp_cntr_caps(c, &mut caps, 8), EINVAL);
        let mut d = verbs_dmah {
            dmah: ibv_dmah { context: c },
            handle: 1,
        };
        assert_eq!(ibv_cmd_free_dmah(&mut d), EINVAL);
        let mut attr = ibv_dmah_init_attr {
            comp_mask: 0x7,
            cpu_id: 0,
            ph: 1,
            tph_mem_type: 0,
        };
        assert_eq!(ibv_cmd_alloc_dmah(c, &mut d, &mut attr), EINVAL);
        assert_eq!(ibv_cmd_export_dmabuf_fd(c, 0), -1);
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(EINVAL));
    }
}

fn mr_attr(mask: u64) -> ibv_mr_init_attr {
    // SAFETY: plain C data; all-zero is valid.
    let mut a: ibv_mr_init_attr = unsafe { std::mem::zeroed() };
    a.comp_mask = mask;
    a.length = 4096;
    a
}

#[test]
fn reg_mr_ex_checks_its_masks_as_rdma_core_65() {
    const IOVA: u64 = 0x1;
    const ADDR: u64 = 0x2;
    const FD: u64 = 0x4;
    const FD_OFFSET: u64 = 0x8;
    let mut buf = [0u8; 64];
    let p = buf.as_mut_ptr().cast::<c_void>();
    // Address-based: the address is the IOVA unless one is given.
    let mut a = mr_attr(ADDR);
    a.addr = p;
    let r = reg_mr_ex_args(&a).unwrap();
    assert_eq!((r.fd, r.iova, r.length), (None, p as u64, 4096));
    a.comp_mask |= IOVA;
    a.iova = 0x1000;
    assert_eq!(reg_mr_ex_args(&a).unwrap().iova, 0x1000);
    // No address, or an fd offset with it: EINVAL.
    assert_eq!(reg_mr_ex_args(&mr_attr(0)), Err(Errno::EINVAL));
    assert_eq!(
        reg_mr_ex_args(&mr_attr(ADDR | FD_OFFSET)),
        Err(Errno::EINVAL)
    );
    // fd-based: needs its offset and an IOVA, and no address.
    let mut f = mr_attr(FD | FD_OFFSET | IOVA);
    f.fd = 5;
    f.fd_offset = 64;
    f.iova = 0x2000;
    assert_eq!(
        reg_mr_ex_args(&f).unwrap(),
        RegMrEx {
            fd: Some((5, 64)),
            addr: 0,
            iova: 0x2000,
            length: 4096
        }
    );
    assert_eq!(reg_mr_ex_args(&mr_attr(FD | IOVA)), Err(Errno::EINVAL));
    assert_eq!(reg_mr_ex_args(&mr_attr(FD | FD_OFFSET)), Err(Errno::EINVAL));
    assert_eq!(
        reg_mr_ex_args(&mr_attr(FD | FD_OFFSET | ADDR | IOVA)),
        Err(Errno::EINVAL)
    );
    // On-demand SIZE_MAX: the whole space at address 0 only.
    let mut o = mr_attr(ADDR);
    o.access = 0x40;
    o.length = usize::MAX;
    assert_eq!(reg_mr_ex_args(&o).unwrap().length, u64::MAX);
    o.addr = p;
    assert_eq!(reg_mr_ex_args(&o), Err(Errno::EINVAL));
}

#[test]
fn reg_mr_ex_refuses_null_before_the_command() {
    let mut a = mr_attr(0x2);
    // SAFETY: plain C data; all-zero is valid.
    let mut pd: ibv_pd = unsafe { std::mem::zeroed() };
    // SAFETY: live locals; the MR pointer, then the attributes, are NULL.
    let (r1, r2) = unsafe {
        (
            ibv_cmd_reg_mr_ex(&mut pd, null_mut(), &mut a),
            ibv_cmd_reg_mr_ex(&mut pd, null_mut(), null_mut()),
        )
    };
    assert_eq!((r1, r2), (EINVAL, EINVAL));
}

#[test]
fn cq_buffer_of_prov_attr() {
    let prov = verbs_create_cq_prov_attr {
        buffer: [8192, 0x7000, 9],
    };
    assert_eq!(cq_buf(0, Some(&prov)), Ok(None));
    assert_eq!(cq_buf(1, None), Ok(None));
    assert_eq!(
        cq_buf(1 << 1, Some(&prov)),
        Ok(Some(CqBuf::Va {
            addr: 0x7000,
            length: 8192
        }))
    );
    assert_eq!(
        cq_buf(1 << 2, Some(&prov)),
        Ok(Some(CqBuf::Dmabuf {
            fd: 9,
            offset: 0x7000,
            length: 8192
        }))
    );
    // Both asked: the address, as 65.
    assert!(matches!(cq_buf(6, Some(&prov)), Ok(Some(CqBuf::Va { .. }))));
    assert_eq!(cq_buf(1 << 1, None), Err(Errno::EINVAL));
    assert_eq!(cq_buf(1 << 2, None), Err(Errno::EINVAL));
}

#[test]
fn create_cq_ex_with_a_buffer_and_no_context_is_einval() {
    let prov = verbs_create_cq_prov_attr {
        buffer: [8192, 0x7000, 0],
    };
    // SAFETY: NULL attributes and objects; checked before any read.
    unsafe {
        assert_eq!(
            ibv_cmd_create_cq_ex2_65(
                null_mut(),
                std::ptr::null(),
                null_mut(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                0,
                1 << 1,
                null_mut()
            ),
            EINVAL
        );
        assert_eq!(
            ibv_cmd_create_cq_ex_65(
                null_mut(),
                std::ptr::null(),
                (&raw const prov).cast_mut(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                0,
                1 << 1
            ),
            EINVAL
        );
    }
}

#[test]
fn dmabuf_heap_refuses_foreign_handles() {
    let mut word = 0u64;
    let foreign = (&raw mut word).cast::<c_void>();
    let mut fd = -1;
    // SAFETY: a pointer we never handed out; nothing is read through it.
    unsafe {
        assert!(ibv_dmabuf_heap_alloc(foreign, 4096, &mut fd).is_null());
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(EINVAL));
        assert!(ibv_dmabuf_heap_alloc(null_mut(), 4096, &mut fd).is_null());
        ibv_dmabuf_heap_destroy(foreign);
        ibv_dmabuf_heap_destroy(null_mut());
        // Not an allocation of ours: left alone (the fd stays open).
        let mut pipe = [-1; 2];
        assert_eq!(libc::pipe(pipe.as_mut_ptr()), 0);
        ibv_dmabuf_heap_free(foreign, 8, pipe[0]);
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(EINVAL));
        assert!(libc::fcntl(pipe[0], libc::F_GETFD) >= 0);
        libc::close(pipe[0]);
        libc::close(pipe[1]);
    }
    assert_eq!(fd, -1);
}

#[test]
fn dmabuf_heap_init_answers_as_open() {
    // This host's kernel has no cc_shared heap (a confidential-computing
    // guest's has): NULL with open(2)'s errno, as rdma-core 65.
    // SAFETY: no arguments.
    let h = unsafe { ibv_dmabuf_heap_cc_shared_init() };
    if h.is_null() {
        let e = std::io::Error::last_os_error().raw_os_error();
        assert!(
            matches!(e, Some(libc::ENOENT) | Some(libc::EACCES)),
            "{e:?}"
        );
    } else {
        let mut fd = -1;
        // SAFETY: our live heap.
        unsafe {
            let p = ibv_dmabuf_heap_alloc(h, 4096, &mut fd);
            if !p.is_null() {
                ibv_dmabuf_heap_free(p, 4096, fd);
            }
            ibv_dmabuf_heap_destroy(h);
        }
    }
}
