//! Facts of rdma-core 44's cmd_wq.c / cmd.c and ib_user_verbs.h as test data:
//! `ib_uverbs_ex_create_wq` is 40 bytes (comp_mask 0, wq_type 4, user_handle
//! 8, pd_handle 16, cq_handle 20, max_wr 24, max_sge 28, create_flags 32),
//! `ib_uverbs_ex_modify_wq` 24 (attr_mask 0, wq_handle 4, wq_state 8,
//! curr_wq_state 12, flags 16, flags_mask 20); a table is its handles padded
//! to 8 bytes; the extended commands are 52 (CREATE_WQ) to 55 (CREATE_RWQ_IND_TBL).

use super::*;
use crate::uverbs::Pod;
use crate::uverbs::write::*;

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}

#[test]
fn command_numbers() {
    assert_eq!(
        (
            IB_USER_VERBS_EX_CMD_CREATE_WQ,
            IB_USER_VERBS_EX_CMD_MODIFY_WQ,
            IB_USER_VERBS_EX_CMD_DESTROY_WQ,
            IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL
        ),
        (52, 53, 54, 55)
    );
}

fn init_attr(pd: &mut ibv_pd, cq: &mut ibv_cq) -> ibv_wq_init_attr {
    // SAFETY: plain C data; all-zero is valid.
    let mut a: ibv_wq_init_attr = unsafe { std::mem::zeroed() };
    a.wq_type = ibv_wq_type(0);
    a.max_wr = 64;
    a.max_sge = 2;
    a.pd = pd;
    a.cq = cq;
    a.create_flags = 0x2;
    a
}

#[test]
fn create_wq_bytes() {
    // SAFETY: plain C data.
    let (mut pd, mut cq): (ibv_pd, ibv_cq) = unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    pd.handle = 5;
    cq.handle = 9;
    let mut a = init_attr(&mut pd, &mut cq);
    let (r, flags) = create_wq_req(&a, 0x1122_3344_5566).unwrap();
    let b = r.as_bytes();
    assert_eq!(b.len(), 40);
    assert_eq!((u32_at(b, 0), u32_at(b, 4)), (0, 0));
    assert_eq!(
        u64::from_ne_bytes(b[8..16].try_into().unwrap()),
        0x1122_3344_5566
    );
    assert_eq!(
        (u32_at(b, 16), u32_at(b, 20), u32_at(b, 24), u32_at(b, 28)),
        (5, 9, 64, 2)
    );
    // Without IBV_WQ_INIT_ATTR_FLAGS the ioctl carries no flags, the write()
    // command the caller's as given.
    assert_eq!((u32_at(b, 32), flags), (2, 0));
    a.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
    assert_eq!(create_wq_req(&a, 0).unwrap().1, 2);
    a.create_flags = IBV_WQ_FLAGS_RESERVED;
    assert_eq!(create_wq_req(&a, 0).err(), Some(Errno::EOPNOTSUPP));
    a.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
    assert_eq!(create_wq_req(&a, 0).err(), Some(Errno::EINVAL));
    a.comp_mask = 0;
    a.cq = std::ptr::null_mut();
    assert_eq!(create_wq_req(&a, 0).err(), Some(Errno::EINVAL));
}

#[test]
fn modify_wq_bytes() {
    // SAFETY: plain C data.
    let mut a: ibv_wq_attr = unsafe { std::mem::zeroed() };
    a.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE;
    a.wq_state = ibv_wq_state(1);
    a.curr_wq_state = ibv_wq_state(0);
    a.flags = 1;
    a.flags_mask = 1;
    let r = modify_wq_req(&a, 7).unwrap();
    let b = r.as_bytes();
    assert_eq!(b.len(), 24);
    // Flags only with IBV_WQ_ATTR_FLAGS.
    assert_eq!(
        (
            u32_at(b, 0),
            u32_at(b, 4),
            u32_at(b, 8),
            u32_at(b, 12),
            u32_at(b, 16),
            u32_at(b, 20)
        ),
        (3, 7, 1, 0, 0, 0)
    );
    a.attr_mask |= IBV_WQ_ATTR_FLAGS;
    let r = modify_wq_req(&a, 7).unwrap();
    assert_eq!((r.flags, r.flags_mask), (1, 1));
    a.flags_mask = IBV_WQ_FLAGS_RESERVED;
    assert_eq!(modify_wq_req(&a, 7).err(), Some(Errno::EOPNOTSUPP));
    a.attr_mask = IBV_WQ_ATTR_RESERVED;
    assert_eq!(modify_wq_req(&a, 7).err(), Some(Errno::EINVAL));
}

