//! Ownership of the objects whose addresses C holds: the control path's way in.
//!
//! Every object we hand to C (device, context, PD, CQ, QP, ...) has a record
//! the core finds by the address of its C struct. A pointer coming back from C
//! is only dereferenced after its record is found with the right kind, so a
//! stale, foreign or garbage pointer gives EINVAL instead of undefined
//! behaviour, and an object stays alive while a verb is using it even if
//! another thread destroys it meanwhile (a counted [`Ref`]).
//!
//! Where the record lives:
//! - A Rust provider's object lives in a type-stable slab slot ([`slab`]); its
//!   record lives in the same slot's header, counted by the slot's state word
//!   (registered flag + references: `count::RegCount`). Creating one takes a slot and
//!   allocates nothing; finding one is the kind's slab's address check (one
//!   multiply and compare) and a compare-and-swap on the count. Each kind has
//!   at most one slab, learnt at its first object (`kinds::SLABS`).
//! - A hosted C provider's object (at an arbitrary C address) has its record
//!   in a slot of one more slab, of records only ([`hosted`]), found by
//!   address in a table (open addressing, multiplicative hash, the kind kept
//!   beside the slot's address): no allocation per object either. [`get`]
//!   tries the kind's slab first, then that table.
//! - The roots (device, context) are heap `Arc`s, found by address in slots
//!   of a static array without a lock ([`roots`]), or in a locked table when
//!   their slots are taken.
//!
//! # The object model (API summary)
//! - Roots (device, context) are Rust objects ([`CObject`]): [`publish`],
//!   [`lookup`] (an `Arc`), [`hold`] (a counted reference for a verb's
//!   duration), [`retire`].
//! - Everything a context creates is an [`Obj`] record, whatever provider made
//!   it: its [`Kind`], the C pointer (the head of the provider's object: a Rust
//!   provider's `#[repr(C)]` slab object or a C provider's own struct), its
//!   owning context (`obj.ctx`, whose `ops` the verbs dispatch to), the generic
//!   bookkeeping ([`events::Events`]: async event acknowledgements; the
//!   destroy claim)
//!   and the provider's ownership [`Token`].
//! - A provider's create returns a [`New`] (C pointer + token, and the slot
//!   for a slab object); the verbs layer wraps it with [`adopt`] (kind from
//!   the C type, see [`KindOf`]) and hands the pointer to C. [`get`] finds a
//!   live object of a kind (`get::<ibv_qp, _>`) and returns a [`Ref`] (derefs
//!   to the `Obj`), [`take_if`] removes it (destroy; the destroy claim makes
//!   two destroys exclusive), [`events::destroy`] runs the
//!   event-acknowledging destroy of CQs, QPs and SRQs, [`take_owned_by`] all
//!   the objects of a closed context (walking the slabs' slots, then the hosted table).
//!   The object is released when its last `Ref` goes.
//! - The data path does not come here: a Rust provider checks C's pointers
//!   with its type's [`slab::Slab::pin`] (type-stable memory, one address
//!   check, see `slab`); destroy fences it out (`Token::retire`) before
//!   waiting for event acknowledgements.

// The layers, each importing only those above it in this list: the state
// word, the address table, the slot layout, the slabs, the kinds and their
// slabs, the event counters, the record, its counted reference, the hosted
// records, plain handles, the roots; then this public face and the destroy
// protocol (`events`).
mod ack;
mod count;
pub(crate) mod events;
mod handles;
mod hosted;
mod kinds;
mod obj;
mod rec;
mod roots;
pub(crate) mod slab;
mod slot;
mod table;

pub(crate) use ack::EventCounts;
pub(crate) use handles::Handles;
pub(crate) use kinds::RecordOwner;
pub(crate) use kinds::{Kind, KindOf};
use kinds::{KindSlab, SLABS, owned, owner_id, slab_of};
pub(crate) use obj::Obj;
pub(crate) use rec::Ref;
pub(crate) use slot::New;

use crate::entry::{Errno, Result};
use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

/// A Rust object that owns a C struct at a stable address.
pub(crate) trait CObject: Any + Send + Sync {
    /// The C struct C code sees.
    type C;
    /// The address C holds: inside `self`, stable as long as the Arc lives.
    fn c_ptr(&self) -> *mut Self::C;
}

type Entry = Arc<dyn Any + Send + Sync>;

/// The tag of a root's slot (a device or context): no [`Kind`].
const ROOT: u8 = u8::MAX;

use table::Table;

