//! The objects a context owns. Each keeps its C struct at a stable address and
//! holds its context alive.
#![allow(unsafe_code)]

use super::Context;
use super::events::Events;
use crate::abi::*;
use crate::object::CObject;
use std::any::Any;
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
            c: UnsafeCell<$store>,
            pub ctx: Arc<Context>,
            /// The provider's state for this object.
            pub hw: Box<dyn Any + Send + Sync>,
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

        impl $name {
            pub fn new(c: $store, ctx: Arc<Context>, hw: Box<dyn Any + Send + Sync>) -> Self {
                const { assert!(size_of::<$store>() >= size_of::<$c>()) };
                $name { c: UnsafeCell::new(c), ctx, hw, events: Events::default() }
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
