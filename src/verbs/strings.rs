//! The string and rate helpers: pure functions of their argument.
#![allow(unsafe_code)]

use crate::abi::{
    ibv_event_type, ibv_node_type, ibv_port_state, ibv_rate, ibv_wc_status, ibv_wr_opcode,
};
use crate::{enum_str, rate};
use std::ffi::{c_char, c_int};

#[unsafe(no_mangle)]
#[entry(value(c"unknown".as_ptr()))]
pub extern "C" fn ibv_node_type_str(node_type: ibv_node_type) -> *const c_char {
    enum_str::node_type(node_type.0).as_ptr()
}

#[unsafe(no_mangle)]
#[entry(value(c"unknown".as_ptr()))]
pub extern "C" fn ibv_port_state_str(port_state: ibv_port_state) -> *const c_char {
    enum_str::port_state(port_state.0).as_ptr()
}

#[unsafe(no_mangle)]
#[entry(value(c"unknown".as_ptr()))]
pub extern "C" fn ibv_event_type_str(event: ibv_event_type) -> *const c_char {
    enum_str::event_type(event.0).as_ptr()
}

#[unsafe(no_mangle)]
#[entry(value(c"unknown".as_ptr()))]
pub extern "C" fn ibv_wc_status_str(status: ibv_wc_status) -> *const c_char {
    enum_str::wc_status(status.0).as_ptr()
}

/// rdma-core 64 (IBVERBS_PRIVATE_64, declared in its verbs.h).
#[unsafe(no_mangle)]
#[entry(value(c"unknown".as_ptr()))]
pub extern "C" fn ibv_wr_opcode_str(opcode: ibv_wr_opcode) -> *const c_char {
    enum_str::wr_opcode(opcode.0).as_ptr()
}

/// The same function as rdma-core 50..56 version it (IBVERBS_PRIVATE_34):
/// their table of names is 64's.
#[entry(value(c"unknown".as_ptr()))]
pub extern "C" fn ibv_wr_opcode_str_34(opcode: ibv_wr_opcode) -> *const c_char {
    enum_str::wr_opcode(opcode.0).as_ptr()
}

#[unsafe(no_mangle)]
#[entry(value(-1))]
pub extern "C" fn ibv_rate_to_mult(rate: ibv_rate) -> c_int {
    rate::rate_to_mult(rate.0 as i32)
}

#[unsafe(no_mangle)]
#[entry(value(ibv_rate(0)))]
pub extern "C" fn mult_to_ibv_rate(mult: c_int) -> ibv_rate {
    ibv_rate(rate::mult_to_rate(mult) as u32)
}

#[unsafe(no_mangle)]
#[entry(value(-1))]
pub extern "C" fn ibv_rate_to_mbps(rate: ibv_rate) -> c_int {
    rate::rate_to_mbps(rate.0 as i32)
}

#[unsafe(no_mangle)]
#[entry(value(ibv_rate(0)))]
pub extern "C" fn mbps_to_ibv_rate(mbps: c_int) -> ibv_rate {
    ibv_rate(rate::mbps_to_rate(mbps) as u32)
}
