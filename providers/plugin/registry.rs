//! The plugins that registered themselves (`verbs_register_driver_N` from
//! their constructors) and the private ABI version each registered with: a
//! leaf the loader fills and the context code reads.
#![allow(unsafe_code)]

use crate::driver_abi::v34::verbs_device_ops;
use crate::driver_abi::{Pabi, V34};
use std::sync::Mutex;

/// A registered plugin's ops and private ABI version; plugins are never
/// unloaded, so they live forever.
#[derive(Clone, Copy)]
pub(crate) struct Registered(pub &'static verbs_device_ops, pub &'static Pabi);
// SAFETY: the ops table is immutable static data of a loaded library.
unsafe impl Send for Registered {}
// SAFETY: as above.
unsafe impl Sync for Registered {}

static REGISTERED: Mutex<Vec<Registered>> = Mutex::new(Vec::new());

/// verbs_register_driver_N: appends, in load order.
pub(crate) fn register(ops: &'static verbs_device_ops, pabi: &'static Pabi) {
    let mut r = REGISTERED.lock().unwrap_or_else(|p| p.into_inner());
    if !r.iter().any(|x| std::ptr::eq(x.0, ops)) {
        r.push(Registered(ops, pabi));
    }
}

/// The private ABI version a plugin's ops registered with (34 for ops that
/// never registered: a static provider of a v34 plugin).
pub(crate) fn pabi_of(ops: *const verbs_device_ops) -> &'static Pabi {
    let r = REGISTERED.lock().unwrap_or_else(|p| p.into_inner());
    r.iter()
        .find(|x| std::ptr::eq(x.0, ops))
        .map_or(&V34, |x| x.1)
}

/// The registered plugins, in registration order.
pub(crate) fn registered() -> Vec<Registered> {
    REGISTERED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}