pub(crate) use roots::Held;

/// The roots whose slot window ([`roots`]) was full, by address.
static REGISTRY: RwLock<Table<Entry>> = RwLock::new(Table::new());
/// How many roots [`REGISTRY`] holds: a look-up that [`roots`] does not
/// answer only takes its lock when there are some.
static OVERFLOW: AtomicUsize = AtomicUsize::new(0);

fn with_map<R>(f: impl FnOnce(&mut Table<Entry>) -> R) -> R {
    let mut g = REGISTRY.write().unwrap_or_else(|p| p.into_inner());
    f(&mut g)
}

fn read_map<R>(f: impl FnOnce(&Table<Entry>) -> R) -> R {
    let g = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
    f(&g)
}

/// Hands `obj` to C: from now on its C pointer is valid for [`lookup`].
pub(crate) fn publish<T: CObject>(obj: Arc<T>) -> *mut T::C {
    let p = obj.c_ptr();
    if let Err(obj) = roots::put(p as usize, obj) {
        with_map(|m| {
            m.insert(p as usize, ROOT, obj as Entry);
            OVERFLOW.fetch_add(1, Ordering::Relaxed);
        });
    }
    p
}

/// A counted reference to the object behind a C pointer, if it is a live
/// object of type `T`: for the duration of a verb (see [`lookup`] for an
/// `Arc` to keep).
#[inline]
pub(crate) fn hold<T: CObject>(p: *const T::C) -> Result<Held<T>> {
    if let Some(h) = roots::get::<T>(p as usize) {
        return Ok(h);
    }
    hold_mapped::<T>(p)
}

/// [`hold`]'s way for the roots of the locked table, and bad pointers.
#[cold]
#[inline(never)]
fn hold_mapped<T: CObject>(p: *const T::C) -> Result<Held<T>> {
    if p.is_null() || OVERFLOW.load(Ordering::Relaxed) == 0 {
        return Err(Errno::EINVAL);
    }
    read_map(|m| m.get(p as usize).and_then(|s| s.e.clone()))
        .and_then(|e| e.downcast::<T>().ok())
        .map(Held::owned)
        .ok_or(Errno::EINVAL)
}

/// The object behind a C pointer, if it is a live object of type `T`.
#[inline]
pub(crate) fn lookup<T: CObject>(p: *const T::C) -> Result<Arc<T>> {
    hold::<T>(p).map(|h| h.arc())
}

/// Takes the object back from C (the destroy verbs): the pointer is invalid for
/// C from now on; the memory goes when the last Arc does.
pub(crate) fn retire<T: CObject>(p: *const T::C) -> Result<Arc<T>> {
    retire_if::<T>(p, |_| Ok(()))
}

/// Like [`retire`], but only when `can_go` agrees; of two destroys of one
/// object, only one succeeds.
pub(crate) fn retire_if<T: CObject>(
    p: *const T::C,
    can_go: impl FnOnce(&T) -> Result<()>,
) -> Result<Arc<T>> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    let key = p as usize;
    if let Some(h) = roots::get::<T>(key) {
        can_go(&h)?;
        if !h.unregister() {
            return Err(Errno::EINVAL);
        }
        return Ok(h.arc());
    }
    // Checked under the table's write lock, so two destroys cannot both
    // succeed.
    with_map(|m| {
        let i = m.find(key).ok_or(Errno::EINVAL)?;
        let obj = m.slots[i]
            .e
            .as_ref()
            .and_then(|e| e.downcast_ref::<T>())
            .ok_or(Errno::EINVAL)?;
        can_go(obj)?;
        OVERFLOW.fetch_sub(1, Ordering::Relaxed);
        // Checked above: present and a T.
        m.take(i)
            .and_then(|e| e.downcast::<T>().ok())
            .ok_or(Errno::EINVAL)
    })
}

/// Hands a provider's new object to C: registered as a `C::KIND` owned by
/// `ctx`; returns the pointer C gets. A slab's object keeps its record in
/// its slot (no allocation); a hosted C provider's goes into a record slot
/// of [`hosted`].
#[inline(always)]
pub(crate) fn adopt<C: KindOf, O: RecordOwner>(ctx: Arc<O>, new: New) -> *mut C {
    if let Some((_, probe)) = new.home() {
        let e = SLABS[C::KIND as usize].get_or_init(|| KindSlab {
            probe,
            owner: owner_id::<O>(),
            token: probe.token(),
            find: probe.finder(),
        });
        if std::ptr::addr_eq(e.probe, probe) && owned::<O>(e.owner) {
            return Ref::register(C::KIND, ctx, new, false).as_ptr().cast();
        }
    }
    hosted::adopt(C::KIND, ctx, new).as_ptr().cast()
}

