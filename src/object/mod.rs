//! Ownership of the objects whose addresses C holds: the control path's way in.
//!
//! Every object we hand to C (device, context, PD, CQ, QP, ...) is an `Arc` kept
//! in one registry keyed by the address of its C struct. A pointer coming back
//! from C is only dereferenced after it is found there with the right kind, so a
//! stale, foreign or garbage pointer gives EINVAL instead of undefined behaviour,
//! and an object stays alive while a verb is using it even if another thread
//! destroys it meanwhile.
//!
//! # The object model (API summary)
//! - Roots (device, context) are Rust objects ([`CObject`]): [`publish`],
//!   [`lookup`], [`retire`].
//! - Everything a context creates is an [`Obj`] record, whatever provider made
//!   it: its [`Kind`], the C pointer (the head of the provider's object: a Rust
//!   provider's `#[repr(C)]` slab object or a C provider's own struct), its
//!   owning context (`obj.ctx`, whose `ops` the verbs dispatch to), the generic
//!   bookkeeping ([`Events`]: event acknowledgements, destroy claim) and the
//!   provider's ownership [`Token`].
//! - A provider's create returns a [`New`] (C pointer + token); the verbs layer
//!   wraps it with [`adopt`] (kind from the C type, see [`KindOf`]) and hands
//!   the pointer to C. [`get`] finds a live object of a kind (`get::<ibv_qp, _>`),
//!   [`take`]/[`take_if`] remove it (destroy), [`events::destroy`] runs the
//!   event-acknowledging destroy of CQs, QPs and SRQs, [`take_owned_by`] all
//!   the objects of a closed context.
//! - The data path does not come here: a Rust provider checks C's pointers
//!   with its type's [`slab::Slab::pin`] (type-stable memory, one address
//!   check, see `slab`).

pub(crate) mod events;
mod obj;
pub(crate) mod slab;

pub(crate) use events::EventCounts;
pub(crate) use obj::{Kind, KindOf, New, Obj, Token};

use crate::entry::{Errno, Result};
use std::any::Any;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, RwLock};

/// A Rust object that owns a C struct at a stable address.
pub(crate) trait CObject: Any + Send + Sync {
    /// The C struct C code sees.
    type C;
    /// The address C holds: inside `self`, stable as long as the Arc lives.
    fn c_ptr(&self) -> *mut Self::C;
}

type Entry = Arc<dyn Any + Send + Sync>;

/// Hashes the keys, our own objects' addresses: no untrusted keys, so a
/// multiply-and-fold replaces SipHash, which costs more than the rest of a
/// lookup. The fold moves the varying middle bits of an address into the low
/// bits that pick the bucket.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        let h = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Map = HashMap<usize, Entry, BuildHasherDefault<AddrHasher>>;

static REGISTRY: RwLock<Option<Map>> = RwLock::new(None);

fn with_map<R>(f: impl FnOnce(&mut Map) -> R) -> R {
    let mut g = REGISTRY.write().unwrap_or_else(|p| p.into_inner());
    f(g.get_or_insert_with(Map::default))
}

/// Hands `obj` to C: from now on its C pointer is valid for [`lookup`].
pub(crate) fn publish<T: CObject>(obj: Arc<T>) -> *mut T::C {
    let p = obj.c_ptr();
    with_map(|m| m.insert(p as usize, obj as Entry));
    p
}

/// The object behind a C pointer, if it is a live object of type `T`.
pub(crate) fn lookup<T: CObject>(p: *const T::C) -> Result<Arc<T>> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    let g = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
    let entry = g.as_ref().and_then(|m| m.get(&(p as usize))).cloned();
    drop(g);
    entry
        .and_then(|e| e.downcast::<T>().ok())
        .ok_or(Errno::EINVAL)
}

/// Takes the object back from C (the destroy verbs): the pointer is invalid for
/// C from now on; the memory goes when the last Arc does.
pub(crate) fn retire<T: CObject>(p: *const T::C) -> Result<Arc<T>> {
    retire_if::<T>(p, |_| Ok(()))
}

