//! A context a plugin allocates: rdma-core 44's `_verbs_init_and_alloc_context`,
//! `verbs_init_context`, `verbs_set_ops`, `verbs_uninit_context` and
//! `verbs_open_device`, and the [`ContextOps`] through which our exported
//! verbs reach the plugin's op table.
#![allow(unsafe_code)]

use super::addrs::Addrs;
use crate::abi::*;
use crate::context::Context;
use crate::device::Device;
use crate::driver_abi::v34::{self, verbs_context_ops, verbs_device};
use crate::entry::{Errno, Result};
use crate::object;
use crate::uverbs::Uverbs;
use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::os::fd::{FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use v34::verbs_context as VerbsContext44;

/// `verbs_context.context.abi_compat` of an extended context.
const ABI_IS_EXTENDED: *mut c_void = usize::MAX as *mut _;

/// The library's private half of a hosted context (rdma-core's
/// `verbs_ex_private`): the plugin's full op table, and the fds until the
/// context is opened, when our [`Context`] takes them over.
pub(crate) struct Priv {
    pub driver_id: u32,
    /// The private ABI version of the plugin's structs.
    pub pabi: &'static crate::driver_abi::Pabi,
    /// The plugin's op table while it sets its context up: verbs_set_ops
    /// merges into it (under `pending`'s lock) until the context is opened,
    /// when `current` starts pointing to it and it no longer changes.
    /// Uninitialised until the first verbs_set_ops (`pending.set`) or the
    /// seal, whichever comes first: no table is zeroed only to be copied over.
    setup: UnsafeCell<std::mem::MaybeUninit<verbs_context_ops>>,
    /// The op table every verb reads, without a lock, once the context is
    /// opened (NULL before). A later verbs_set_ops (rdma-core accepts one)
    /// publishes a merged copy here; the tables it replaces stay in
    /// `pending.tables` until the context goes, so a verb reading an older
    /// one meanwhile still reads valid (if not the newest) ops, as rdma-core's
    /// slot-by-slot update allows.
    current: AtomicPtr<verbs_context_ops>,
    pending: Mutex<Pending>,
    /// Keeps the device while the context lives.
    pub device: Arc<Device>,
    /// Our Context once opened. The plugin's kernel commands reach its fds
    /// through this, never through the object registry: some verbs call the
    /// plugin while holding the registry's lock (destroys checked under it).
    /// A `Weak::into_raw` once set (NULL before); set once, dropped with
    /// `self`. Not a OnceLock: its set costs a call into std's Once.
    opened: AtomicPtr<Context>,
    /// Objects made through our verbs (and WQs) less those destroyed
    /// through them: close looks for leftovers only when some may be left.
    live: AtomicUsize,
    /// A 65 plugin's whole op table (merged as `setup`): the slots 34's
    /// lacks (DMA handles, completion counters, port speed, buffers) are
    /// read from here. None for a 34 plugin.
    ops65: RwLock<Option<Box<crate::driver_abi::v65::verbs_context_ops>>>,
    /// A 65 plugin's buffers not freed yet, as (token, its `struct
    /// ibv_buf`): the close frees what is left.
    bufs: Mutex<Vec<(usize, usize)>>,
    /// The parent domains not deallocated yet (PDs over a PD): the close
    /// frees them before the other PDs.
    pub parents: Addrs,
    /// The PDs, MRs and DMs the plugin imported and still has: the close
    /// unimports them.
    pub imported: Addrs,
}

impl Drop for Priv {
    fn drop(&mut self) {
        let w = *self.opened.get_mut();
        if !w.is_null() {
            // SAFETY: the Weak::into_raw of set_opened, given back once.
            drop(unsafe { std::sync::Weak::from_raw(w) });
        }
    }
}

// SAFETY: `setup` is written only before `current` is set, under
// `pending`'s lock, and read only after (see `Priv::ops`); the tables
// `current` points to are never written once published; the rest is Sync.
unsafe impl Sync for Priv {}

impl Priv {
    /// Built in its `Arc`'s allocation, field by field: made on the stack
    /// and moved in, its op table would cost a copy of some 700 bytes.
    fn new(
        driver_id: u32,
        pabi: &'static crate::driver_abi::Pabi,
        device: Arc<Device>,
        uverbs: Option<Uverbs>,
    ) -> Arc<Priv> {
        let mut a = Arc::<Priv>::new_uninit();
        let p = Arc::get_mut(&mut a).expect("not shared yet").as_mut_ptr();
        // SAFETY: every field of the fresh allocation written once but
        // `setup`, which may stay uninitialised (a MaybeUninit).
        unsafe {
            (&raw mut (*p).driver_id).write(driver_id);
            (&raw mut (*p).pabi).write(pabi);
            (&raw mut (*p).current).write(AtomicPtr::new(std::ptr::null_mut()));
            (&raw mut (*p).pending).write(Mutex::new(Pending {
                uverbs,
                ..Pending::default()
            }));
            (&raw mut (*p).device).write(device);
            (&raw mut (*p).opened).write(AtomicPtr::new(std::ptr::null_mut()));
            (&raw mut (*p).live).write(AtomicUsize::new(0));
            (&raw mut (*p).ops65).write(RwLock::new(None));
            (&raw mut (*p).bufs).write(Mutex::new(Vec::new()));
            (&raw mut (*p).parents).write(Addrs::default());
            (&raw mut (*p).imported).write(Addrs::default());
            a.assume_init()
        }
    }

    /// The plugin's op table, once the context is opened.
    #[inline]
    pub(crate) fn ops(&self) -> &verbs_context_ops {
        let t = self.current.load(Ordering::Acquire);
        debug_assert!(!t.is_null(), "an opened context");
        // SAFETY: a published table (the set-up one or a boxed copy in
        // `pending.tables`): never written again, and kept until `self`
        // goes.
        unsafe { &*t }
    }

    /// One slot of a 65 plugin's own table (None: a 34 plugin, or unset).
    pub(crate) fn op65<F>(
        &self,
        f: impl FnOnce(&crate::driver_abi::v65::verbs_context_ops) -> Option<F>,
    ) -> Option<F> {
        let g = self.ops65.read().unwrap_or_else(|p| p.into_inner());
        g.as_deref().and_then(f)
    }

    /// Ends the set-up: from now on the verbs read the op table without a
    /// lock (the opened context is handed to them after this).
    fn seal(&self) {
        let mut g = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if !std::mem::replace(&mut g.set, true) {
            // SAFETY: not sealed yet: no reader; writers hold the lock.
            unsafe { &mut *self.setup.get() }.write(verbs_context_ops::default());
        }
        self.current
            .store(self.setup.get().cast(), Ordering::Release);
    }

    /// Records our Context once opened (once: later calls do nothing).
    fn set_opened(&self, ctx: &Arc<Context>) {
        let w = std::sync::Weak::into_raw(Arc::downgrade(ctx)).cast_mut();
        let null = std::ptr::null_mut();
        if self
            .opened
            .compare_exchange(null, w, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // SAFETY: from into_raw just above, not stored.
            drop(unsafe { std::sync::Weak::from_raw(w) });
        }
    }

    /// Our Context, once opened and while it lives.
    fn opened(&self) -> Option<Arc<Context>> {
        let w = self.opened.load(Ordering::Acquire);
        if w.is_null() {
            return None;
        }
        // SAFETY: a Weak::into_raw kept until `self` drops; borrowed here,
        // not consumed.
        let w = std::mem::ManuallyDrop::new(unsafe { std::sync::Weak::from_raw(w) });
        w.upgrade()
    }

    pub(crate) fn count_object(&self) {
        self.live.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn uncount_object(&self) {
        let _ = self
            .live
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
    /// Records a buffer of the plugin's (counted for close); returns the
    /// token that names it, unique in the process.
    pub(crate) fn add_buf(&self, b: usize) -> usize {
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let t = NEXT.fetch_add(1, Ordering::Relaxed);
        self.bufs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((t, b));
        self.count_object();
        t
    }
    /// The buffer of `token`, out of the list; None if it is not there
    /// (freed, or not this context's).
    pub(crate) fn take_buf(&self, token: usize) -> Option<usize> {
        let mut g = self.bufs.lock().unwrap_or_else(|p| p.into_inner());
        let i = g.iter().position(|&(t, _)| t == token)?;
        Some(g.remove(i).1)
    }
    /// Every buffer left, out of the list.
    pub(crate) fn take_bufs(&self) -> Vec<usize> {
        let mut g = self.bufs.lock().unwrap_or_else(|p| p.into_inner());
        g.drain(..).map(|(_, b)| b).collect()
    }
    /// Whether objects may be left (never false while one is).
    pub(crate) fn objects_left(&self) -> bool {
        self.live.load(Ordering::Relaxed) != 0
    }
}

/// Counts a WQ registered outside our verbs (see [`Priv::count_object`]).
pub(crate) fn count_object(ctx: *const ibv_context) {
    let _ = with_priv(ctx, |p| p.count_object());
}

#[derive(Default)]
struct Pending {
    uverbs: Option<Uverbs>,
    async_fd: Option<OwnedFd>,
    /// The op tables verbs_set_ops published after the open (see
    /// `Priv::current`).
    #[expect(clippy::vec_box, reason = "a published table must not move")]
    tables: Vec<Box<verbs_context_ops>>,
    /// Whether `Priv::setup` is initialised: by the first verbs_set_ops
    /// (which copies the plugin's table whole: nothing to merge with), or
    /// by the seal (an all-NULL table, for a plugin that set none).
    set: bool,
}

/// Every hosted context from verbs_init_context to verbs_uninit_context,
/// by its `ibv_context` address. A process holds few contexts, so a list
/// scanned under a read lock is cheaper than hashing the address (the
/// plugin's every kernel command looks its context up here).
static HOSTED: RwLock<Vec<(usize, Arc<Priv>)>> = RwLock::new(Vec::new());

/// Runs `f` on the record of the hosted context `ctx` (under the list's read
/// lock: `f` must not call back into the plugin).
fn with_priv<R>(ctx: *const ibv_context, f: impl FnOnce(&Arc<Priv>) -> R) -> Result<R> {
    let g = HOSTED.read().unwrap_or_else(|p| p.into_inner());
    let k = ctx as usize;
    g.iter()
        .find(|(a, _)| *a == k)
        .map(|(_, p)| f(p))
        .ok_or(Errno::EINVAL)
}

pub(crate) fn priv_of(ctx: *const ibv_context) -> Result<Arc<Priv>> {
    with_priv(ctx, Arc::clone)
}

/// Runs `f` on the command fd of a hosted context: our Context's once it is
/// open (the calling verb's own reference when a verb is calling the plugin,
/// see [`super::call`]), the pending one while the plugin is still setting it up.
#[inline]
pub(crate) fn with_uverbs<R>(
    ctx: *const ibv_context,
    f: impl FnOnce(&Uverbs) -> Result<R>,
) -> Result<R> {
    with_uverbs_in(super::call::current(), ctx, f)
}

/// [`with_uverbs`] with this thread's frame already read.
#[inline]
pub(crate) fn with_uverbs_in<R>(
    frame: super::call::CallNow,
    ctx: *const ibv_context,
    f: impl FnOnce(&Uverbs) -> Result<R>,
) -> Result<R> {
    if let Some(c) = frame.context(ctx) {
        // SAFETY: the calling verb holds the Context until this returns.
        return f(&unsafe { c.as_ref() }.uverbs);
    }
    match with_priv(ctx, |p| opened(p))? {
        Some(c) => f(&c.uverbs),
        None => {
            let p = priv_of(ctx)?;
            let g = p.pending.lock().unwrap_or_else(|p| p.into_inner());
            f(g.uverbs.as_ref().ok_or(Errno::EINVAL)?)
        }
    }
}

/// Runs `f` on our Context of a hosted context, once opened (without the
/// registry; the calling verb's reference when a verb is calling the plugin).
pub(crate) fn with_context<R>(
    ctx: *const ibv_context,
    f: impl FnOnce(&Context) -> Result<R>,
) -> Result<R> {
    with_context_in(super::call::current(), ctx, f)
}

/// [`with_context`] with this thread's frame already read.
pub(crate) fn with_context_in<R>(
    frame: super::call::CallNow,
    ctx: *const ibv_context,
    f: impl FnOnce(&Context) -> Result<R>,
) -> Result<R> {
    if let Some(c) = frame.context(ctx) {
        // SAFETY: the calling verb holds the Context until this returns.
        return f(unsafe { c.as_ref() });
    }
    f(&*context_of(ctx)?)
}

/// Our Context of a hosted context, once opened (without the registry).
pub(crate) fn context_of(ctx: *const ibv_context) -> Result<Arc<Context>> {
    with_priv(ctx, |p| opened(p))?.ok_or(Errno::EINVAL)
}

fn opened(p: &Priv) -> Option<Arc<Context>> {
    p.opened()
}

/// ibv_cmd_get_context's result: the async fd goes to the pending context.
///
/// # Safety
/// `ctx` is NULL or points to a context (checked against ours first).
pub(crate) unsafe fn set_async_fd(
    ctx: *mut ibv_context,
    fd: OwnedFd,
    num_comp_vectors: u32,
) -> Result<()> {
    let p = priv_of(ctx)?;
    // SAFETY: `ctx` is a live hosted context (found above).
    unsafe {
        (*ctx).async_fd = std::os::fd::AsRawFd::as_raw_fd(&fd);
        (*ctx).num_comp_vectors = num_comp_vectors as c_int;
    }
    p.pending.lock().unwrap_or_else(|p| p.into_inner()).async_fd = Some(fd);
    Ok(())
}

/// verbs_init_context: takes over `cmd_fd` (closed on failure).
///
/// # Safety
/// `vctx` points to a writable verbs_context inside the plugin's allocation
/// (all of it is written: its earlier content does not matter): the v34
/// part of one of `pabi`'s version.
pub(crate) unsafe fn init_context(
    vctx: *mut VerbsContext44,
    device: *mut ibv_device,
    cmd_fd: c_int,
    driver_id: u32,
    pabi: &'static crate::driver_abi::Pabi,
) -> Result<()> {
    // SAFETY: the caller hands over the fd.
    let fd = (cmd_fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(cmd_fd) });
    let dev = object::lookup::<Device>(device)?;
    let fd = fd.ok_or(Errno::EINVAL)?;
    if vctx.is_null() {
        return Err(Errno::EINVAL);
    }
    // Every slot a dummy, `sz`, `abi_compat`, no async fd: the same bytes
    // for every context, made once and copied in whole.
    static IMAGE: OnceLock<[u8; v34::SIZE_44]> = OnceLock::new();
    let img = IMAGE.get_or_init(|| {
        v34::image_of(|o| {
            crate::context::dummy::fill_verbs_context(o);
            o.context.async_fd = -1;
            o.context.abi_compat = ABI_IS_EXTENDED;
        })
    });
    // SAFETY: per this function's contract (the plugin's context, being
    // set up by us alone).
    let v = unsafe {
        std::ptr::copy_nonoverlapping(img.as_ptr(), vctx.cast::<u8>(), v34::SIZE_44);
        &mut *vctx
    };
    v.context.device = device;
    v.context.cmd_fd = cmd_fd;
    // SAFETY: an all-zero glibc mutex is PTHREAD_MUTEX_INITIALIZER; init it anyway.
    unsafe { libc::pthread_mutex_init(&mut v.context.mutex, std::ptr::null()) };
    let p = Priv::new(driver_id, pabi, dev, Some(Uverbs::from_fd(fd, driver_id)));
    // The plugin never reads `priv`; it names our record for debuggers.
    let pr = Arc::as_ptr(&p).cast_mut().cast();
    // SAFETY: as above; `priv` is in the v34 part.
    unsafe {
        let at = slot_at(
            vctx.cast(),
            std::mem::offset_of!(verbs_context, r#priv),
            |v| &v.r#priv,
        );
        at.write(pr);
    }
    let key = &raw mut v.context as usize;
    let mut g = HOSTED.write().unwrap_or_else(|p| p.into_inner());
    g.retain(|(a, _)| *a != key);
    g.push((key, p));
    Ok(())
}

/// verbs_uninit_context: the plugin is freeing its context.
///
/// # Safety
/// `vctx` is NULL or a verbs_context a plugin initialised through us.
pub(crate) unsafe fn uninit_context(vctx: *mut VerbsContext44) {
    if vctx.is_null() {
        return;
    }
    // SAFETY: only the address is computed.
    let key = unsafe { &raw mut (*vctx).context } as usize;
    let gone = {
        let mut g = HOSTED.write().unwrap_or_else(|p| p.into_inner());
        let i = g.iter().position(|(a, _)| *a == key);
        i.map(|i| g.swap_remove(i))
    };
    if gone.is_some() {
        // SAFETY: a context we initialised; its mutex is no longer used.
        unsafe { libc::pthread_mutex_destroy(&mut (*vctx).context.mutex) };
    }
}

/// The address of field `f` (picked by `pick`, which only names it) of
/// the context whose v34 part starts at `v34`: our layout's field offset
/// less what rdma-core 64 added in front.
///
/// # Safety
/// `v34` points to a v34 `verbs_context`; the field is in its v34 part.
#[inline(always)]
unsafe fn slot_at<T>(v34: *mut u8, off: usize, _pick: fn(&verbs_context) -> &T) -> *mut T {
    // SAFETY: per the contract, inside the v34 struct.
    unsafe { v34.add(off - v34::GROWTH).cast() }
}

/// [`slot_at`] of the field named `$slot` (offset and type from one name).
macro_rules! slot {
    ($v34:expr, $($slot:ident).+) => {
        slot_at($v34, std::mem::offset_of!(verbs_context, $($slot).+), |v| &v.$($slot).+)
    };
}

macro_rules! put_slots {
    ($ops:ident => $v34:ident; $($($slot:ident).+ = $name:ident),* $(,)?) => {$(
        if let Some(f) = $ops.$name {
            // SAFETY: a slot of the v34 part (the caller's contract): the
            // same C function type, spelled by two Rust declarations.
            unsafe {
                let p = slot!($v34, $($slot).+);
                #[allow(clippy::useless_transmute, clippy::missing_transmute_annotations)]
                p.write(Some(std::mem::transmute::<_, _>(f)));
            }
        }
    )*};
}

/// verbs_set_ops: the plugin's ops replace ours slot by slot; the public
/// slots verbs.h's inline functions call are set as rdma-core sets them.
/// Also after the context is opened, as in rdma-core: then the merged table
/// is a new one, published whole, and only the public slots that change are
/// written (the rest of the context is in use).
///
/// # Safety
/// `vctx` is a hosted context (being set up, or opened and not closed);
/// `ops` the plugin's table.
pub(crate) unsafe fn set_ops(vctx: *mut VerbsContext44, ops: &verbs_context_ops) -> Result<()> {
    // SAFETY: only the address is computed.
    let p = priv_of(unsafe { &raw mut (*vctx).context })?;
    let mut g = p.pending.lock().unwrap_or_else(|p| p.into_inner());
    let now = p.current.load(Ordering::Relaxed);
    if now.is_null() {
        // SAFETY: not sealed: no reader yet; writers hold `pending`'s lock.
        let t = unsafe { &mut *p.setup.get() };
        if std::mem::replace(&mut g.set, true) {
            // SAFETY: `set`: written whole by an earlier call.
            unsafe { t.assume_init_mut() }.merge(ops);
        } else {
            t.write(*ops);
        }
        drop(g);
        // SAFETY: per this function's contract (set-up: ours alone).
        unsafe { put_op_slots(vctx.cast(), ops) };
        return Ok(());
    }
    // SAFETY: a published table, kept while `p` lives.
    let mut t = Box::new(unsafe { *now });
    t.merge(ops);
    p.current.store(&raw mut *t, Ordering::Release);
    g.tables.push(t);
    // The library's slots stay ours, as the open left them (set_lib_ops
    // after the plugin's): only the plugin's own (data path) change.
    // SAFETY: per this function's contract; writers hold `pending`'s lock.
    unsafe {
        v34::update_ours(vctx, |v| {
            let v34 = (&raw mut *v).cast::<u8>().add(v34::GROWTH);
            put_op_slots(v34, ops);
            set_lib_ops(v34);
        })
    };
    Ok(())
}

/// verbs_set_ops of a 65 plugin: its whole table is kept too, for the
/// slots 34's layout lacks (merged slot by slot, as [`set_ops`] merges).
///
/// # Safety
/// `vctx` is NULL or a hosted context's v34 part (checked against ours).
pub(crate) unsafe fn set_ops65(
    vctx: *mut VerbsContext44,
    ops: &crate::driver_abi::v65::verbs_context_ops,
) -> Result<()> {
    if vctx.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: only the address is computed.
    let p = priv_of(unsafe { &raw mut (*vctx).context })?;
    let mut g = p.ops65.write().unwrap_or_else(|p| p.into_inner());
    match g.as_mut() {
        Some(t) => t.merge(ops),
        None => *g = Some(Box::new(*ops)),
    }
    Ok(())
}

/// The plugin's ops into the slots of its context, each written in place
/// (no copy of the context).
///
/// # Safety
/// `v34` points to a v34 `verbs_context` nobody else writes meanwhile.
unsafe fn put_op_slots(v34: *mut u8, ops: &verbs_context_ops) {
    put_slots!(ops => v34;
        advise_mr = advise_mr, alloc_dm = alloc_dm, alloc_null_mr = alloc_null_mr,
        alloc_parent_domain = alloc_parent_domain, alloc_td = alloc_td,
        attach_counters_point_flow = attach_counters_point_flow,
        create_counters = create_counters, close_xrcd = close_xrcd,
        ibv_create_flow = create_flow, create_flow_action_esp = create_flow_action_esp,
        create_qp_ex = create_qp_ex, create_rwq_ind_table = create_rwq_ind_table,
        create_srq_ex = create_srq_ex, create_wq = create_wq, dealloc_td = dealloc_td,
        destroy_counters = destroy_counters, ibv_destroy_flow = destroy_flow,
        destroy_flow_action = destroy_flow_action,
        destroy_rwq_ind_table = destroy_rwq_ind_table, destroy_wq = destroy_wq,
        free_dm = free_dm, get_srq_num = get_srq_num, modify_cq = modify_cq,
        modify_flow_action_esp = modify_flow_action_esp,
        modify_qp_rate_limit = modify_qp_rate_limit, modify_wq = modify_wq,
        open_qp = open_qp, open_xrcd = open_xrcd, post_srq_ops = post_srq_ops,
        query_device_ex = query_device_ex, query_rt_values = query_rt_values,
        read_counters = read_counters, reg_dm_mr = reg_dm_mr,
    );
    put_slots!(ops => v34;
        context.ops.alloc_mw = alloc_mw, context.ops.bind_mw = bind_mw, context.ops.dealloc_mw = dealloc_mw, context.ops.poll_cq = poll_cq,
        context.ops.post_recv = post_recv, context.ops.post_send = post_send, context.ops.post_srq_recv = post_srq_recv,
        context.ops.req_notify_cq = req_notify_cq,
        context.ops._compat_alloc_pd = alloc_pd, context.ops._compat_dealloc_pd = dealloc_pd, context.ops._compat_reg_mr = reg_mr,
        context.ops._compat_rereg_mr = rereg_mr, context.ops._compat_dereg_mr = dereg_mr,
        context.ops._compat_create_cq = create_cq, context.ops._compat_cq_event = cq_event,
        context.ops._compat_resize_cq = resize_cq, context.ops._compat_destroy_cq = destroy_cq,
        context.ops._compat_create_srq = create_srq, context.ops._compat_modify_srq = modify_srq,
        context.ops._compat_query_srq = query_srq, context.ops._compat_destroy_srq = destroy_srq,
        context.ops._compat_create_qp = create_qp, context.ops._compat_query_qp = query_qp,
        context.ops._compat_modify_qp = modify_qp, context.ops._compat_destroy_qp = destroy_qp,
        context.ops._compat_create_ah = create_ah, context.ops._compat_destroy_ah = destroy_ah,
        context.ops._compat_attach_mcast = attach_mcast, context.ops._compat_detach_mcast = detach_mcast,
        context.ops._compat_async_event = async_event,
    );
}

/// The library's own slots (rdma-core's set_lib_ops): ours dispatch through
/// the registry to the plugin's private ops. Written straight into the v34
/// context at `v34`, from the words the verbs layer's filler sets (made
/// once: its slots are constants).
///
/// # Safety
/// `v34` points to a v34 `verbs_context` (pointer-aligned); no other thread
/// writes its slots meanwhile.
unsafe fn set_lib_ops(v34: *mut u8) {
    static LIB: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    let words = LIB.get_or_init(|| {
        v34::words_of(|v| {
            crate::context::fill_lib_slots(v);
            super::hosted_slots::fill(v);
            // The data path stays the plugin's own: verbs.h's inline
            // functions call these slots directly, so whatever our library
            // puts there for its own providers is left out for a plugin.
            let n = &mut v.context.ops;
            (n.poll_cq, n.req_notify_cq, n.post_send, n.post_recv) = (None, None, None, None);
            (n.post_srq_recv, n.alloc_mw, n.dealloc_mw, n.bind_mw) = (None, None, None, None);
        })
    });
    // SAFETY: per this function's contract: slots of the v34 part, each
    // one aligned word; rdma-core stores the flow ops in the placeholders
    // as untyped function pointers.
    unsafe {
        v34::put_words(v34, words);
        let (cf, df) = (slot!(v34, ibv_create_flow), slot!(v34, ibv_destroy_flow));
        let cf = cf
            .read()
            .map(|f| std::mem::transmute::<_, unsafe extern "C" fn()>(f));
        let df = df
            .read()
            .map(|f| std::mem::transmute::<_, unsafe extern "C" fn()>(f));
        slot!(v34, ABI_placeholder1).write_volatile(cf);
        slot!(v34, ABI_placeholder2).write_volatile(df);
    }
}

/// verbs_open_device for a hosted device: the plugin allocates the context
/// on a fresh command fd, then our Context takes over its fds, with the
/// provider ops `ops` makes over its private half (the caller names the op
/// type, so this file need not import it).
/// `private_data` goes to the plugin's `alloc_context` as is, as in rdma-core
/// 44 (a direct-verbs library's attributes: `mlx5dv_context_attr` for
/// `mlx5dv_open_device`); NULL for ibv_open_device.
pub(crate) fn open(
    dev: &Arc<Device>,
    vdev: NonNull<verbs_device>,
    private_data: *mut c_void,
    ops: impl FnOnce(Arc<Priv>) -> Box<dyn crate::context::ContextOps>,
) -> Result<Arc<Context>> {
    let fd = std::os::fd::IntoRawFd::into_raw_fd(dev.open_uverbs()?);
    // SAFETY: the plugin's ops and device, both alive for good.
    let (alloc, ibdev, dops) = unsafe {
        let v = vdev.as_ptr();
        ((*(*v).ops).alloc_context, &raw mut (*v).device, (*v).ops)
    };
    let growth = super::registry::pabi_of(dops).context_growth;
    let alloc = alloc.ok_or(Errno::EOPNOTSUPP)?;
    // SAFETY: the plugin's allocator takes the fd (closing it on failure).
    let vctx = unsafe { alloc(ibdev, fd, private_data) };
    let vctx = NonNull::new(vctx.cast::<u8>()).ok_or_else(|| match Errno::last() {
        Errno(0) => Errno::ENOMEM,
        e => e,
    })?;
    // The host sees the context from its v34 part on.
    // SAFETY: inside the plugin's verbs_context of its version.
    let vctx = unsafe { vctx.add(growth) }.cast::<VerbsContext44>();
    // SAFETY: the plugin returned its initialised context, ours until published.
    unsafe { set_lib_ops(vctx.as_ptr().cast()) };
    // SAFETY: as above; only the address is computed.
    let ctx_ptr = unsafe { &raw mut (*vctx.as_ptr()).context };
    let p = priv_of(ctx_ptr)?;
    let (uverbs, async_fd) = {
        let mut g = p.pending.lock().unwrap_or_else(|p| p.into_inner());
        (g.uverbs.take(), g.async_fd.take())
    };
    let uverbs = uverbs.ok_or(Errno::EINVAL)?;
    // No async fd from GET_CONTEXT: events are not available on it.
    let async_fd = match async_fd {
        Some(f) => f,
        None => std::fs::File::open("/dev/null")?.into(),
    };
    p.seal();
    let ctx = crate::context::open_hosted(dev, uverbs, async_fd, vctx, ops(p.clone()));
    p.set_opened(&ctx);
    Ok(ctx)
}

#[cfg(test)]
mod tests;
