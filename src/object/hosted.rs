//! The records of a hosted C provider's objects (and of a Rust object whose
//! kind's slab is another's), which live at arbitrary C addresses.
//!
//! Each record is in a slot of one type-stable slab ([`SLOTS`]), like a
//! Rust provider's: no allocation per object, and the slot's state word
//! counts the references, so a stale record is refused by reading our own
//! memory. The slot's value is a [`Hosted`] (the C address, the token, the
//! owner, and this slab as the token that releases the slot). A table (open addressing, see `table`) maps the C address
//! to the slot's value; it changes under its write lock only, together with
//! the record's registered bit, so an address in the table always names a
//! registered record.
#![allow(unsafe_code)]

use super::kinds::{Kind, KindOf, RecordOwner, owned, owner_id};
use super::obj::{Hosted, Obj};
use super::rec::Ref;
use super::slab::Unpinned;
use super::slot::{Home, New, REC_TO_VAL};
use super::table::Table;
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The hosted records' slots: nothing pins them (a record is counted by its
/// slot's state word), so a slot goes back without the data-path fence.
static SLOTS: Unpinned<Hosted> = Unpinned::new();

/// C address -> the address of its record slot's [`Hosted`].
static MAP: RwLock<Table<NonZeroUsize>> = RwLock::new(Table::new());

fn read() -> RwLockReadGuard<'static, Table<NonZeroUsize>> {
    MAP.read().unwrap_or_else(|p| p.into_inner())
}

fn write() -> RwLockWriteGuard<'static, Table<NonZeroUsize>> {
    MAP.write().unwrap_or_else(|p| p.into_inner())
}

/// The home of the slot whose value is at `v` (a table value: one of
/// [`SLOTS`]'s).
#[inline]
fn home(v: NonZeroUsize) -> Option<Home> {
    SLOTS.finder().home(std::ptr::without_provenance(v.get()))
}

/// The [`Hosted`] of the registered record in `home`, if made for owner
/// type `O`.
#[inline]
fn owned_by<O: RecordOwner>(home: Home) -> bool {
    let h = home.rec.cast::<u8>().as_ptr().wrapping_add(REC_TO_VAL);
    // SAFETY: a slot of SLOTS (its address check passed) whose record is
    // registered (its address is in the table, read under the table's
    // lock): its Hosted was written before it went in and is not changed
    // until the record ends, after it left the table.
    owned::<O>(unsafe { (*h.cast::<Hosted>()).owner })
}

/// Registers `new` (at a C address) as a `kind` owned by `ctx`; returns
/// its C address.
pub(super) fn adopt<O: RecordOwner>(kind: Kind, ctx: Arc<O>, new: New) -> NonNull<c_void> {
    // The record owns the object from now on (its token releases it).
    let new = ManuallyDrop::new(new);
    let slot = SLOTS.vacant().fill(Hosted {
        c: new.c(),
        token: new.token(),
        owner: owner_id::<O>(),
        slot: &SLOTS,
    });
    let v = NonZeroUsize::new(slot.c().as_ptr().addr()).expect("slot address");
    let c = Ref::register(kind, ctx, slot, true);
    write().insert(c.as_ptr().addr(), kind as u8, v);
    c
}

/// The table's slot value for the C address `p` of a `kind`, under `m`.
#[inline]
fn find<O: RecordOwner>(m: &Table<NonZeroUsize>, p: usize, kind: Kind) -> Option<Home> {
    let s = m.get(p).filter(|s| s.kind == kind as u8)?;
    let home = home(s.e?)?;
    owned_by::<O>(home).then_some(home)
}

/// A counted reference to the registered record of the `C` at `p`.
pub(super) fn get<C: KindOf, O: RecordOwner>(p: *const C) -> Option<Ref<O>> {
    let m = read();
    // Registered while in the table: the acquire succeeds.
    Ref::acquire(find::<O>(&m, p.addr(), C::KIND)?)
}

/// `f` of the C struct of the registered `C` at `p`, under the table's read
/// lock (which keeps the record registered, and so the C struct alive).
pub(super) fn read_c<C: KindOf, O: RecordOwner, R>(
    p: *const C,
    f: impl FnOnce(&C) -> R,
) -> Option<R> {
    let m = read();
    let home = find::<O>(&m, p.addr(), C::KIND)?;
    // SAFETY: the record is registered and ours (owner O) while the lock
    // is held: an `Obj<O>`, alive.
    let obj = unsafe { home.rec.cast::<Obj<O>>().as_ref() };
    Some(obj.read_c(f))
}

/// Takes `r`'s record out of the table and clears its `REG`, together
/// under the table's write lock; false if another thread did first.
pub(super) fn unregister<O: RecordOwner>(r: &Ref<O>) -> bool {
    let key = r.addr().as_ptr().addr();
    let mut m = write();
    let won = r.unregister();
    // The key may name a newer record by now (the plugin freed the C struct
    // and reused its address before this destroy ended): only ours goes.
    if won
        && let Some(i) = m.find(key)
        && m.slots[i].e.map(NonZeroUsize::get) == Some(r.slot_val())
    {
        m.take(i);
    }
    won
}

/// Moves every registered record owned by `ctx` out of the table into
/// `out`, unregistered.
pub(super) fn take_owned_by<O: RecordOwner>(ctx: &Arc<O>, out: &mut Vec<Ref<O>>) {
    let mut m = write();
    let mut keys = Vec::new();
    for s in m.iter() {
        let Some(home) = s.e.and_then(home).filter(|h| owned_by::<O>(*h)) else {
            continue;
        };
        // Another owner's record is only looked at: its registry
        // reference keeps it (the lock is held), so ours is not its last.
        if let Some(r) = Ref::<O>::acquire(home)
            && Arc::ptr_eq(&r.ctx, ctx)
            && r.unregister()
        {
            keys.push(s.key);
            out.push(r);
        }
    }
    for k in keys {
        m.remove(k);
    }
}
