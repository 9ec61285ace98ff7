//! ESP flow actions, as rdma-core 44's cmd_flow_action.c sends them:
//! ibv_cmd_create_flow_action_esp and ibv_cmd_modify_flow_action_esp, the
//! FLOW_ACTION ESP_CREATE / ESP_MODIFY ioctl methods (no write() form), with
//! the plugin's driver attributes linked.

use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

/// The most attributes the ESP methods carry of their own (rdma-core's 6).
const ESP_ATTRS: usize = 6;
/// `IBV_FLOW_ACTION_ESP` in `enum ibv_flow_action_type`.
const ACTION_ESP: u32 = 1;
/// sizeof(struct ib_uverbs_flow_action_esp_encap) and
/// sizeof(struct ib_uverbs_flow_action_esp) (opaque in our abi).
const ENCAP_LEN: usize = 24;
const ESP_LEN: usize = 24;

/// copy_flow_action_esp: the ESN inline when the mask names it; the key
/// material and replay data with their protocol as the enum element; the
/// encapsulation and ESP attributes by pointer (their structs, 24 bytes each).
///
/// # Safety
/// The pointers in `a` are NULL or the caller's buffers of the sizes given.
unsafe fn fill_esp(f: &mut Frame, a: &ibv_flow_action_esp_attr) {
    // SAFETY (every block): per the contract; the frame only keeps the addresses.
    unsafe {
        if a.comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN != 0 {
            f.ptr_in(
                UVERBS_ATTR_FLOW_ACTION_ESP_ESN,
                (&raw const a.esn).cast(),
                4,
            );
        }
        if !a.keymat_ptr.is_null() {
            let s = f.ptr_in(
                UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT,
                a.keymat_ptr.cast(),
                a.keymat_len.into(),
            );
            f.set_enum(s, a.keymat_proto.0 as u8);
        }
        if !a.replay_ptr.is_null() {
            let s = f.ptr_in(
                UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY,
                a.replay_ptr.cast(),
                a.replay_len.into(),
            );
            f.set_enum(s, a.replay_proto.0 as u8);
        }
        if !a.esp_encap.is_null() {
            f.ptr_in(
                UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP,
                a.esp_encap.cast(),
                ENCAP_LEN,
            );
        }
        if !a.esp_attr.is_null() {
            f.ptr_in(
                UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS,
                a.esp_attr.cast(),
                ESP_LEN,
            );
        }
    }
}

pub(crate) unsafe fn create_flow_action_esp(
    ctx: *mut ibv_context,
    attr: *mut ibv_flow_action_esp_attr,
    action: *mut verbs_flow_action,
    driver: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the caller's attributes and the plugin's new action.
    let (a, v) = unsafe { (attr.as_ref(), action.as_mut()) };
    let (a, v) = a.zip(v).ok_or(Errno::EINVAL)?;
    // SAFETY: the plugin's driver chain (or NULL).
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_FLOW_ACTION,
            UVERBS_METHOD_FLOW_ACTION_ESP_CREATE,
            ESP_ATTRS,
            driver,
        )?
    };
    let h = f.obj_out(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
    // SAFETY: the caller's buffers, live through the call.
    unsafe {
        fill_esp(&mut f, a);
        f.execute(ctx)?;
    }
    v.action.context = ctx;
    v.r#type = ACTION_ESP;
    v.handle = f.read_obj(h);
    Ok(())
}

pub(crate) unsafe fn modify_flow_action_esp(
    action: *mut verbs_flow_action,
    attr: *mut ibv_flow_action_esp_attr,
    driver: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the plugin's action and the caller's attributes.
    let (a, v) = unsafe { (attr.as_ref(), action.as_ref()) };
    let (a, v) = a.zip(v).ok_or(Errno::EINVAL)?;
    // SAFETY: the plugin's driver chain (or NULL).
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_FLOW_ACTION,
            UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY,
            ESP_ATTRS,
            driver,
        )?
    };
    f.obj_in(UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, v.handle);
    // SAFETY: the caller's buffers, live through the call.
    unsafe {
        fill_esp(&mut f, a);
        f.execute(v.action.context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esp_attributes_as_rdma_core_fills_them() {
        // SAFETY: plain C data; all-zero is valid.
        let mut a: ibv_flow_action_esp_attr = unsafe { std::mem::zeroed() };
        let mut esp = [0u64; 3];
        let key = [7u8; 20];
        a.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN;
        a.esn = 0x1234;
        a.keymat_ptr = key.as_ptr() as *mut _;
        a.keymat_len = 20;
        a.keymat_proto = ib_uverbs_flow_action_esp_keymat(0);
        a.esp_attr = esp.as_mut_ptr().cast();
        // SAFETY: no link.
        let mut f = unsafe { Frame::new(13, 0, ESP_ATTRS, std::ptr::null_mut()) }.unwrap();
        let h = f.obj_out(0);
        // SAFETY: our buffers.
        unsafe { fill_esp(&mut f, &a) };
        assert_eq!(f.attr(h).attr_id, 0);
        let p = f.ptr();
        // SAFETY: our frame: four attributes after the handle.
        let n = unsafe { (*p).next_attr.offset_from(ibv_command_buffer::attrs(p)) };
        assert_eq!(n, 4);
        // SAFETY: our frame's attributes.
        let at = |i: usize| unsafe { *ibv_command_buffer::attrs(p).add(i) };
        // ESN (id 2) inline, 4 bytes.
        assert_eq!((at(1).attr_id, at(1).len, at(1).data), (2, 4, 0x1234));
        // KEYMAT (id 3) by pointer, 20 bytes, element 0.
        assert_eq!(
            (at(2).attr_id, at(2).len, at(2).data),
            (3, 20, key.as_ptr() as u64)
        );
        assert_eq!(at(2).attr_data, 0);
        // ATTRS (id 1): ib_uverbs_flow_action_esp by pointer, 24 bytes.
        assert_eq!((at(3).attr_id, at(3).len), (1, 24));
    }

    #[test]
    fn null_arguments_are_einval() {
        // SAFETY: refused before any use.
        unsafe {
            let r = create_flow_action_esp(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            assert_eq!(r, Err(Errno::EINVAL));
            let r = modify_flow_action_esp(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            assert_eq!(r, Err(Errno::EINVAL));
        }
    }
}
