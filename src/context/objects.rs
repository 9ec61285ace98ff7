//! The objects a context owns. Each keeps its C struct at a stable address and
//! holds its context alive.
#![allow(unsafe_code)]

use super::Context;
use super::events::EventCounts;
use crate::abi::*;
use crate::object::CObject;
use std::any::Any;
use std::cell::UnsafeCell;
use std::sync::Arc;

macro_rules! c_object {
    ($(#[$doc:meta])* $name:ident: $c:ty) => {
        $(#[$doc])*
        pub struct $name {
            c: UnsafeCell<$c>,
            pub ctx: Arc<Context>,
            /// The provider's state for this object.
            pub hw: Box<dyn Any + Send + Sync>,
            /// Events acknowledged on this object (see `context::events`).
            pub events: EventCounts,
        }

        // SAFETY: the C struct is filled before publication; later writes come
        // from the provider under its own locks, as in rdma-core.
        unsafe impl Sync for $name {}
        // SAFETY: as above.
        unsafe impl Send for $name {}

        impl CObject for $name {
            type C = $c;
            fn c_ptr(&self) -> *mut $c {
                self.c.get()
            }
        }

        impl $name {
            pub fn new(c: $c, ctx: Arc<Context>, hw: Box<dyn Any + Send + Sync>) -> Self {
                $name { c: UnsafeCell::new(c), ctx, hw, events: EventCounts::default() }
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
c_object!(/// ibv_create_cq
    Cq: ibv_cq);
c_object!(/// ibv_create_qp
    Qp: ibv_qp);
c_object!(/// ibv_create_srq
    Srq: ibv_srq);
c_object!(/// ibv_create_ah
    Ah: ibv_ah);
c_object!(/// ibv_import_dm
    Dm: ibv_dm);
