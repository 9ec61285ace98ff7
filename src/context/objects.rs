//! The objects a context owns. Each keeps its C struct at a stable address and
//! holds its context alive.
#![allow(unsafe_code)]

use super::Context;
use super::events::Events;
use crate::abi::*;
use crate::object::CObject;
use std::any::{Any, TypeId};
use std::cell::UnsafeCell;
use std::sync::Arc;

macro_rules! c_object {
    ($(#[$doc:meta])* $name:ident: $c:ty) => {
        c_object!($(#[$doc])* $name: $c as $c);
    };
    // `$store` starts with `$c` (e.g. ibv_cq_ex for ibv_cq): C sees the
    // larger struct through casts, as with rdma-core's verbs_cq/verbs_qp.
    ($(#[$doc:meta])* $name:ident: $c:ty as $store:ty) => {
        $(#[$doc])*
        pub struct $name {
            /// [`$name::MAGIC`] while alive: the data path's check that a C
            /// pointer leads to one of ours (see [`$name::from_c`]).
            magic: u64,
            c: UnsafeCell<$store>,
            pub ctx: Arc<Context>,
            /// The provider's state for this object.
            pub hw: Hw,
            /// Events reported for it and acknowledged, and its destroy claim.
            pub events: Events,
        }

        // SAFETY: the C struct is filled before publication; later writes come
        // from the provider under its own locks, as in rdma-core.
        unsafe impl Sync for $name {}
        // SAFETY: as above.
        unsafe impl Send for $name {}

        impl CObject for $name {
            type C = $c;
            fn c_ptr(&self) -> *mut $c {
                self.c.get().cast()
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // A stale pointer to freed memory most likely no longer
                // passes `from_c` (no guarantee: the memory may be reused).
                // SAFETY: a write to our own field.
                unsafe { std::ptr::write_volatile(&raw mut self.magic, 0) };
            }
        }

        impl $name {
            pub fn new(c: $store, ctx: Arc<Context>, hw: Box<dyn Any + Send + Sync>) -> Self {
                let hw = Hw::new(hw);
                const { assert!(size_of::<$store>() >= size_of::<$c>()) };
                $name {
                    magic: Self::MAGIC,
                    c: UnsafeCell::new(c),
                    ctx,
                    hw,
                    events: Events::default(),
                }
            }

            /// Marks objects of this type (a hash of its name).
            pub const MAGIC: u64 = magic(stringify!($name));

            /// The object whose C struct `p` points to, for the data path
            /// (inline verbs.h code calls provider ops with the pointers C
            /// holds, and a registry lookup would cost a lock there): NULL or
            /// a pointer whose container does not carry our magic is `None`.
            ///
            /// # Safety
            /// A non-NULL `p` must point to readable memory at least as far
            /// back as the container would start (in practice: a live object
            /// of ours, which inline code has already dereferenced), and the
            /// object must outlive `'a` (C must not destroy it meanwhile, as
            /// with rdma-core).
            pub unsafe fn from_c<'a>(p: *const $c) -> Option<&'a Self> {
                if p.is_null() {
                    return None;
                }
                let base = p
                    .cast::<u8>()
                    .wrapping_sub(std::mem::offset_of!($name, c))
                    .cast::<Self>();
                // SAFETY: per the contract, the container's bytes are
                // readable; read the magic alone before trusting the rest.
                let m = unsafe { std::ptr::read_volatile(&raw const (*base).magic) };
                // SAFETY: the magic says this is one of ours, alive per the
                // contract.
                (m == Self::MAGIC).then(|| unsafe { &*base })
            }

            /// The whole C struct (`$store`), for extended views.
            pub fn c_full(&self) -> *mut $store {
                self.c.get()
            }

            /// A copy of the C struct as it is now.
            pub fn c_get(&self) -> $store {
                // SAFETY: a read of plain C data inside our allocation; C
                // writers race with it exactly as with rdma-core's readers.
                unsafe { std::ptr::read(self.c.get()) }
            }

            /// Updates fields of the C struct: before publication, or for the
            /// fields rdma-core's core also writes after it (qp->state, event
            /// counters, cqe), which C reads without synchronisation there too.
            pub fn c_update<R>(&self, f: impl FnOnce(&mut $store) -> R) -> R {
                // SAFETY: no Rust reference to the struct outlives a call of
                // this function or `c_get`, and callers serialise their writes
                // (object creation, or the object's own lock).
                f(unsafe { &mut *self.c.get() })
            }
        }
    };
}

/// A provider's state for an object, with its type recorded up front so the
/// data path can check it without a virtual call.
pub struct Hw {
    id: TypeId,
    state: Box<dyn Any + Send + Sync>,
}

impl Hw {
    fn new(state: Box<dyn Any + Send + Sync>) -> Hw {
        Hw {
            id: (*state).type_id(),
            state,
        }
    }

    /// The state if it is a `T` (as `<dyn Any>::downcast_ref`).
    #[inline]
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        (self.id == TypeId::of::<T>()).then(|| {
            let p: *const (dyn Any + Send + Sync) = &*self.state;
            // SAFETY: `id` is the TypeId of the boxed value (recorded in
            // `new`, and `state` never changes), so it is a `T`.
            unsafe { &*p.cast::<T>() }
        })
    }
}

/// FNV-1a of a type name: distinct 64-bit tags per object type.
const fn magic(name: &str) -> u64 {
    let b = name.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < b.len() {
        h ^= b[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

c_object!(/// ibv_alloc_pd
    Pd: ibv_pd);
c_object!(/// ibv_reg_mr
    Mr: ibv_mr);
c_object!(/// ibv_alloc_mw
    Mw: ibv_mw);
c_object!(/// ibv_create_comp_channel
    CompChannel: ibv_comp_channel);
c_object!(/// ibv_create_cq, ibv_create_cq_ex (C: `ibv_cq`, inside an `ibv_cq_ex`)
    Cq: ibv_cq as ibv_cq_ex);
c_object!(/// ibv_create_qp, ibv_create_qp_ex (C: `ibv_qp`, inside an `ibv_qp_ex`)
    Qp: ibv_qp as ibv_qp_ex);
c_object!(/// ibv_create_srq
    Srq: ibv_srq);
c_object!(/// ibv_create_ah
    Ah: ibv_ah);
c_object!(/// ibv_import_dm
    Dm: ibv_dm);
