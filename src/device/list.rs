//! The NULL-terminated device arrays handed to C by ibv_get_device_list.
#![allow(unsafe_code)]

use super::Device;
use crate::entry::{Errno, Result};
use crate::object::CObject;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The NULL-terminated arrays handed to C, owned here until
/// ibv_free_device_list gives them back.
pub(crate) struct DeviceList;

static LISTS: Mutex<Option<HashMap<usize, Box<[usize]>>>> = Mutex::new(None);

impl DeviceList {
    /// A new C array of the devices, NULL-terminated; its address is the key.
    pub(crate) fn hand_out(devs: &[Arc<Device>]) -> *mut *mut crate::abi::ibv_device {
        let mut arr: Box<[usize]> = devs.iter().map(|d| d.c_ptr() as usize).chain([0]).collect();
        let p = arr.as_mut_ptr().cast();
        let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
        lists
            .get_or_insert_with(HashMap::new)
            .insert(p as usize, arr);
        p
    }

    /// Frees an array from [`hand_out`]; anything else is refused.
    pub(crate) fn give_back(p: *mut *mut crate::abi::ibv_device) -> Result<()> {
        let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
        lists
            .as_mut()
            .and_then(|m| m.remove(&(p as usize)))
            .map(drop)
            .ok_or(Errno::EINVAL)
    }
}
