//! The C types of rdma-core 44's `infiniband/verbs.h`, byte for byte.
//! cbindgen turns this module into `include/infiniband/verbs.h`.
//!
//! C enums: a C caller may store any integer in an enum-typed field, and a Rust
//! `enum` holding an unlisted value is UB. So every field or parameter of type
//! `enum X` is the newtype `X(pub u32)` (`i32` for enums with negative values),
//! made by [`c_enum!`]. Its values are associated consts (`ibv_qp_type::IBV_QPT_RC`)
//! and plain integers (`IBV_QPT_RC: u32`). The `#[repr(C)] enum X_enum` beside
//! each newtype is never used by Rust: it is what cbindgen prints as `enum X {..}`.
//! Macro output is invisible to cbindgen, so the newtypes reach the header only
//! by name, renamed to `enum X` in cbindgen.toml.
#![allow(non_camel_case_types, non_snake_case)]

use core::ffi::{c_char, c_int, c_uint, c_void};

/// Declares the Rust face of a C enum: see the module docs.
macro_rules! c_enum {
    // Values taken from the cbindgen-visible `#[repr(C)]` enum `$src`.
    ($name:ident: $repr:ty = $src:ident { $($var:ident),* $(,)? }) => {
        c_enum!(@emit $name: $repr { $($var = $src::$var as $repr),* });
    };
    // Values given here (enums that a companion header defines for C).
    ($name:ident: $repr:ty { $($var:ident = $val:expr),* $(,)? }) => {
        c_enum!(@emit $name: $repr { $($var = $val),* });
    };
    (@emit $name:ident: $repr:ty { $($var:ident = $val:expr),* }) => {
        #[doc = concat!("C `enum ", stringify!($name), "` as a plain integer: any value is valid.")]
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub $repr);

        impl $name {
            $(pub const $var: Self = Self($val);)*

            /// The name of the enumerator with this value, if there is one.
            pub const fn name(self) -> Option<&'static str> {
                $(if self.0 == Self::$var.0 {
                    return Some(stringify!($var));
                })*
                None
            }
        }

        $(pub const $var: $repr = $name::$var.0;)*

        impl From<$repr> for $name {
            fn from(v: $repr) -> Self {
                Self(v)
            }
        }

        impl From<$name> for $repr {
            fn from(v: $name) -> Self {
                v.0
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}({:#x})", stringify!($name), self.0),
                }
            }
        }
    };
}

/// Compile-time check of a type's size, alignment and field offsets against the
/// numbers gcc gives for Debian's rdma-core 44 header on x86_64.
macro_rules! layout {
    ($t:ty, $size:literal, $align:literal; $($f:ident: $off:literal),* $(,)?) => {
        const _: () = {
            assert!(::core::mem::size_of::<$t>() == $size);
            assert!(::core::mem::align_of::<$t>() == $align);
            $(assert!(::core::mem::offset_of!($t, $f) == $off);)*
        };
    };
}

mod types;
/// cbindgen:ignore
mod uapi;

mod ah;
mod comp_cntr;
mod context;
mod counters;
mod cq;
mod device;
mod dm;
mod event;
mod flow;
mod gid;
mod mr;
mod mw;
mod pd;
mod port;
mod qp;
mod srq;
mod tm;
mod wc;
mod wq;
mod wr;
mod xrcd;

pub use ah::*;
pub use comp_cntr::*;
pub use context::*;
pub use counters::*;
pub use cq::*;
pub use device::*;
pub use dm::*;
pub use event::*;
pub use flow::*;
pub use gid::*;
pub use mr::*;
pub use mw::*;
pub use pd::*;
pub use port::*;
pub use qp::*;
pub use srq::*;
pub use tm::*;
pub use types::*;
pub use uapi::*;
pub use wc::*;
pub use wq::*;
pub use wr::*;
pub use xrcd::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_newtypes_take_any_value() {
        // A value C might store that no enumerator has: fine for the newtype.
        let t = ibv_qp_type(0xdead);
        assert_eq!(t.name(), None);
        assert_eq!(format!("{t:?}"), "ibv_qp_type(0xdead)");
        assert_eq!(format!("{:?}", ibv_qp_type::IBV_QPT_RC), "IBV_QPT_RC");
        assert_eq!(ibv_qp_type::IBV_QPT_RC.0, IBV_QPT_RC);
        assert_eq!(ibv_node_type::IBV_NODE_UNKNOWN.0, -1);
    }

    #[test]
    fn values_match_c() {
        assert_eq!(IBV_QPT_RAW_PACKET, 8);
        assert_eq!(IBV_ACCESS_RELAXED_ORDERING, IBV_ACCESS_OPTIONAL_FIRST);
        assert_eq!(IBV_ACCESS_OPTIONAL_RANGE, 0x3ff0_0000);
        assert_eq!(IBV_RX_HASH_INNER, 1 << 31);
        assert_eq!(IBV_DEVICE_RAW_SCATTER_FCS, 1 << 34);
        assert_eq!(IBV_WC_STANDARD_FLAGS, 127);
    }
}