#[test]
fn table_is_its_handles_padded() {
    // SAFETY: plain C data.
    let mut w: [ibv_wq; 2] = unsafe { std::mem::zeroed() };
    w[0].handle = 3;
    w[1].handle = 4;
    let mut one = [&raw mut w[0]];
    // SAFETY: our table of 2^0 WQs.
    let b = unsafe { table_handles(0, one.as_mut_ptr()) }.unwrap();
    assert_eq!(b, [3, 0, 0, 0, 0, 0, 0, 0].map(|x: u32| x as u8).to_vec());
    let mut two = [&raw mut w[0], &raw mut w[1]];
    // SAFETY: our table of 2^1 WQs.
    let b = unsafe { table_handles(1, two.as_mut_ptr()) }.unwrap();
    assert_eq!((b.len(), u32_at(&b, 0), u32_at(&b, 4)), (8, 3, 4));
    two[1] = std::ptr::null_mut();
    // SAFETY: as above; a NULL entry is refused.
    assert_eq!(
        unsafe { table_handles(1, two.as_mut_ptr()) }.err(),
        Some(Errno::EINVAL)
    );
    // SAFETY: refused before any read.
    assert_eq!(
        unsafe { table_handles(14, two.as_mut_ptr()) }.err(),
        Some(Errno::EINVAL)
    );
    // SAFETY: as above.
    assert_eq!(
        unsafe { table_handles(0, std::ptr::null_mut()) }.err(),
        Some(Errno::EINVAL)
    );
}

/// ibv_cmd_destroy_wq's wait: a registered WQ whose kernel reported two
/// async events is released only after both are acknowledged (the count
/// ibv_ack_async_event keeps, mirrored into `events_completed`), and then
/// leaves the registry.
#[test]
fn destroy_waits_for_wq_event_acks() {
    use crate::object::New;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    struct Ctx;
    // SAFETY: a test owner; the unit tests check record owners.
    unsafe impl object::RecordOwner for Ctx {}
    // SAFETY: plain C data; all-zero is valid.
    let w: Box<ibv_wq> = Box::new(unsafe { std::mem::zeroed() });
    let wq = Box::into_raw(w);
    let nn = std::ptr::NonNull::new(wq.cast()).unwrap();
    object::adopt::<ibv_wq, Ctx>(Arc::new(Ctx), New::of(nn, None));
    let addr = wq as usize;
    let done = Arc::new(AtomicBool::new(false));
    let d2 = done.clone();
    let t = std::thread::spawn(move || {
        wait_and_forget::<Ctx>(addr as *const ibv_wq, 2);
        d2.store(true, Ordering::SeqCst);
    });
    let ack = || object::get::<ibv_wq, Ctx>(wq).unwrap().ack_async_event();
    ack();
    // SAFETY: our WQ; the field is only written atomically by the ack.
    let completed = || {
        unsafe { std::sync::atomic::AtomicU32::from_ptr(&raw mut (*wq).events_completed) }
            .load(Ordering::SeqCst)
    };
    assert_eq!(completed(), 1);
    std::thread::yield_now();
    assert!(
        !done.load(Ordering::SeqCst),
        "returned with an event unacknowledged"
    );
    assert!(object::get::<ibv_wq, Ctx>(wq).is_ok());
    ack();
    t.join().unwrap();
    assert!(done.load(Ordering::SeqCst));
    assert_eq!(completed(), 2);
    assert!(object::get::<ibv_wq, Ctx>(wq).is_err(), "still registered");
    // Nothing reported, nothing registered: no wait.
    wait_and_forget::<Ctx>(wq, 5);
    // SAFETY: ours, out of the registry.
    drop(unsafe { Box::from_raw(wq) });
}