/// The live object C's pointer `p` names, if it is one of kind `C::KIND`:
/// first by the kind's slab (address check), then among the hosted.
#[inline]
pub(crate) fn get<C: KindOf, O: RecordOwner>(p: *const C) -> Result<Ref<O>> {
    if let Some(slab) = slab_of::<O>(C::KIND)
        && let Some(home) = slab.find.home(p.cast())
        && let Some(r) = Ref::<O>::acquire(home)
    {
        if r.kind() == C::KIND {
            return Ok(r);
        }
        return Err(Errno::EINVAL);
    }
    get_mapped::<C, O>(p)
}

/// [`get`]'s way for hosted objects and bad pointers: out of line, so that
/// the slab's way needs no stack frame.
#[cold]
#[inline(never)]
fn get_mapped<C: KindOf, O: RecordOwner>(p: *const C) -> Result<Ref<O>> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    hosted::get::<C, O>(p).ok_or(Errno::EINVAL)
}

/// `f` of the C struct of a live hosted object of kind `C::KIND` at `p`,
/// read under the hosted table's lock instead of through a counted [`Ref`]
/// (an object of a slab: EINVAL). For a field read (a kernel handle).
pub(crate) fn read_mapped<C: KindOf, O: RecordOwner, R>(
    p: *const C,
    f: impl FnOnce(&C) -> R,
) -> Result<R> {
    hosted::read_c::<C, O, R>(p, f).ok_or(Errno::EINVAL)
}

/// Takes `r`'s object back from C: `get` no longer finds it; false if
/// another thread did first. The object goes when the last [`Ref`] does.
#[inline(always)]
pub(super) fn unregister<O: RecordOwner>(r: &Ref<O>) -> bool {
    if r.is_hosted() {
        return hosted::unregister(r);
    }
    r.unregister()
}

/// Takes the object of kind `C::KIND` at `p` back from C when `can_go`
/// agrees (the provider's destroy). The destroy claim ([`Obj::claim_destroy`]) makes
/// two destroys of one object exclusive: the second gets EINVAL; a failed
/// one leaves the object as it was. The object is released when the
/// returned reference (and any a verb in flight holds) goes.
pub(crate) fn take_if<C: KindOf, O: RecordOwner>(
    p: *const C,
    can_go: impl FnOnce(&Obj<O>) -> Result<()>,
) -> Result<Ref<O>> {
    let obj = get::<C, O>(p)?;
    obj.claim_destroy()?;
    if let Err(e) = can_go(&obj) {
        obj.release_destroy();
        return Err(e);
    }
    if !unregister(&obj) {
        return Err(Errno::EINVAL);
    }
    obj.retire();
    Ok(obj)
}