/// Like [`retire`], but only when `can_go` agrees, checked under the registry
/// lock so two destroys of one object cannot both succeed.
pub(crate) fn retire_if<T: CObject>(
    p: *const T::C,
    can_go: impl FnOnce(&T) -> Result<()>,
) -> Result<Arc<T>> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    let key = p as usize;
    with_map(|m| {
        let obj = m
            .get(&key)
            .and_then(|e| e.downcast_ref::<T>())
            .ok_or(Errno::EINVAL)?;
        can_go(obj)?;
        // Checked above: present and a T.
        m.remove(&key)
            .and_then(|e| e.downcast::<T>().ok())
            .ok_or(Errno::EINVAL)
    })
}

/// Takes back from C every object `pred` selects; returned so that the
/// caller drops them outside the registry lock.
fn retire_where(
    pred: impl Fn(&(dyn Any + Send + Sync)) -> bool,
) -> Vec<Arc<dyn Any + Send + Sync>> {
    with_map(|m| {
        let keys: Vec<usize> = m
            .iter()
            .filter(|(_, e)| pred(e.as_ref()))
            .map(|(k, _)| *k)
            .collect();
        keys.iter().filter_map(|k| m.remove(k)).collect()
    })
}

/// Hands a provider's new object to C: registered as a `C::KIND` owned by
/// `ctx`; returns the pointer C gets.
pub(crate) fn adopt<C: KindOf, O: Send + Sync + 'static>(ctx: Arc<O>, new: New) -> *mut C {
    let obj = Arc::new(Obj::new(C::KIND, ctx, new));
    let p = obj.c::<C>();
    with_map(|m| m.insert(p as usize, obj as Entry));
    p
}

fn as_kind<C: KindOf, O: Send + Sync + 'static>(e: &Entry) -> Option<&Obj<O>> {
    e.downcast_ref::<Obj<O>>().filter(|o| o.kind() == C::KIND)
}

/// The live object C's pointer `p` names, if it is one of kind `C::KIND`.
pub(crate) fn get<C: KindOf, O: Send + Sync + 'static>(p: *const C) -> Result<Arc<Obj<O>>> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    let g = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
    let e = g.as_ref().and_then(|m| m.get(&(p as usize)));
    let r = e.filter(|e| as_kind::<C, O>(e).is_some()).cloned();
    drop(g);
    r.and_then(|e| e.downcast::<Obj<O>>().ok())
        .ok_or(Errno::EINVAL)
}

/// Takes an object back from C (a destroy): see [`take_if`].
pub(crate) fn take<C: KindOf, O: Send + Sync + 'static>(p: *const C) -> Result<Arc<Obj<O>>> {
    take_if::<C, O>(p, |_| Ok(()))
}

/// Takes the object of kind `C::KIND` at `p` back from C when `can_go`
/// agrees (the provider's destroy), checked under the registry lock so two
/// destroys of one object cannot both succeed. The object is released when
/// the returned reference (and any a verb in flight holds) goes.
pub(crate) fn take_if<C: KindOf, O: Send + Sync + 'static>(
    p: *const C,
    can_go: impl FnOnce(&Obj<O>) -> Result<()>,
) -> Result<Arc<Obj<O>>> {
    if p.is_null() {
        return Err(Errno::EINVAL);
    }
    let key = p as usize;
    let r = with_map(|m| {
        let obj = m
            .get(&key)
            .and_then(|e| as_kind::<C, O>(e))
            .ok_or(Errno::EINVAL)?;
        can_go(obj)?;
        m.remove(&key)
            .and_then(|e| e.downcast::<Obj<O>>().ok())
            .ok_or(Errno::EINVAL)
    });
    if let Ok(o) = &r {
        o.retire();
    }
    r
}

/// Takes back from C every object owned by `ctx` (ibv_close_device). They
/// are returned so that the caller drops them outside the registry lock.
pub(crate) fn take_owned_by<O: Send + Sync + 'static>(ctx: &Arc<O>) -> Vec<Entry> {
    retire_where(|e| {
        e.downcast_ref::<Obj<O>>()
            .is_some_and(|o| Arc::ptr_eq(&o.ctx, ctx))
    })
}

/// How many objects C holds now (for leak tests).
#[allow(dead_code)]
pub(crate) fn live_count() -> usize {
    REGISTRY
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map_or(0, Map::len)
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
}
