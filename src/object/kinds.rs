//! The kinds of verbs objects, the C types that name them, and the slab (at
//! most one per kind) whose slots hold a kind's Rust-provider objects.

use super::slot::{Finder, Probe, Token};
use crate::abi::*;
use std::sync::OnceLock;

/// What kind of verbs object a registry entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Pd,
    Mr,
    Mw,
    CompChannel,
    Cq,
    Qp,
    Srq,
    Ah,
    Dm,
    /// Only a hosted plugin's (ibv_create_wq is verbs.h's inline call of its op).
    Wq,
    /// A completion counter: only a hosted 65 plugin makes one.
    CompCntr,
    /// A DMA handle: only a hosted 65 plugin makes one.
    /// The last variant: [`KINDS`] counts up to it.
    Dmah,
}

/// How many kinds there are.
pub(crate) const KINDS: usize = Kind::Dmah as usize + 1;

/// The C struct types C hands us for each kind (`ibv_cq_ex` and `ibv_qp_ex`
/// start with `ibv_cq`/`ibv_qp`: same objects, same kinds).
pub(crate) trait KindOf {
    const KIND: Kind;
}

macro_rules! kinds {
    ($($c:ty => $k:ident),* $(,)?) => {
        $(impl KindOf for $c { const KIND: Kind = Kind::$k; })*
    };
}
kinds!(ibv_pd => Pd, ibv_mr => Mr, ibv_mw => Mw, ibv_comp_channel => CompChannel,
    ibv_cq => Cq, ibv_cq_ex => Cq, ibv_qp => Qp, ibv_qp_ex => Qp, ibv_srq => Srq,
    ibv_ah => Ah, ibv_dm => Dm, ibv_wq => Wq, ibv_comp_cntr => CompCntr, ibv_dmah => Dmah);

/// The owner of the registry's records (`Obj::ctx`): the context.
///
/// # Safety
/// Outside `cfg(test)` one type implements it. The records do not say
/// whose they are then: a `Ref<O>` is made of every record found, which
/// is sound only while every record has the one owner type. The unit
/// tests bring owners of their own and keep a run-time check
/// ([`OwnerId`]).
#[allow(unsafe_code)]
pub(crate) unsafe trait RecordOwner: Send + Sync + 'static {}

/// Whose a record is: the owner's `TypeId` in the unit tests, nothing
/// (no check) in the library, which has one owner type.
#[cfg(test)]
pub(super) type OwnerId = std::any::TypeId;
#[cfg(not(test))]
#[derive(Clone, Copy)]
pub(super) struct OwnerId;

/// The [`OwnerId`] of `O`.
#[inline(always)]
pub(super) fn owner_id<O: RecordOwner>() -> OwnerId {
    #[cfg(test)]
    return std::any::TypeId::of::<O>();
    #[cfg(not(test))]
    OwnerId
}

/// Whether a record made for `_id` is `O`'s: always, in the library.
#[inline(always)]
pub(super) fn owned<O: RecordOwner>(_id: OwnerId) -> bool {
    #[cfg(test)]
    return _id == std::any::TypeId::of::<O>();
    #[cfg(not(test))]
    true
}

/// The slab of a kind (see [`SLABS`]).
pub(super) struct KindSlab {
    pub(super) probe: &'static dyn Probe,
    /// The owner type `O` of the records in its slots.
    pub(super) owner: OwnerId,
    /// The records in its slots release through it.
    pub(super) token: &'static dyn Token,
    /// Its address check, inlined in the registry's look-ups.
    pub(super) find: Finder,
}

/// The slab (at most one per kind) whose slots hold the records of a kind's
/// Rust-provider objects, learnt at its first object.
pub(super) static SLABS: [OnceLock<KindSlab>; KINDS] = [const { OnceLock::new() }; KINDS];

/// The token of `k`'s slab, which releases the objects whose records are
/// in its slots.
pub(super) fn slot_token(k: Kind) -> Option<&'static dyn Token> {
    SLABS[k as usize].get().map(|e| e.token)
}

/// The slab registered for `k` with owner `O`.
#[inline(always)]
pub(super) fn slab_of<O: RecordOwner>(k: Kind) -> Option<&'static KindSlab> {
    SLABS[k as usize].get().filter(|e| owned::<O>(e.owner))
}