/// Takes back from C every object owned by `ctx` (ibv_close_device): the
/// live slots of every kind's slab, then the hosted ones. They are returned
/// so that the caller drops them outside the registry's locks.
pub(crate) fn take_owned_by<O: RecordOwner>(ctx: &Arc<O>) -> Vec<Ref<O>> {
    let mut out = Vec::new();
    // Every record holds a clone of its owner: when the caller's is the only
    // one, nothing is left to find, and no other thread can make a record
    // for this owner (it would need a clone). Spares the walk of every slot.
    if Arc::strong_count(ctx) == 1 {
        return out;
    }
    for slab in SLABS.iter().filter_map(OnceLock::get) {
        if !owned::<O>(slab.owner) {
            continue;
        }
        slab.probe.each(&mut |home| {
            if let Some(r) = Ref::<O>::acquire(home)
                && Arc::ptr_eq(&r.ctx, ctx)
                && !r.is_hosted()
                && r.unregister()
            {
                out.push(r);
            }
        });
    }
    hosted::take_owned_by(ctx, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::UnsafeCell;

    #[repr(C)]
    struct Fake {
        c: UnsafeCell<u64>,
    }
    // SAFETY: test type; the cell is only touched through the registry's Arc.
    #[allow(unsafe_code)]
    unsafe impl Sync for Fake {}
    impl CObject for Fake {
        type C = u64;
        fn c_ptr(&self) -> *mut u64 {
            self.c.get()
        }
    }

    struct Other(UnsafeCell<u64>);
    // SAFETY: test type; the cell is only touched through its address.
    #[allow(unsafe_code)]
    unsafe impl Sync for Other {}
    impl CObject for Other {
        type C = u64;
        fn c_ptr(&self) -> *mut u64 {
            self.0.get()
        }
    }

    #[test]
    fn publish_lookup_retire() {
        let p = publish(Arc::new(Fake {
            c: UnsafeCell::new(7),
        }));
        assert!(lookup::<Fake>(p).is_ok());
        assert_eq!(lookup::<Other>(p).err(), Some(Errno::EINVAL));
        assert_eq!(lookup::<Fake>(std::ptr::null()).err(), Some(Errno::EINVAL));
        let busy = retire_if::<Fake>(p, |_| Err(Errno::EBUSY));
        assert_eq!(busy.err(), Some(Errno::EBUSY));
        assert!(retire::<Fake>(p).is_ok());
        assert_eq!(retire::<Fake>(p).err(), Some(Errno::EINVAL));
        assert_eq!(lookup::<Fake>(p).err(), Some(Errno::EINVAL));
    }

    /// A root that counts its drops through `alive`.
    struct Live {
        c: UnsafeCell<u64>,
        alive: Arc<()>,
    }
    // SAFETY: test type; the cell is only touched through its address.
    #[allow(unsafe_code)]
    unsafe impl Sync for Live {}
    impl CObject for Live {
        type C = u64;
        fn c_ptr(&self) -> *mut u64 {
            self.c.get()
        }
    }

    fn live(alive: &Arc<()>) -> Arc<Live> {
        Arc::new(Live {
            c: UnsafeCell::new(0),
            alive: alive.clone(),
        })
    }

    /// A held root outlives its retirement; the registry's reference goes
    /// with the last holder, and the root is not found again.
    #[test]
    fn held_roots_outlive_retire() {
        let alive = Arc::new(());
        let p = publish(live(&alive));
        let h = hold::<Live>(p).expect("live");
        assert!(hold::<Fake>(p.cast_const()).is_err(), "another type");
        let a = retire::<Live>(p).expect("retired");
        assert!(hold::<Live>(p).is_err());
        assert_eq!(retire::<Live>(p).err(), Some(Errno::EINVAL));
        drop(a);
        assert_eq!(Arc::strong_count(&alive), 2, "held");
        assert!(Arc::ptr_eq(&h.alive, &alive));
        drop(h);
        assert_eq!(Arc::strong_count(&alive), 1, "released with the holder");
    }

    /// More roots than the slots hold: the rest go to the locked table and
    /// are found, retired and released the same way.
    #[test]
    fn roots_beyond_the_slots() {
        let alive = Arc::new(());
        let n = if cfg!(miri) { 300 } else { 1000 };
        let ps: Vec<_> = (0..n).map(|_| publish(live(&alive))).collect();
        assert!(OVERFLOW.load(Ordering::Relaxed) > 0);
        for &p in &ps {
            assert!(lookup::<Live>(p).is_ok());
            assert!(lookup::<Fake>(p.cast_const()).is_err());
        }
        let held: Vec<_> = ps.iter().map(|&p| hold::<Live>(p).expect("live")).collect();
        for &p in &ps {
            assert!(retire::<Live>(p).is_ok());
            assert!(lookup::<Live>(p).is_err());
        }
        assert_eq!(Arc::strong_count(&alive), 1 + n);
        drop(held);
        assert_eq!(Arc::strong_count(&alive), 1);
    }

    /// Look-ups racing with retirements and new roots (the slots reused):
    /// a look-up finds its root or nothing, never another.
    #[test]
    fn roots_race() {
        let alive = Arc::new(());
        let rounds = if cfg!(miri) { 20 } else { 2000 };
        let p = publish(live(&alive)) as usize;
        let reader = std::thread::spawn(move || {
            for _ in 0..rounds {
                if let Ok(h) = hold::<Live>(p as *const u64) {
                    assert_eq!(h.c_ptr() as usize, p);
                }
            }
        });
        let mut keep = Vec::new();
        for _ in 0..rounds / 10 {
            let q = publish(live(&alive));
            assert_eq!(hold::<Live>(q).expect("live").c_ptr(), q);
            keep.push(retire::<Live>(q).expect("retired"));
        }
        reader.join().unwrap();
        assert!(retire::<Live>(p as *const u64).is_ok());
        drop(keep);
        assert_eq!(Arc::strong_count(&alive), 1);
    }

    use crate::abi::{ibv_dm, ibv_pd};
    use slab::Slab;

    /// A slab object (kind Dm: no real provider's slab uses that kind).
    #[repr(C)]
    struct Thing {
        /// Stands for the C struct (the registry does not read a DM's).
        c: [u64; 4],
        alive: Arc<()>,
    }
    static THINGS: Slab<Thing> = Slab::new();
    /// The owner (a context) of the test's records.
    struct Owner;
    // SAFETY: a test owner; the tests check record owners at run time.
    #[allow(unsafe_code)]
    unsafe impl RecordOwner for Owner {}

    fn make(ctx: &Arc<Owner>) -> (*mut ibv_dm, Arc<()>) {
        let alive = Arc::new(());
        let new = THINGS.vacant().fill(Thing {
            c: [0; 4],
            alive: alive.clone(),
        });
        (adopt::<ibv_dm, Owner>(ctx.clone(), new), alive)
    }

    #[test]
    fn slot_records_get_take() {
        let ctx = Arc::new(Owner);
        let (p, alive) = make(&ctx);
        assert!(
            SLABS[Kind::Dm as usize].get().is_some(),
            "the slab is the kind's"
        );
        let r = get::<ibv_dm, Owner>(p).expect("live");
        assert_eq!(r.kind(), Kind::Dm);
        assert!(Arc::ptr_eq(&r.ctx, &ctx));
        // Wrong kind, misaligned, NULL, foreign.
        assert!(get::<ibv_pd, Owner>(p.cast()).is_err());
        assert!(get::<ibv_dm, Owner>(p.cast::<u8>().wrapping_add(8).cast()).is_err());
        assert!(get::<ibv_dm, Owner>(std::ptr::null()).is_err());
        let x = 0u64;
        assert!(get::<ibv_dm, Owner>((&raw const x).cast()).is_err());
        // A refused destroy leaves it as it was.
        let busy = take_if::<ibv_dm, Owner>(p, |_| Err(Errno::EBUSY));
        assert_eq!(busy.err(), Some(Errno::EBUSY));
        assert!(get::<ibv_dm, Owner>(p).is_ok());
        let t = take_if::<ibv_dm, Owner>(p, |_| Ok(())).expect("destroyed");
        assert_eq!(
            take_if::<ibv_dm, Owner>(p, |_| Ok(())).err(),
            Some(Errno::EINVAL)
        );
        assert!(get::<ibv_dm, Owner>(p).is_err());
        // Held references keep the object until they go.
        assert_eq!(Arc::strong_count(&alive), 2);
        drop(t);
        assert_eq!(Arc::strong_count(&alive), 2);
        drop(r);
        assert_eq!(Arc::strong_count(&alive), 1, "released with the last Ref");
        assert!(get::<ibv_dm, Owner>(p).is_err());
    }

    #[test]
    fn slot_records_of_a_closed_context() {
        let (a, b) = (Arc::new(Owner), Arc::new(Owner));
        let objs: Vec<_> = (0..5)
            .map(|i| make(if i % 2 == 0 { &a } else { &b }))
            .collect();
        let gone = take_owned_by(&a);
        assert_eq!(gone.len(), 3);
        assert!(gone.iter().all(|r| Arc::ptr_eq(&r.ctx, &a)));
        drop(gone);
        for (i, (p, alive)) in objs.iter().enumerate() {
            let live = i % 2 == 1;
            assert_eq!(get::<ibv_dm, Owner>(*p).is_ok(), live);
            assert_eq!(Arc::strong_count(alive), 1 + usize::from(live));
        }
        assert_eq!(take_owned_by(&b).len(), 2);
    }

    /// A hosted object's record (a record slot): its C struct read under the
    /// hosted table's lock while registered, EINVAL for a wrong kind, NULL or once gone.
    #[test]
    #[allow(unsafe_code)]
    fn mapped_reads() {
        use crate::abi::ibv_srq;
        let ctx = Arc::new(Owner);
        let c: &'static mut ibv_srq = Box::leak(Box::new(crate::abi::ibv_srq {
            handle: 42,
            ..unsafe_zeroed_srq()
        }));
        let p: *mut ibv_srq = c;
        let q = adopt::<ibv_srq, Owner>(
            ctx.clone(),
            New::of(std::ptr::NonNull::new(p.cast()).expect("non-null"), None),
        );
        assert_eq!(q, p);
        assert_eq!(read_mapped::<ibv_srq, Owner, _>(p, |s| s.handle), Ok(42));
        assert!(read_mapped::<ibv_pd, Owner, _>(p.cast(), |_| ()).is_err());
        assert!(read_mapped::<ibv_srq, Owner, _>(std::ptr::null(), |_| ()).is_err());
        drop(take_if::<ibv_srq, Owner>(p, |_| Ok(())).expect("taken"));
        assert!(read_mapped::<ibv_srq, Owner, _>(p, |s| s.handle).is_err());
        // SAFETY: leaked above, no longer registered.
        drop(unsafe { Box::from_raw(p) });
    }

    /// Hosted records (at C addresses, in record slots): found by kind and
    /// owner type only; a destroyed one is not found again, even once its
    /// slot holds another record, or its C address another object; a closed
    /// context's are taken, another's stay.
    #[test]
    fn hosted_records() {
        use crate::abi::ibv_pd;
        struct Else;
        // SAFETY: a test owner; the tests check record owners at run time.
        #[allow(unsafe_code)]
        unsafe impl RecordOwner for Else {}
        let (a, b) = (Arc::new(Owner), Arc::new(Owner));
        let mut cs: Vec<u64> = vec![0; 8];
        let at = |cs: &mut Vec<u64>, i: usize| -> *mut ibv_pd { (&raw mut cs[i]).cast() };
        let adopt_at = |ctx: &Arc<Owner>, p: *mut ibv_pd| {
            adopt::<ibv_pd, Owner>(
                ctx.clone(),
                New::of(std::ptr::NonNull::new(p.cast()).expect("non-null"), None),
            )
        };
        let p0 = at(&mut cs, 0);
        assert_eq!(adopt_at(&a, p0), p0);
        assert!(get::<ibv_pd, Owner>(p0).is_ok());
        assert!(get::<ibv_pd, Else>(p0).is_err(), "another owner type");
        assert!(get::<ibv_dm, Owner>(p0.cast()).is_err(), "another kind");
        assert!(get::<ibv_pd, Owner>(at(&mut cs, 1)).is_err(), "not adopted");
        let held = get::<ibv_pd, Owner>(p0).expect("live");
        let t = take_if::<ibv_pd, Owner>(p0, |_| Ok(())).expect("taken");
        assert!(get::<ibv_pd, Owner>(p0).is_err(), "destroyed");
        drop((t, held));
        // Its slot is the next record's: the old address is still unknown.
        let p1 = at(&mut cs, 1);
        adopt_at(&a, p1);
        assert!(get::<ibv_pd, Owner>(p0).is_err());
        assert!(get::<ibv_pd, Owner>(p1).is_ok());
        // The C address reused before the old record's destroy ended: the
        // late unregistration leaves the new record in place.
        let old = get::<ibv_pd, Owner>(p1).expect("live");
        adopt_at(&b, p1);
        assert!(unregister(&old));
        drop(old);
        let now = get::<ibv_pd, Owner>(p1).expect("the newer record");
        assert!(Arc::ptr_eq(&now.ctx, &b));
        drop(now);
        for i in 2..6 {
            adopt_at(if i % 2 == 0 { &a } else { &b }, at(&mut cs, i));
        }
        assert_eq!(take_owned_by(&a).len(), 2);
        for i in 2..6 {
            assert_eq!(get::<ibv_pd, Owner>(at(&mut cs, i)).is_ok(), i % 2 == 1);
        }
        assert_eq!(take_owned_by(&b).len(), 3);
        assert!(get::<ibv_pd, Owner>(p1).is_err());
    }

    fn unsafe_zeroed_srq() -> crate::abi::ibv_srq {
        // SAFETY: a C struct of pointers, integers and pthread objects, for
        // which all-zero is valid.
        #[allow(unsafe_code)]
        unsafe {
            std::mem::zeroed()
        }
    }

    #[test]
    fn concurrent_destroys_one_wins() {
        let ctx = Arc::new(Owner);
        for _ in 0..20 {
            let (p, alive) = make(&ctx);
            let a = p as usize;
            let ts: Vec<_> = (0..2)
                .map(|_| {
                    std::thread::spawn(move || {
                        take_if::<ibv_dm, Owner>(a as *const ibv_dm, |_| Ok(())).is_ok()
                    })
                })
                .collect();
            let wins = ts.into_iter().map(|t| t.join().unwrap());
            assert_eq!(wins.filter(|w| *w).count(), 1);
            assert_eq!(Arc::strong_count(&alive), 1);
        }
    }
}
